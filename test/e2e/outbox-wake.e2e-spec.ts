import Redis from 'ioredis';
import { OutboxService } from '../../src/events/outbox.service';
import { sampleEventData } from '../support/events';
import { anAccount, as } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The wake that spares a new event the relay's poll interval: sent over Redis when, and only
 * when, a transaction that wrote events has committed.
 */
describe('Outbox wake', () => {
  let t: TestApp;
  let subscriber: Redis;
  const wakes: number[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    subscriber = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    subscriber.on('message', () => wakes.push(Date.now()));
    await subscriber.subscribe(`${t.redisPrefix}:outbox-wake`);
  });
  afterAll(async () => {
    await subscriber.quit();
    await t.close();
  });

  const quiet = async () => {
    await sleep(100); // a trailing wake of an earlier write has gone out
    wakes.length = 0;
  };

  it('wakes the relays once the transaction that wrote events has committed, not before', async () => {
    const account = await anAccount(t).build();
    await quiet();
    const outbox = t.app.get(OutboxService);
    const data = sampleEventData('listing.sold');
    await t.dataSource.transaction(async (em) => {
      await outbox.append(em, { accountId: account.id, event: 'listing.sold', data });
      await sleep(100);
      expect(wakes).toHaveLength(0);
    });
    await eventually(() => wakes.length > 0);
  });

  it('does not wake anyone for a transaction that rolled back', async () => {
    const account = await anAccount(t).build();
    await quiet();
    const outbox = t.app.get(OutboxService);
    await expect(
      t.dataSource.transaction(async (em) => {
        await outbox.append(em, {
          accountId: account.id,
          event: 'listing.sold',
          data: sampleEventData('listing.sold'),
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await sleep(200);
    expect(wakes).toHaveLength(0);
  });

  it('wakes for events written by the API in one statement (a create) and by a bulk request', async () => {
    const account = await anAccount(t).build();
    await quiet();
    await as(t, account.liveKey)
      .post('/v1/listings')
      .send(aListing().withExternalId('wake-1').build())
      .expect(201);
    await eventually(() => wakes.length > 0);
    await quiet();
    await as(t, account.liveKey)
      .post('/v1/listings/bulk')
      .send({ items: [aListing().withExternalId('wake-2').build(), aListing().build()] })
      .expect(200);
    await eventually(() => wakes.length > 0);
  });
});
