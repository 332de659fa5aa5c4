import type { OwnerScope } from '../../src/auth/scope';
import { OutboxService } from '../../src/events/outbox.service';
import { OutboxStore } from '../../src/events/outbox.store';
import { OutboxWake } from '../../src/events/outbox-wake';
import { REDIS } from '../../src/platform/redis/redis.module';
import type Redis from 'ioredis';
import { EVENT_LANES } from '../../src/events/event-lane';
import { DispatchStore } from '../../src/webhooks/dispatch/dispatch.store';
import { sampleEventData } from '../support/events';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

/**
 * The lanes and the relay's claim against the real database: which events are bulk, how one
 * claim shares a lane's backlog among accounts, and who settles the events nobody hears.
 */
describe('Event lanes and the relay claim', () => {
  let ctx: IntegrationContext;
  let outbox: OutboxService;
  let dispatch: DispatchStore;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [], providers: [DispatchStore] });
    outbox = ctx.get(OutboxService);
    dispatch = ctx.get(DispatchStore);
  });
  afterAll(() => ctx?.close());
  // Each test starts with nothing pending.
  beforeEach(() => ctx.dataSource.query('UPDATE outbox_events SET relayed_at = now()'));

  /** An account with an endpoint (active unless said): its events are the relay's to claim. */
  async function listener(isActive = true): Promise<OwnerScope> {
    const owner = await ctx.newOwner();
    await ctx.dataSource.query(
      `INSERT INTO webhook_endpoints (account_id, livemode, url, secret, is_active)
       VALUES ($1, true, 'http://127.0.0.1:9/hook', 'whsec_dGVzdA==', $2)`,
      [owner.accountId, isActive],
    );
    return owner;
  }

  /** `count` listing.sold events of the owner, committed in one transaction of the given lane. */
  async function write(owner: OwnerScope, count: number, bulk = false): Promise<void> {
    await ctx.dataSource.transaction(async (em) => {
      if (bulk) await outbox.useBulkLane(em);
      await outbox.appendMany(
        em,
        Array.from({ length: count }, () => ({
          accountId: owner.accountId,
          event: 'listing.sold' as const,
          data: sampleEventData('listing.sold'),
        })),
      );
    });
  }

  const lanes = async (owner: OwnerScope) =>
    (
      await ctx.dataSource.query(
        `SELECT bulk, count(*)::int AS n FROM outbox_events WHERE account_id = $1 GROUP BY bulk ORDER BY bulk`,
        [owner.accountId],
      )
    ).map((r: { bulk: boolean; n: number }) => [r.bulk ? 'bulk' : 'interactive', r.n]);

  /** Claims in a transaction that rolls back, so the rows stay pending. */
  async function claimed(lane: 'interactive' | 'bulk', limit: number, after: string | null = null) {
    const runner = ctx.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      return await dispatch.claimUnrelayed(runner.manager, lane, limit, after);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  it('puts the events of a bulk-lane transaction in the bulk lane, and only those', async () => {
    expect(await dispatch.unrelayedLanes(EVENT_LANES)).toEqual([]);
    const owner = await listener();
    await write(owner, 2, true);
    // A worker of the interactive lane is not told of bulk events, nor walks their index.
    expect(await dispatch.unrelayedLanes(['interactive'])).toEqual([]);
    expect(await dispatch.unrelayedLanes(['bulk'])).toEqual(['bulk']);
    // The setting is the transaction's own: the pool's next transaction on it is interactive.
    await write(owner, 3);
    expect(await lanes(owner)).toEqual([
      ['interactive', 3],
      ['bulk', 2],
    ]);
    expect(await dispatch.unrelayedLanes(EVENT_LANES)).toEqual(['interactive', 'bulk']);
    expect(await dispatch.unrelayedLanes(['bulk', 'interactive'])).toEqual(['bulk', 'interactive']);
    expect((await claimed('interactive', 100)).map((r) => r.accountId)).toEqual([
      owner.accountId,
      owner.accountId,
      owner.accountId,
    ]);
  });

  it('shares a claim among the accounts with pending events, interleaved, oldest first', async () => {
    const [a, b, c] = [await listener(), await listener(), await listener()];
    await write(a, 50, true);
    await write(b, 2, true);
    await write(c, 1, true);
    const rows = await claimed('bulk', 9);
    const owners = new Map([
      [a.accountId, 'a'],
      [b.accountId, 'b'],
      [c.accountId, 'c'],
    ]);
    // Three accounts, 9 rows: a share of 3 each; b and c have fewer.
    const order = rows.map((r) => owners.get(r.accountId)).join('');
    expect(order.split('').sort().join('')).toBe('aaabbc');
    // Every account's first before anyone's second.
    expect(new Set(order.slice(0, 3))).toEqual(new Set(['a', 'b', 'c']));
    expect(order.slice(3)).toMatch(/^(ab|ba)a$/);
  });

  it('starts after the account served last, so many accounts take turns', async () => {
    const owners = [await listener(), await listener(), await listener()];
    for (const owner of owners) await write(owner, 5, true);
    const ids = owners.map((o) => o.accountId).sort();
    // Room for two events: two accounts, one each, the lowest ids first...
    expect((await claimed('bulk', 2)).map((r) => r.accountId)).toEqual([ids[0], ids[1]]);
    // ...then from after the last served, wrapping around.
    expect((await claimed('bulk', 2, ids[1])).map((r) => r.accountId)).toEqual([ids[2], ids[0]]);
  });

  it('never hands one event to two claims at once', async () => {
    const owner = await listener();
    await write(owner, 30, true);
    const first = ctx.dataSource.createQueryRunner();
    await first.startTransaction();
    try {
      const held = await dispatch.claimUnrelayed(first.manager, 'bulk', 20, null);
      const other = await claimed('bulk', 20);
      expect(held).toHaveLength(20);
      expect(other).toHaveLength(10);
      const heldIds = new Set(held.map((r) => r.id));
      expect(other.some((r) => heldIds.has(r.id))).toBe(false);
    } finally {
      await first.rollbackTransaction();
      await first.release();
    }
  });

  it('leaves the events nobody hears to the positioner, which settles them as it positions them', async () => {
    const [heard, unheard, disabled] = [
      await listener(),
      await ctx.newOwner(),
      await listener(false),
    ];
    for (const owner of [unheard, disabled]) await write(owner, 2, true);
    // Pending, but nobody hears them: no lane calls the relay, which would claim nothing.
    expect(await dispatch.unrelayedLanes(EVENT_LANES)).toEqual([]);
    expect(await claimed('bulk', 100)).toEqual([]);
    await write(heard, 2, true);
    expect(await dispatch.unrelayedLanes(EVENT_LANES)).toEqual(['bulk']);
    expect((await claimed('bulk', 100)).map((r) => r.accountId)).toEqual([
      heard.accountId,
      heard.accountId,
    ]);
    const outboxStore = ctx.get(OutboxStore);
    while ((await outboxStore.assignFeedPositions(100)) > 0);
    const state = async (owner: OwnerScope) =>
      ctx.dataSource.query(
        `SELECT feed_position IS NOT NULL AS positioned, relayed_at IS NOT NULL AS relayed,
           fanned_out_at IS NOT NULL AS "fannedOut"
         FROM outbox_events WHERE account_id = $1`,
        [owner.accountId],
      );
    const settled = { positioned: true, relayed: true, fannedOut: true };
    expect(await state(unheard)).toEqual([settled, settled]);
    expect(await state(disabled)).toEqual([settled, settled]);
    // An account with an active endpoint: positioned, still the relay's.
    const waiting = { positioned: true, relayed: false, fannedOut: false };
    expect(await state(heard)).toEqual([waiting, waiting]);
    expect(await dispatch.unrelayedLanes(EVENT_LANES)).toEqual(['bulk']);
  });

  it('wakes the relays when an interactive transaction commits, never for a bulk-lane one', async () => {
    const publish = jest.spyOn(ctx.get(REDIS as never) as Redis, 'publish');
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20)); // past the 5 ms gap
    try {
      const owner = await listener();
      await settle();
      publish.mockClear();
      await write(owner, 2, true);
      await settle();
      expect(publish).not.toHaveBeenCalled();
      await write(owner, 1);
      await settle();
      expect(publish).toHaveBeenCalledTimes(1);
    } finally {
      publish.mockRestore();
    }
  });

  it('positions a batch in one statement of its own: its rows are never locked across a round trip', async () => {
    // The relay skips locked rows; a transaction of several statements would keep a sale's row
    // locked while the (niced, import-busy) worker got round to sending the next one.
    const outboxStore = ctx.get(OutboxStore);
    while ((await outboxStore.assignFeedPositions(100)) > 0);
    await write(await listener(), 3);
    const queries = jest.spyOn(ctx.dataSource, 'query');
    const transactions = jest.spyOn(ctx.dataSource, 'transaction');
    try {
      expect(await outboxStore.assignFeedPositions(100)).toBe(3);
      expect(queries).toHaveBeenCalledTimes(1);
      expect(transactions).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
      transactions.mockRestore();
    }
  });

  it('wakes the relays after positioning an interactive event the relay may have skipped, only then', async () => {
    const outboxStore = ctx.get(OutboxStore);
    const written = jest.spyOn(ctx.get(OutboxWake), 'written');
    try {
      const position = async () => {
        written.mockClear();
        while ((await outboxStore.assignFeedPositions(100)) > 0);
        return written.mock.calls.length;
      };
      const [heard, unheard] = [await listener(), await ctx.newOwner()];
      await write(heard, 2, true);
      await write(unheard, 2);
      expect(await position()).toBe(0);
      await write(heard, 1);
      expect(await position()).toBe(1);
    } finally {
      written.mockRestore();
    }
  });
});
