import { anAccount, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { startServiceProcess, ServiceProcess } from '../support/service-process';
import { createTestApp, TestApp } from '../support/test-app';

/** The service's own process, its stdout read as JSON logs. */
describe('Request logs', () => {
  let t: TestApp;
  let seller: TestAccount;
  let service: ServiceProcess;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
    service = await startServiceProcess({ ...t.env, PROCESS_ROLE: 'api', LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await service.stop();
    await t.close();
  });

  const logs = () =>
    service
      .stdoutLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'request completed' || entry.msg === 'request errored');

  async function waitForLog(requestId: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 50; i++) {
      const entry = logs().find((e) => e.requestId === requestId);
      if (entry) return entry;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no log line for request ${requestId}`);
  }

  it('writes one line per request with its id, method, path and status, never the key', async () => {
    const res = await fetch(`${service.baseUrl}/v1/me`, {
      headers: { authorization: `Bearer ${seller.liveKey}`, 'x-request-id': 'log-test-1' },
    });
    expect(res.status).toBe(200);
    const entry = await waitForLog('log-test-1');
    expect(entry).toMatchObject({
      level: 30,
      requestId: 'log-test-1',
      req: { method: 'GET', url: '/v1/me' },
      res: { statusCode: 200 },
    });
    // Exactly these: no headers (the key rides in one), a response time in milliseconds.
    expect(entry.req).toEqual({ method: 'GET', url: '/v1/me' });
    expect(entry.res).toEqual({ statusCode: 200 });
    expect(entry.responseTime).toEqual(expect.any(Number));
    expect(service.stdoutLines().join('\n')).not.toContain(seller.liveKey);
  });

  it('logs a refused request at warn, and generates the id when none is sent', async () => {
    const res = await fetch(`${service.baseUrl}/v1/listings`, {
      headers: { authorization: 'Bearer lsk_live_not_a_real_key_0000000000' },
    });
    expect(res.status).toBe(401);
    const requestId = res.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await waitForLog(requestId)).toMatchObject({ level: 40, res: { statusCode: 401 } });
    expect(service.stdoutLines().join('\n')).not.toContain('lsk_live_not_a_real_key');
  });

  it('leaves health checks out of the request log', async () => {
    const res = await fetch(`${service.baseUrl}/health/live`, {
      headers: { 'x-request-id': 'log-health-1' },
    });
    expect(res.status).toBe(200);
    await waitForLog('log-test-1');
    expect(logs().some((e) => e.requestId === 'log-health-1')).toBe(false);
  });

  describe('a failed statement', () => {
    /** Makes every insert into `table` fail inside PostgreSQL, as a real constraint or fault would. */
    async function failInserts(table: string, run: () => Promise<void>): Promise<void> {
      await t.dataSource.query(`CREATE OR REPLACE FUNCTION fail_insert() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'insert refused by the test'; END $$`);
      await t.dataSource.query(
        `CREATE TRIGGER fail_insert BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION fail_insert()`,
      );
      try {
        await run();
      } finally {
        await t.dataSource.query(`DROP TRIGGER fail_insert ON ${table}`);
      }
    }

    async function errorLogFor(requestId: string): Promise<Record<string, unknown>> {
      for (let i = 0; i < 50; i++) {
        const entry = service
          .stdoutLines()
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((e) => e.msg === 'Unhandled error' && e.requestId === requestId);
        if (entry) return entry;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no error log for request ${requestId}`);
    }

    const post = (path: string, body: unknown, requestId: string) =>
      fetch(`${service.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${seller.liveKey}`,
          'content-type': 'application/json',
          'x-request-id': requestId,
        },
        body: JSON.stringify(body),
      });

    it('is logged with its cause but without the SQL, its parameters or the body', async () => {
      const body = aListing()
        .with({ title: 'Saab 9-5 markör-titel', phone: '+46 70 999 12 34' })
        .withExternalId('marker-ext-77')
        .build();
      await failInserts('listings', async () => {
        expect((await post('/v1/listings', body, 'log-db-1')).status).toBe(500);
      });
      const entry = await errorLogFor('log-db-1');
      expect(entry.err).toMatchObject({ message: 'insert refused by the test', code: 'P0001' });
      const output = service.stdoutLines().join('\n');
      for (const value of ['markör-titel', '+46709991234', 'marker-ext-77', 'INSERT INTO'])
        expect(output).not.toContain(value);
    });

    it('never logs a webhook secret from a failed insert', async () => {
      await failInserts('webhook_endpoints', async () => {
        const res = await post('/v1/webhooks', { url: 'https://hooks.example.com/x' }, 'log-db-2');
        expect(res.status).toBe(500);
      });
      await errorLogFor('log-db-2');
      expect(service.stdoutLines().join('\n')).not.toMatch(/whsec_/);
    });
  });
});
