import type { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { OutboxWake } from '../../events/outbox-wake';
import type { AllConfig } from '../../platform/config';
import type { ClaimedEvent, DispatchStore } from './dispatch.store';
import { OutboxRelay } from './outbox-relay';
import type { WebhookLanes } from './webhook-lanes';

/**
 * The relay's turn, with its collaborators stubbed: which claims it makes, and when. Each of the
 * relay's turns begins by asking whether Redis is ready, so those questions count its turns.
 */
function relayWith(claims: ClaimedEvent[][]) {
  let claimed = 0;
  /** per turn, the claims made before it began */
  const turns: number[] = [];
  const queued: string[][] = [];
  const queue = {
    get client() {
      turns.push(claimed);
      return { status: 'ready' };
    },
    getWaitingCount: async () => 0,
    addBulk: async (jobs: { data: { eventId: string } }[]) => {
      queued.push(jobs.map((job) => job.data.eventId));
      return [];
    },
  };
  const pending = () => claims.length > 0;
  const dispatch = {
    unrelayedLanes: async () => (pending() ? ['interactive'] : []),
    claimUnrelayed: async () => {
      claimed++;
      return claims.shift() ?? [];
    },
  } as unknown as DispatchStore;
  const dataSource = {
    transaction: (work: (em: unknown) => Promise<unknown>) => work({}),
  } as unknown as DataSource;
  const wake = { listen: async () => undefined } as unknown as OutboxWake;
  const lanes = { fanout: () => queue } as unknown as WebhookLanes;
  const config = { get: () => ['interactive'] } as unknown as ConfigService<AllConfig, true>;
  const relay = new OutboxRelay(dataSource, dispatch, wake, lanes, config);
  return { relay, queued, turns };
}

const event = (id: string): ClaimedEvent => ({ id, accountId: 'a' }) as ClaimedEvent;

describe('OutboxRelay', () => {
  it('claims again within its turn when the waiting events were all locked, without waiting for a wake or a poll', async () => {
    // The first claim finds the sale locked (by the feed positioner's batch); the second gets it.
    const { relay, queued, turns } = relayWith([[], [event('sale')]]);
    await relay.onApplicationBootstrap();
    try {
      await waitFor(() => queued.length > 0);
      expect(queued).toEqual([['sale']]);
      expect(turns).toEqual([0]);
    } finally {
      await relay.onModuleDestroy();
    }
  });

  it('gives up on locked events after a few quick tries, leaving them to the next poll', async () => {
    const locked = Array.from({ length: 30 }, (): ClaimedEvent[] => []);
    const { relay, turns } = relayWith([...locked, [event('sale')]]);
    await relay.onApplicationBootstrap();
    try {
      await waitFor(() => turns.length >= 2);
      expect(turns.slice(0, 2)).toEqual([0, 11]);
    } finally {
      await relay.onModuleDestroy();
    }
  });
});

async function waitFor(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
