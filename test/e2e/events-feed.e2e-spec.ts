import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { ExpiryService } from '../../src/listings/expiry/expiry.service';
import { FeedPositioner } from '../../src/events/feed-positioner';
import { OutboxService } from '../../src/events/outbox.service';
import { OutboxStore } from '../../src/events/outbox.store';
import { expectError, expectMeta, fieldsOf } from '../support/envelope';
import { sampleEventData } from '../support/events';
import { anAccount, as, createKey, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

interface FeedItem {
  id: string;
  event: string;
  timestamp: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

describe('GET /v1/events', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const feed = (query: string, key = seller.liveKey) => as(t, key).get(`/v1/events${query}`);

  /** Every item of the feed after `after`, following nextCursor to the end. */
  async function readAll(query = '', key = seller.liveKey, after?: string): Promise<FeedItem[]> {
    const items: FeedItem[] = [];
    let cursor = after;
    for (;;) {
      const sep = query ? '&' : '';
      const res = await feed(`?limit=100${sep}${query}${cursor ? `&after=${cursor}` : ''}`, key);
      expect(res.status).toBe(200);
      items.push(...res.body.data);
      if (!res.body.pagination.hasMore) return items;
      cursor = res.body.pagination.nextCursor;
    }
  }

  const outboxIds = async (account: TestAccount, livemode: boolean): Promise<string[]> =>
    (
      await t.dataSource.query(
        `SELECT id FROM outbox_events WHERE account_id = $1 AND livemode = $2 ORDER BY seq`,
        [account.id, livemode],
      )
    ).map((row: { id: string }) => row.id);

  it('lists the account’s events of the key’s mode, oldest first, with the webhook data', async () => {
    const account = await anAccount(t).build();
    const live = await as(t, account.liveKey)
      .post('/v1/listings')
      .send(aListing().build())
      .expect(201);
    await as(t, account.liveKey).post(`/v1/listings/${live.body.data.id}/sold`).expect(200);
    const draft = await as(t, account.testKey)
      .post('/v1/listings')
      .send(aListing().build())
      .expect(201);

    await eventually(async () => (await readAll('', account.liveKey)).length === 2);
    const items = await readAll('', account.liveKey);
    expect(items.map((i) => i.event)).toEqual(['listing.created', 'listing.sold']);
    const [stored] = await t.dataSource.query(
      `SELECT id, data, created_at FROM outbox_events WHERE event = 'listing.sold' AND account_id = $1`,
      [account.id],
    );
    expect(items[1]).toEqual({
      id: stored.id,
      event: 'listing.sold',
      timestamp: stored.created_at.toISOString(),
      livemode: true,
      data: stored.data,
    });
    await eventually(async () => (await readAll('', account.testKey)).length === 1);
    const testItems = await readAll('', account.testKey);
    expect(testItems.map((i) => [i.event, i.data.id, i.livemode])).toEqual([
      ['listing.created', draft.body.data.id, false],
    ]);
    // Another account sees none of them.
    expect(await readAll('', seller.liveKey)).not.toEqual(expect.arrayContaining([items[0]]));
  });

  it('pages with after, limit and a cursor, filtering by types and listingId', async () => {
    const account = await anAccount(t).build();
    const a = await as(t, account.liveKey)
      .post('/v1/listings')
      .send(aListing().build())
      .expect(201);
    const b = await as(t, account.liveKey)
      .post('/v1/listings')
      .send(aListing().build())
      .expect(201);
    await as(t, account.liveKey).post(`/v1/listings/${a.body.data.id}/sold`).expect(200);
    await as(t, account.liveKey).post(`/v1/listings/${b.body.data.id}/sold`).expect(200);
    await eventually(async () => (await readAll('', account.liveKey)).length === 4);

    const first = await feed('?limit=3', account.liveKey).expect(200);
    // The page's JSON is rendered by the database and sent on as text: still the same envelope.
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(first.body)).toEqual(['success', 'data', 'pagination', 'meta']);
    expect(first.body.success).toBe(true);
    expectMeta(first);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.pagination).toEqual({
      limit: 3,
      hasMore: true,
      nextCursor: first.body.data[2].id,
    });
    const rest = await feed(
      `?limit=3&after=${first.body.pagination.nextCursor}`,
      account.liveKey,
    ).expect(200);
    expect(rest.body.data.map((i: FeedItem) => i.event)).toEqual(['listing.sold']);
    expect(rest.body.pagination.hasMore).toBe(false);
    // A page that holds exactly what is left: nothing more follows, the cursor is its last item.
    const exact = await feed('?limit=4', account.liveKey).expect(200);
    expect(exact.body.data).toHaveLength(4);
    expect(exact.body.pagination).toEqual({
      limit: 4,
      hasMore: false,
      nextCursor: exact.body.data[3].id,
    });
    const end = await feed(`?after=${rest.body.data[0].id}`, account.liveKey).expect(200);
    expect(end.body).toMatchObject({
      data: [],
      pagination: { limit: 20, hasMore: false, nextCursor: null },
    });

    const sold = await readAll('types=listing.sold', account.liveKey);
    expect(sold.map((i) => i.data.id)).toEqual([a.body.data.id, b.body.data.id]);
    const ofA = await readAll(`listingId=${a.body.data.id}`, account.liveKey);
    expect(ofA.map((i) => i.event)).toEqual(['listing.created', 'listing.sold']);
    // A UUID is the same id in either case.
    const ofAUpper = await readAll(`listingId=${a.body.data.id.toUpperCase()}`, account.liveKey);
    expect(ofAUpper).toEqual(ofA);
    const both = await readAll('types=listing.created,listing.sold', account.liveKey);
    expect(both).toHaveLength(4);
  });

  it.each([
    ['?types=listing.bogus', 'types'],
    ['?types=', 'types'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=ten', 'limit'],
    ['?listingId=not-a-uuid', 'listingId'],
    ['?after=not-a-uuid', 'after'],
    [`?after=${randomUUID()}`, 'after'],
    ['?page=2', 'page'],
  ])('answers %s with 400 naming %s', async (query, field) => {
    const res = await feed(query);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual([field]);
  });

  it('refuses a cursor of another account, of the other mode, or past retention with 400 on after', async () => {
    const other = await anAccount(t).build();
    await as(t, other.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
    await eventually(async () => (await readAll('', other.liveKey)).length === 1);
    const [foreign] = await readAll('', other.liveKey);
    expect(fieldsOf(await feed(`?after=${foreign.id}`))).toEqual(['after']);
    expect(fieldsOf(await feed(`?after=${foreign.id}`, other.testKey))).toEqual(['after']);
    expect((await feed(`?after=${foreign.id}`, other.liveKey)).status).toBe(200);

    await t.dataSource.query(
      `UPDATE outbox_events SET created_at = now() - interval '31 days' WHERE id = $1`,
      [foreign.id],
    );
    const expired = await feed(`?after=${foreign.id}`, other.liveKey);
    expectError(expired, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(expired)).toEqual(['after']);
    // An event past retention is no longer served, purged or not.
    expect(await readAll('', other.liveKey)).toEqual([]);
  });

  it('needs listings:read', async () => {
    const key = await createKey(t, seller.id, { kind: 'live', scopes: ['webhooks:manage'] });
    expectError(await feed('', key), 403, 'FORBIDDEN');
    expectError(await t.http().get('/v1/events'), 401, 'UNAUTHORIZED');
  });

  /**
   * The ordering guarantee. Writers of every kind run at once, some holding their transaction
   * open so that they commit after writers that started later (what a bigserial cursor would
   * skip), while a reader tails the feed with `after`. At the end the reader has seen every
   * event in the outbox exactly once, in increasing feed position.
   */
  it('a reader tailing with after sees every event exactly once while many writers commit out of order', async () => {
    const account = await anAccount(t).build();
    const key = account.liveKey;
    const api = as(t, key);
    let writing = true;
    const seen: FeedItem[] = [];

    const reader = (async () => {
      let cursor: string | undefined;
      let idleAfterWriters = 0;
      // Keep reading until writers are done and the feed has held still for a while.
      while (writing || idleAfterWriters < 10) {
        const res = await feed(`?limit=100${cursor ? `&after=${cursor}` : ''}`, key);
        expect(res.status).toBe(200);
        seen.push(...res.body.data);
        cursor = res.body.pagination.nextCursor ?? cursor;
        if (!writing && res.body.data.length === 0) {
          idleAfterWriters++;
          await sleep(100);
        } else idleAfterWriters = 0;
      }
    })();

    const toSell: string[] = [];
    const toExpire: string[] = [];
    const singleCreates = async () => {
      for (let i = 0; i < 15; i++) {
        const res = await api.post('/v1/listings').send(aListing().build()).expect(201);
        toSell.push(res.body.data.id);
      }
    };
    const bulkCreates = async () => {
      for (let i = 0; i < 4; i++) {
        const items = Array.from({ length: 10 }, () => aListing().build());
        const res = await api.post('/v1/listings/bulk').send({ items }).expect(200);
        toExpire.push(...res.body.data.results.map((r: { data: { id: string } }) => r.data.id));
      }
    };
    // Sells 15 as the creates come in, however slowly they come: the event count is fixed.
    const sells = async () => {
      for (let sold = 0; sold < 15;) {
        const id = toSell.shift();
        if (!id) {
          await sleep(20);
          continue;
        }
        await api.post(`/v1/listings/${id}/sold`).expect(200);
        sold++;
      }
    };
    // Expires 24 in sweeps of 3 as the bulk creates come in, however slowly: the count is fixed.
    const expirySweeps = async () => {
      for (let swept = 0; swept < 8; swept++) {
        while (toExpire.length < 3) await sleep(20);
        const due = toExpire.splice(0, 3);
        await t.dataSource.query(
          `UPDATE listings SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`,
          [due],
        );
        await t.app.get(ExpiryService).sweep();
        await sleep(30);
      }
    };
    // Takes its seq first, commits last: the case a cursor over insert order would skip.
    const slowCommits = async () => {
      const outbox = t.app.get(OutboxService);
      for (let i = 0; i < 6; i++) {
        await t.dataSource.transaction(async (em) => {
          await outbox.append(em, {
            accountId: account.id,
            event: 'message.received',
            data: sampleEventData('message.received'),
          });
          await sleep(250);
        });
      }
    };

    await Promise.all([
      singleCreates(),
      bulkCreates(),
      sells(),
      expirySweeps(),
      slowCommits(),
      singleCreates(),
    ]);
    writing = false;
    await reader;

    const ids = seen.map((item) => item.id);
    const expected = await outboxIds(account, true);
    expect(expected.length).toBeGreaterThan(100);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...expected].sort());
    const positions: { id: string; position: string }[] = await t.dataSource.query(
      `SELECT id, feed_position AS position FROM outbox_events WHERE id = ANY($1)`,
      [ids],
    );
    const positionOf = new Map(positions.map((p) => [p.id, Number(p.position)]));
    const inReadOrder = ids.map((id) => positionOf.get(id)!);
    expect(inReadOrder).toEqual([...inReadOrder].sort((x, y) => x - y));
    // The slow writers did commit out of their insert order, or the test proved nothing.
    const [{ inversions }] = await t.dataSource.query(
      `SELECT count(*)::int AS inversions FROM outbox_events a JOIN outbox_events b
         ON a.account_id = b.account_id AND a.seq < b.seq AND a.feed_position > b.feed_position
       WHERE a.account_id = $1`,
      [account.id],
    );
    expect(inversions).toBeGreaterThan(0);
  });
});

describe('GET /v1/events: an event the relay holds', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // Positioning is driven by hand here, so the moment a row is locked is known.
    await t.app.get(FeedPositioner).onModuleDestroy();
  });
  afterAll(() => t.close());

  it('keeps its place: an event committed after it is not positioned before it', async () => {
    const seller = await anAccount(t).build();
    const outbox = t.app.get(OutboxService);
    const append = () =>
      t.dataSource.transaction((em) =>
        outbox.append(em, {
          accountId: seller.id,
          event: 'message.received',
          data: sampleEventData('message.received'),
        }),
      );
    await append();
    await append();
    const [first, second] = (
      await t.dataSource.query(`SELECT id FROM outbox_events WHERE account_id = $1 ORDER BY seq`, [
        seller.id,
      ])
    ).map((row: { id: string }) => row.id);

    // What the relay does while it hands a batch to Redis: the row is locked until it commits.
    const relay = t.dataSource.createQueryRunner();
    await relay.connect();
    await relay.startTransaction();
    try {
      await relay.query(`SELECT id FROM outbox_events WHERE id = $1 FOR UPDATE`, [first]);
      const [{ pid }] = await relay.query(`SELECT pg_backend_pid() AS pid`);
      const positioning = t.app.get(OutboxStore).assignFeedPositions(100);
      // The positioner waits for the relay's lock (skipping the row would not wait at all).
      await eventually(async () => {
        const blocked = await t.dataSource.query(
          `SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`,
          [pid],
        );
        return blocked.length > 0;
      });
      const during = await as(t, seller.liveKey).get('/v1/events').expect(200);
      expect(during.body.data.map((item: FeedItem) => item.id)).toEqual([]);
      await relay.commitTransaction();
      await positioning;
    } finally {
      if (relay.isTransactionActive) await relay.rollbackTransaction();
      await relay.release();
    }
    const after = await as(t, seller.liveKey).get('/v1/events').expect(200);
    expect(after.body.data.map((item: FeedItem) => item.id)).toEqual([first, second]);
  });
});
