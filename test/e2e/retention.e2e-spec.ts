import { OutboxStore } from '../../src/events/outbox.store';
import { inBatches } from '../../src/platform/scheduling/in-batches';
import { WebhookDeliveryStore } from '../../src/webhooks/deliveries/webhook-delivery.store';
import { WebhookDeliverySweeper } from '../../src/webhooks/dispatch/webhook-delivery.sweeper';
import type { Response } from 'supertest';
import { expectError } from '../support/envelope';
import { emitEvent, sampleEventData } from '../support/events';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually, WebhookReceiver } from '../support/webhook-receiver';

const DAY_MS = 86_400_000;
const RETENTION_MS = 30 * DAY_MS;

describe('Retention: the worker’s event and delivery purges', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let account: TestAccount;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([createTestApp(), WebhookReceiver.start()]);
    account = await anAccount(t).build();
    await as(t, account.liveKey)
      .post('/v1/webhooks')
      .send({ url: receiver.url('/retention') })
      .expect(201);
  });
  afterAll(async () => {
    await Promise.all([t.close(), receiver.close()]);
  });

  const purgeEvents = () =>
    inBatches((n) => t.app.get(OutboxStore).purgeBatch(RETENTION_MS, n), undefined, 7);
  const purgeDeliveries = () =>
    inBatches((n) => t.app.get(WebhookDeliveryStore).purgeBatch(RETENTION_MS, n), undefined, 7);

  /**
   * `count` events, delivered and in the feed, as month-old events are; returns their ids. Not yet
   * positioned, an event would still be the feed positioner's, which waits for a writer's lock on
   * it and then holds it for a moment: the purge would skip it then.
   */
  async function deliveredEvents(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await emitEvent(t, account.id, 'listing.sold')).id);
    await eventually(async () => {
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN outbox_events o ON o.id = d.event_id
         WHERE o.data->>'id' = ANY($1) AND d.status = 'succeeded' AND o.feed_position IS NOT NULL`,
        [ids],
      );
      return n === count;
    });
    return t.dataSource
      .query(`SELECT id FROM outbox_events WHERE data->>'id' = ANY($1)`, [ids])
      .then((rows: { id: string }[]) => rows.map((r) => r.id));
  }

  const age = (table: string, ids: string[], days: number, column = 'id') =>
    t.dataSource.query(
      `UPDATE ${table} SET created_at = now() - $2 * interval '1 day' WHERE ${column} = ANY($1)`,
      [ids, days],
    );
  const existing = async (table: string, ids: string[], column = 'id') =>
    (
      await t.dataSource.query(`SELECT ${column} AS id FROM ${table} WHERE ${column} = ANY($1)`, [
        ids,
      ])
    ).map((r: { id: string }) => r.id);

  it('removes only events and ended deliveries past retention, in batches, attempt logs included', async () => {
    const old = await deliveredEvents(20);
    const recent = await deliveredEvents(3);
    await age('outbox_events', old, 31);
    await age('outbox_events', recent.slice(0, 1), 29);
    const oldDeliveries = (
      await t.dataSource.query(`SELECT id FROM webhook_deliveries WHERE event_id = ANY($1)`, [old])
    ).map((r: { id: string }) => r.id);
    await age('webhook_deliveries', oldDeliveries, 31);
    // One old delivery is still owed (recovered, on its schedule): it is not purged.
    const owed = oldDeliveries[0];
    await t.dataSource.query(`UPDATE webhook_deliveries SET status = 'pending' WHERE id = $1`, [
      owed,
    ]);

    expect(await purgeEvents()).toBe(20);
    expect(await purgeDeliveries()).toBe(19);
    expect(await existing('outbox_events', old)).toEqual([]);
    expect((await existing('outbox_events', recent)).sort()).toEqual([...recent].sort());
    expect(await existing('webhook_deliveries', oldDeliveries)).toEqual([owed]);
    expect(await existing('webhook_delivery_attempts', oldDeliveries, 'delivery_id')).toEqual([
      owed,
    ]);
    const recentDeliveries = await t.dataSource.query(
      `SELECT id FROM webhook_deliveries WHERE event_id = ANY($1)`,
      [recent],
    );
    expect(recentDeliveries).toHaveLength(3);
    // A second run finds nothing more to do.
    expect(await purgeEvents()).toBe(0);
    expect(await purgeDeliveries()).toBe(0);
  });

  it('never waits on a writer: rows a transaction holds are skipped, writers go on meanwhile', async () => {
    const old = await deliveredEvents(6);
    await age('outbox_events', old, 31);
    const oldDeliveries = (
      await t.dataSource.query(`SELECT id FROM webhook_deliveries WHERE event_id = ANY($1)`, [old])
    ).map((r: { id: string }) => r.id);
    await age('webhook_deliveries', oldDeliveries, 31);

    const writer = await t.dataSource.createQueryRunner();
    await writer.connect();
    await writer.startTransaction();
    try {
      // A writer is in the middle of changing a due event and a due delivery.
      await writer.query(`UPDATE outbox_events SET relayed_at = now() WHERE id = $1`, [old[0]]);
      await writer.query(`UPDATE webhook_deliveries SET last_error = 'x' WHERE id = $1`, [
        oldDeliveries[0],
      ]);
      // Writers go on during the purge: creates through the API, each with its event.
      const creates = Promise.all(
        Array.from({ length: 10 }, () =>
          as(t, account.liveKey).post('/v1/listings').send(aListing().build()),
        ),
      );
      // Both purges complete while the writer still holds its rows: they did not wait for it.
      expect(await purgeEvents()).toBe(5);
      expect(await purgeDeliveries()).toBe(5);
      expect((await creates).map((r) => r.status)).toEqual(Array(10).fill(201));
      const [{ waiting }] = await t.dataSource.query(
        `SELECT count(*)::int AS waiting FROM pg_locks
         WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      expect(waiting).toBe(0);
    } finally {
      await writer.commitTransaction();
      await writer.release();
    }
    // The held rows go on the next run.
    expect(await purgeEvents()).toBe(1);
    expect(await purgeDeliveries()).toBe(1);
  });

  it('a manual retry waiting on a delivery the purge deletes answers 404; a delivery with a retry asked for is not purged', async () => {
    const old = await deliveredEvents(2);
    const [gone, kept] = (
      await t.dataSource.query(
        `SELECT id, endpoint_id AS "endpointId" FROM webhook_deliveries WHERE event_id = ANY($1) ORDER BY id`,
        [old],
      )
    ).map((r: { id: string; endpointId: string }) => r);
    await age('webhook_deliveries', [gone.id, kept.id], 31);
    const retry = (d: { id: string; endpointId: string }) =>
      as(t, account.liveKey).post(`/v1/webhooks/${d.endpointId}/deliveries/${d.id}/retry`);

    // The purge holds the delivery and has deleted it; the retry comes in and waits for it.
    const purge = await t.dataSource.createQueryRunner();
    await purge.connect();
    await purge.startTransaction();
    let answer: Promise<Response>;
    try {
      await purge.query(`SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE`, [gone.id]);
      await purge.query(`DELETE FROM webhook_deliveries WHERE id = $1`, [gone.id]);
      answer = retry(gone).then((res) => res);
      await eventually(async () => {
        // a row lock is waited for on the holder's transaction id: no database on that lock
        const [{ waiting }] = await t.dataSource.query(
          `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE NOT l.granted AND a.datname = current_database()`,
        );
        return waiting > 0;
      });
    } finally {
      await purge.commitTransaction();
      await purge.release();
    }
    expectError(await answer, 404, 'NOT_FOUND');

    // A retry asked for before the purge runs keeps its delivery until the worker has settled it.
    await retry(kept).expect(202);
    await purgeDeliveries();
    expect(await existing('webhook_deliveries', [kept.id])).toEqual([kept.id]);
  });
});

describe('Retention: an event is purged only once it is fanned out to its endpoints', () => {
  let api: TestApp;
  let worker: TestApp | undefined;
  let receiver: WebhookReceiver;
  let account: TestAccount;
  // Only the test purges: no periodic run in between.
  const env = { RETENTION_PURGE_EVERY: '1h' };
  const startWorker = () =>
    createTestApp({
      role: 'worker',
      databaseName: api.databaseName,
      redisPrefix: api.redisPrefix,
      env,
    });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    api = await createTestApp({ role: 'api', env });
    worker = await startWorker();
    account = await anAccount(api).build();
    await as(api, account.liveKey)
      .post('/v1/webhooks')
      .send({ url: receiver.url('/owed') })
      .expect(201);
  });
  afterAll(async () => {
    await worker?.close();
    await Promise.all([api.close(), receiver.close()]);
  });

  const purgeEvents = () =>
    inBatches((n) => api.app.get(OutboxStore).purgeBatch(RETENTION_MS, n), undefined, 7);
  const fannedOut = async (ids: string[]) => {
    const [{ n }] = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE id = ANY($1) AND fanned_out_at IS NOT NULL`,
      [ids],
    );
    return n === ids.length;
  };
  const existing = async (ids: string[]) =>
    (await api.dataSource.query(`SELECT id FROM outbox_events WHERE id = ANY($1)`, [ids]))
      .map((r: { id: string }) => r.id)
      .sort();
  const idsOf = async (dataIds: string[]): Promise<string[]> =>
    (
      await api.dataSource.query(`SELECT id FROM outbox_events WHERE data->>'id' = ANY($1)`, [
        dataIds,
      ])
    ).map((r: { id: string }) => r.id);

  it('keeps old unrelayed and unfanned events, delivers them once a worker runs, then purges them', async () => {
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push((await emitEvent(api, account.id, 'listing.sold')).id);
    await receiver.waitFor('/owed', 3);
    const delivered = await idsOf(sent);
    await eventually(() => fannedOut(delivered));

    // No worker: an event written now waits in the outbox, unrelayed.
    await worker!.close();
    worker = undefined;
    const unrelayedData = await emitEvent(api, account.id, 'listing.sold');
    const [unrelayed] = await idsOf([unrelayedData.id]);
    // And one relayed whose fan-out job was lost: relayed, never fanned out.
    const lostData = sampleEventData('listing.sold');
    const [{ id: unfanned }] = await api.dataSource.query(
      `INSERT INTO outbox_events (account_id, event, data, relayed_at)
       VALUES ($1, 'listing.sold', $2, now() - interval '1 minute') RETURNING id`,
      [account.id, JSON.stringify(lostData)],
    );
    const owed = [unrelayed, unfanned].sort();
    await api.dataSource.query(
      `UPDATE outbox_events SET created_at = now() - interval '31 days' WHERE id = ANY($1)`,
      [[...delivered, ...owed]],
    );

    expect(await purgeEvents()).toBe(3);
    expect(await existing([...delivered, ...owed])).toEqual(owed);
    expect(await purgeEvents()).toBe(0);

    // A worker again: its relay sends the unrelayed event, its sweep fans out the lost one. The
    // sweep's grace (30 s) takes the event relayed a minute ago, not the work the relay has just
    // queued: with none, it could queue that again beside the relay, and deliver it twice.
    worker = await startWorker();
    await worker.app.get(WebhookDeliverySweeper).sweep(30_000);
    const received = await receiver.waitFor('/owed', 5);
    expect(
      received
        .slice(3)
        .map((r) => r.body.data.id as string)
        .sort(),
    ).toEqual([unrelayedData.id, lostData.id].sort());
    await eventually(() => fannedOut(owed));

    expect(await purgeEvents()).toBe(2);
    expect(await existing(owed)).toEqual([]);
  });
});
