import { ApiLoad, SLOT_MS } from '../../src/platform/api-load/api-load';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { sampleValue, scrape } from '../support/metrics-text';
import { freePort, ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestApp, TestApp } from '../support/test-app';
import { databaseUrl } from '../support/test-database';
import { eventually, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Real processes, as deployed: an API replica and a worker, each with its metrics listener on
 * METRICS_PORT. The in-process app only provisions accounts (admin API) on the same database.
 */
describe('Prometheus metrics', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let api: ServiceProcess;
  let worker: ServiceProcess;
  let apiMetrics: string;
  let workerMetrics: string;

  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
    receiver = await WebhookReceiver.start();
    const shared = {
      DATABASE_URL: databaseUrl(t.databaseName),
      DB_MIGRATE_ON_START: 'false',
      REDIS_KEY_PREFIX: t.redisPrefix,
      WEBHOOK_ALLOW_HTTP: 'true',
      FETCH_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '10,10,10,10,10,10,10,10,10',
      LISTING_VALIDITY: '1s',
      EXPIRY_SWEEP_EVERY: '300ms',
      SHUTDOWN_DRAIN_MS: '0',
      RATE_LIMIT_READ_PER_MIN: '3',
    };
    const [apiPort, workerPort] = [await freePort(), await freePort()];
    [api, worker] = await Promise.all([
      startServiceProcess({ ...shared, PROCESS_ROLE: 'api', METRICS_PORT: String(apiPort) }),
      startServiceProcess({ ...shared, PROCESS_ROLE: 'worker', METRICS_PORT: String(workerPort) }),
    ]);
    apiMetrics = `http://127.0.0.1:${apiPort}`;
    workerMetrics = `http://127.0.0.1:${workerPort}`;
    await eventually(
      () =>
        scrape(workerMetrics).then(
          () => true,
          () => false,
        ),
      60_000,
    );
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await receiver.close();
    await t.close();
  });

  const call = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    });
  const createListing = async (account: TestAccount) => {
    const res = await call(account.liveKey, '/v1/listings', {
      method: 'POST',
      body: JSON.stringify(aListing().build()),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data;
  };

  it('serves process, pool, outbox and queue gauges from both roles on METRICS_PORT', async () => {
    for (const text of [await scrape(apiMetrics), await scrape(workerMetrics)]) {
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ])
        expect(text).toMatch(new RegExp(`^${name} `, 'm'));
      for (const name of ['outbox_backlog_events', 'outbox_lag_seconds'])
        for (const lane of ['interactive', 'bulk'])
          expect(text).toContain(`${name}{lane="${lane}"}`);
      for (const pool of ['write', 'read']) {
        expect(text).toContain(`db_pool_connections_in_use{pool="${pool}"}`);
        // an idle process: nobody waits (the scrape's own queries are not waiting callers)
        expect(text).toContain(`db_pool_waiting_clients{pool="${pool}"} 0\n`);
      }
      for (const queue of [
        'webhook-fanout',
        'webhook-fanout-bulk',
        'webhook-delivery',
        'webhook-delivery-bulk',
        'images',
      ])
        for (const state of ['waiting', 'active', 'delayed', 'completed', 'failed'])
          expect(text).toContain(`queue_jobs{queue="${queue}",state="${state}"}`);
    }
  });

  it('is not on the public port unless METRICS_ON_API_PORT is set', async () => {
    expect((await fetch(`${api.baseUrl}/metrics`)).status).toBe(404);
  });

  it('times requests by route template, never by id', async () => {
    const account = await anAccount(t).build();
    const listing = await createListing(account);
    expect((await call(account.liveKey, `/v1/listings/${listing.id}`)).status).toBe(200);
    const text = await scrape(apiMetrics);
    const labels = { method: 'GET', route: '/v1/listings/:id', status: '200' };
    expect(sampleValue(text, 'http_request_duration_seconds_count', labels)).toBe(1);
    expect(
      sampleValue(text, 'http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/listings',
        status: '201',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(listing.id);
    expect(text).not.toContain(account.id);
  });

  it('counts a path no route answered as unmatched, with a valid key too', async () => {
    const account = await anAccount(t).build();
    const labels = { method: 'GET', route: 'unmatched', status: '404' };
    const unmatched = async () =>
      sampleValue(await scrape(apiMetrics), 'http_request_duration_seconds_count', labels) ?? 0;
    const before = await unmatched();
    expect((await call(account.liveKey, '/v1/no-such-route')).status).toBe(404);
    expect(await unmatched()).toBe(before + 1);
    expect(await scrape(apiMetrics)).not.toContain('*path');
  });

  it('shares the API replica’s rate of /v1 requests, which imports give way to', async () => {
    const account = await anAccount(t).build();
    const load = t.app.get(ApiLoad); // reads the replica's counts through the same Redis keys
    // The requests before (this test's account among them) reported, then out of the window.
    await new Promise((resolve) => setTimeout(resolve, 3 * SLOT_MS));
    await eventually(async () => (await load.requestsPerSecond()) === 0);
    for (let i = 0; i < 10; i++)
      expect((await fetch(`${api.baseUrl}/health/live`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3 * SLOT_MS)); // reported, if counted
    expect(await load.requestsPerSecond()).toBe(0);
    // Every request counts, those refused included (this file's read limit is 3 a minute).
    const statuses = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await call(account.liveKey, '/v1/listings?limit=1')).status);
    expect(new Set(statuses)).toEqual(new Set([200, 429]));
    await eventually(async () => (await load.requestsPerSecond()) === 12);
  });

  it('counts a 401 as an auth failure and a 429 as rate-limited', async () => {
    const account = await anAccount(t).build();
    const before = await scrape(apiMetrics);
    expect((await call('svc_live_not-a-real-key', '/v1/me')).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(account.testKey, '/v1/me')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const after = await scrape(apiMetrics);
    expect(
      sampleValue(after, 'http_auth_failures_total') -
        sampleValue(before, 'http_auth_failures_total'),
    ).toBe(1);
    expect(
      sampleValue(after, 'http_rate_limited_total') -
        sampleValue(before, 'http_rate_limited_total'),
    ).toBe(1);
  });

  it('counts delivery attempts by outcome and the endpoint disabled after ten failures', async () => {
    const account = await anAccount(t).build();
    const hook = async (path: string) => {
      const res = await call(account.liveKey, '/v1/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url: receiver.url(path), events: ['listing.created'] }),
      });
      expect(res.status).toBe(201);
    };
    receiver.byDefault('/metrics-failing', 500);
    await hook('/metrics-ok');
    await hook('/metrics-failing');
    await createListing(account);
    await receiver.waitFor('/metrics-ok', 1);
    await receiver.waitFor('/metrics-failing', 10);
    await eventually(async () => {
      const text = await scrape(workerMetrics);
      return sampleValue(text, 'webhook_endpoints_auto_disabled_total') === 1;
    });
    const text = await scrape(workerMetrics);
    expect(sampleValue(text, 'webhook_delivery_attempts_total', { outcome: 'success' })).toBe(1);
    expect(sampleValue(text, 'webhook_delivery_attempts_total', { outcome: 'failure' })).toBe(10);
    // The API replica sends nothing.
    expect(
      sampleValue(await scrape(apiMetrics), 'webhook_delivery_attempts_total', {
        outcome: 'success',
      }),
    ).toBe(0);
  });

  it('counts imported lines by outcome, imports by status and the imports queue', async () => {
    const account = await anAccount(t).build();
    const before = await scrape(workerMetrics);
    const count = (text: string, outcome: string, dryRun: boolean) =>
      sampleValue(text, 'import_lines_total', { outcome, dry_run: String(dryRun) });
    const feed = [
      JSON.stringify(aListing().with({ externalId: 'metrics-imp-1' }).build()),
      JSON.stringify(aListing().with({ externalId: 'metrics-imp-2' }).build()),
      JSON.stringify(aListing().with({ externalId: 'metrics-imp-3', price: -1 }).build()),
    ].join('\n');
    const importFeed = async (query = '') => {
      const res = await fetch(`${api.baseUrl}/v1/imports${query}`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${account.liveKey}`,
          'Content-Type': 'application/x-ndjson',
        },
        body: feed,
      });
      expect(res.status).toBe(202);
      const { id } = ((await res.json()) as { data: { id: string } }).data;
      // Polled in the database: this file's read limit is 3 a minute.
      await eventually(
        async () =>
          (
            await t.dataSource.query(
              `SELECT 1 FROM imports WHERE id = $1 AND finished_at IS NOT NULL`,
              [id],
            )
          ).length === 1,
        20_000,
      );
    };
    const outcomes = ['created', 'updated', 'unchanged', 'failed', 'removed'];
    await importFeed();
    await importFeed('?dryRun=true'); // the same lines again: unchanged, and written nowhere
    const after = await scrape(workerMetrics);
    const added = (dryRun: boolean) =>
      outcomes.map((o) => count(after, o, dryRun) - count(before, o, dryRun));
    expect(added(false)).toEqual([2, 0, 0, 1, 0]);
    expect(added(true)).toEqual([0, 0, 2, 1, 0]);
    const [{ count: withErrors }] = await t.dataSource.query(
      `SELECT count(*)::int AS count FROM imports WHERE status = 'succeeded_with_errors'`,
    );
    for (const text of [after, await scrape(apiMetrics)]) {
      expect(sampleValue(text, 'imports', { status: 'succeeded_with_errors' })).toBe(withErrors);
      for (const state of ['waiting', 'active', 'delayed', 'completed', 'failed'])
        expect(text).toContain(`queue_jobs{queue="imports",state="${state}"}`);
    }
  });

  it('counts listings the worker expired', async () => {
    const account = await anAccount(t).build();
    const before = sampleValue(await scrape(workerMetrics), 'listings_expired_total');
    const listing = await createListing(account);
    // Every listing here lives a second (LISTING_VALIDITY); only the worker sweeps. Polled
    // through the in-process replica, whose read limit is not the one under test.
    await eventually(async () => {
      const res = await as(t, account.liveKey).get(`/v1/listings/${listing.id}`).expect(200);
      return res.body.data.status === 'EXPIRED';
    }, 20_000);
    expect(sampleValue(await scrape(workerMetrics), 'listings_expired_total')).toBeGreaterThan(
      before,
    );
  });
});
