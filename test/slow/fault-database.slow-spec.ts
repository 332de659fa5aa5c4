import type { Response } from 'supertest';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { FreezableProxy } from '../support/freezable-proxy';
import {
  createTestDatabase,
  databaseUrl,
  PG_ADMIN_URL,
  withAdminClient,
} from '../support/test-database';
import { eventually } from '../support/webhook-receiver';

/** [fault] PostgreSQL connections dropped, and PostgreSQL refusing this service for a while. */
describe('[fault] database connections', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const terminateBackends = () =>
    withAdminClient((c) =>
      c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
        t.databaseName,
      ]),
    );

  it('serves requests again after every connection was terminated', async () => {
    const { body } = await as(t, seller.liveKey)
      .post('/v1/listings')
      .send(aListing().build())
      .expect(201);
    // Reads first, so the read pool holds connections too when they are cut.
    await as(t, seller.liveKey).get(`/v1/listings/${body.data.id}`).expect(200);
    await as(t, seller.liveKey).get('/v1/listings').expect(200);
    const [{ rows }] = await Promise.all([terminateBackends()]);
    expect(rows.length).toBeGreaterThan(1);
    // The pools drop the dead clients as their sockets close; a short pause lets them notice.
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 5; i++)
      await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
    await as(t, seller.liveKey).get(`/v1/listings/${body.data.id}`).expect(200);
    const page = await as(t, seller.liveKey).get('/v1/listings').expect(200);
    expect(page.body.pagination.total).toBe(6);
  });

  it('reports the outage in /health/ready while it lasts, and recovers after it', async () => {
    await t.http().get('/health/ready').expect(200);
    // Refuses every new connection, superusers included, as a real outage would.
    await withAdminClient((c) =>
      c.query(`ALTER DATABASE "${t.databaseName}" ALLOW_CONNECTIONS false`),
    );
    try {
      await terminateBackends();
      await new Promise((r) => setTimeout(r, 300));
      const down = await t.http().get('/health/ready');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ success: false, error: { code: 'SERVER_ERROR' } });
      // Both pools are probed: TypeORM's, and the read pool with its own connections. The public
      // answer names them, never the driver's text (which names the database, its host, the user).
      expect(down.body.error.details).toEqual(
        expect.arrayContaining([
          { field: 'database', message: 'unreachable' },
          { field: 'reads', message: 'unreachable' },
        ]),
      );
      expect(JSON.stringify(down.body)).not.toContain(t.databaseName);
      await t.http().get('/health/live').expect(200);
      // A request meanwhile is told to come back, not that the service is broken.
      await new Promise((r) => setTimeout(r, 4_100)); // past the key cache: the key is read too
      const refused = await as(t, seller.liveKey).post('/v1/listings').send(aListing().build());
      expectUnavailable(refused);
    } finally {
      await withAdminClient((c) =>
        c.query(`ALTER DATABASE "${t.databaseName}" ALLOW_CONNECTIONS true`),
      );
    }
    await t.http().get('/health/ready').expect(200);
    await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
  });

  it('a request that cannot get a connection in DB_POOL_ACQUIRE_TIMEOUT is told to retry, not queued on; readiness says busy', async () => {
    const small = await createTestApp({
      env: { DB_POOL_SIZE: '2', DB_POOL_ACQUIRE_TIMEOUT: '500ms' },
    });
    try {
      const owner = await anAccount(small).build();
      await as(small, owner.liveKey).get('/v1/listings').expect(200);
      // A migration, say, holds the table: two reads take the read pool's two connections and wait.
      const holder = await small.dataSource.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      try {
        await holder.query('LOCK TABLE listings IN ACCESS EXCLUSIVE MODE');
        const waiting = [0, 1].map(() =>
          as(small, owner.liveKey)
            .get('/v1/listings')
            .then((r) => r),
        );
        await new Promise((r) => setTimeout(r, 300));
        const started = Date.now();
        const third = await as(small, owner.liveKey).get('/v1/listings');
        expect(Date.now() - started).toBeLessThan(5_000);
        expectUnavailable(third);
        // Readiness says busy, not unreachable, and stays 200: the database answers.
        const ready = await small.http().get('/health/ready').expect(200);
        expect(ready.body.data.details.reads).toEqual({
          status: 'degraded',
          message: 'busy: every connection in use',
        });
        await holder.commitTransaction();
        for (const res of await Promise.all(waiting)) expect(res.status).toBe(200);
      } finally {
        if (holder.isTransactionActive) await holder.rollbackTransaction();
        await holder.release();
      }
    } finally {
      await small.close();
    }
  });
});

describe('[fault] a database that freezes', () => {
  it('a read or write sent before it froze fails DB_STATEMENT_TIMEOUT + 5 s later, told to retry; the service goes on after', async () => {
    const upstream = new URL(PG_ADMIN_URL);
    const proxy = await FreezableProxy.start({
      host: upstream.hostname,
      port: Number(upstream.port || 5432),
    });
    const databaseName = await createTestDatabase();
    const viaProxy = new URL(databaseUrl(databaseName));
    viaProxy.port = String(proxy.port);
    const app = await createTestApp({
      databaseName,
      env: { DATABASE_URL: viaProxy.toString(), DB_STATEMENT_TIMEOUT: '1s' },
    });
    try {
      const owner = await anAccount(app).build();
      const api = () => as(app, owner.liveKey);
      const { body } = await api().post('/v1/listings').send(aListing().build()).expect(201);
      await api().get(`/v1/listings/${body.data.id}`).expect(200); // the key is cached now
      proxy.freeze();
      const started = Date.now();
      const [write, read] = await Promise.all([
        api().post('/v1/listings').send(aListing().build()),
        api().get(`/v1/listings/${body.data.id}`),
      ]);
      // 6 s for the statement, 6 more for the write's rollback: never the minutes TCP takes
      expect(Date.now() - started).toBeLessThan(20_000);
      expectUnavailable(write);
      expectUnavailable(read);
      proxy.thaw();
      await eventually(
        async () => (await api().post('/v1/listings').send(aListing().build())).status === 201,
      );
    } finally {
      await app.close();
      await proxy.close();
    }
  });
});

function expectUnavailable(res: Response): void {
  expect([res.status, res.headers['retry-after'], res.body.error?.code]).toEqual([
    500,
    '5',
    'SERVER_ERROR',
  ]);
  expect(res.body.error.message).toBe(
    'The database did not answer in time. Retry in a few seconds.',
  );
}
