import { ConfigService } from '@nestjs/config';
import type Redis from 'ioredis';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
} from 'typeorm';
import type { AllConfig } from '../platform/config';
import { OutboxWake } from './outbox-wake';

describe('OutboxWake', () => {
  const published: string[] = [];
  const redis = {
    publish: (channel: string) => {
      published.push(channel);
      return Promise.resolve(1);
    },
  } as unknown as Redis;
  const config = new ConfigService<AllConfig, true>({ redis: { keyPrefix: 'p' } });
  const noTransaction = {} as EntityManager;
  let wake: OutboxWake;
  let subscribers: EntitySubscriberInterface[];

  beforeEach(() => {
    jest.useFakeTimers();
    published.length = 0;
    subscribers = [];
    wake = new OutboxWake({ subscribers } as unknown as DataSource, redis, config);
  });

  /** A transaction's writes through `work`, then its commit as TypeORM reports it. */
  const committed = async (work: (em: EntityManager) => void) => {
    const queryRunner = { isTransactionActive: true };
    work({ queryRunner: queryRunner as QueryRunner } as EntityManager);
    queryRunner.isTransactionActive = false;
    for (const subscriber of subscribers)
      await subscriber.afterTransactionCommit?.({
        queryRunner: queryRunner as QueryRunner,
      } as TransactionCommitEvent);
  };
  afterEach(async () => {
    await wake.onModuleDestroy();
    jest.useRealTimers();
  });

  it('publishes on the prefix channel at once for a write outside a transaction', () => {
    wake.written(noTransaction);
    expect(published).toEqual(['p:outbox-wake']);
  });

  it('sends a burst as one wake at once and one at the end of the 5 ms gap', () => {
    for (let i = 0; i < 50; i++) wake.written(noTransaction);
    expect(published).toHaveLength(1);
    jest.advanceTimersByTime(4);
    wake.written(noTransaction);
    expect(published).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(published).toHaveLength(2); // the trailing wake: the burst's last events are announced
    jest.advanceTimersByTime(100);
    expect(published).toHaveLength(2);
    wake.written(noTransaction);
    expect(published).toHaveLength(3); // a gap has passed: at once again
  });

  it('wakes once a transaction that wrote events commits, not before', async () => {
    await committed((em) => {
      wake.written(em);
      expect(published).toEqual([]);
    });
    expect(published).toEqual(['p:outbox-wake']);
  });

  it('does not wake for a transaction in the bulk lane: the relay finds its events on its poll', async () => {
    await committed((em) => {
      wake.inBulkLane(em);
      wake.written(em);
    });
    expect(published).toEqual([]);
  });
});
