import { anAccount, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { freePort, startServiceProcess } from '../support/service-process';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Polls readiness until it answers 503, failing if the process exits first: readiness must turn
 * while the process still serves (the drain), not when it is gone.
 */
async function readinessTurns503(baseUrl: string, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    const status = await fetch(`${baseUrl}/health/ready`).then(
      (r) => r.status,
      () => undefined,
    );
    if (status === 503) return;
    if (gone) throw new Error(`the process exited before readiness answered 503 (last ${status})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** [fault] SIGTERM while requests are in flight: they finish, nothing is half-written. */
describe('[fault] graceful shutdown', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  it('finishes in-flight requests on SIGTERM and leaves every listing with its event', async () => {
    const service = await startServiceProcess({
      ...t.env,
      PROCESS_ROLE: 'api',
      SHUTDOWN_DRAIN_MS: '1000',
    });
    const post = () =>
      fetch(`${service.baseUrl}/v1/listings`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${seller.liveKey}`,
          'content-type': 'application/json',
          connection: 'close',
        },
        body: JSON.stringify(aListing().build()),
      }).then(
        (r) => r.status,
        // Only a refused connection means "after the shutdown began"; a reset would be a cut request.
        (error: { cause?: { code?: string } }) =>
          error.cause?.code === 'ECONNREFUSED'
            ? ('refused' as const)
            : `failed: ${error.cause?.code}`,
      );

    // A steady stream of creates; SIGTERM lands in the middle of it.
    const inFlight: Promise<number | string>[] = [];
    const stream = setInterval(() => inFlight.push(post()), 5);
    await new Promise((r) => setTimeout(r, 400));
    const exitCode = service.stop('SIGTERM');
    // While draining, readiness says 503 (a load balancer would stop sending) but requests are served.
    await readinessTurns503(service.baseUrl, exitCode);
    clearInterval(stream);
    const outcomes = await Promise.all(inFlight);
    // Nest closes the app, then re-raises the signal, as a process terminated by SIGTERM should.
    expect(await exitCode).toEqual({ code: null, signal: 'SIGTERM' });

    const answered = outcomes.filter((o) => o !== 'refused');
    expect(answered.length).toBeGreaterThan(0);
    // Every request the service accepted was answered, and answered well: no 5xx, no cut connection mid-way.
    expect(answered.filter((status) => status !== 201)).toEqual([]);
    const [{ listings, events }] = await t.dataSource.query(
      `SELECT (SELECT count(*)::int FROM listings WHERE account_id = $1) AS listings,
              (SELECT count(*)::int FROM outbox_events WHERE account_id = $1 AND event = 'listing.created') AS events`,
      [seller.id],
    );
    expect(listings).toBe(answered.length);
    expect(events).toBe(listings);
  });

  it('says 503 on readiness as soon as SIGTERM lands, in a process that also runs the workers', async () => {
    const service = await startServiceProcess({
      ...t.env,
      PROCESS_ROLE: 'all',
      SHUTDOWN_DRAIN_MS: '3000',
      LOG_LEVEL: 'error',
    });
    expect((await fetch(`${service.baseUrl}/health/ready`)).status).toBe(200);
    const exitCode = service.stop('SIGTERM');
    // The workers' own stopping takes seconds; readiness must not wait for it.
    await readinessTurns503(service.baseUrl, exitCode);
    expect(await exitCode).toEqual({ code: null, signal: 'SIGTERM' });
    // A deploy's probes during the drain are expected: no error-level log line for each.
    const errors = service.stdoutLines().filter((line) => /"level":(50|60)/.test(line));
    expect(errors).toEqual([]);
  });

  it('shuts a worker down cleanly while Redis has never been reachable', async () => {
    // Nothing listens on this port: Bull's connections never come up before the SIGTERM.
    const service = await startServiceProcess({
      ...t.env,
      PROCESS_ROLE: 'all',
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
    expect(await service.stop('SIGTERM')).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('closes cleanly when shut down moments after starting, before Bull has connected', async () => {
    // Bull names its worker connection once Redis answers; a close landing in between used to
    // leave that command's rejection unhandled (about one close in ten here), failing this test.
    for (let i = 0; i < 20; i++) {
      const app = await createTestApp({ databaseName: t.databaseName });
      await app.http().get('/health/live').expect(200);
      await app.close();
    }
  }, 60_000);
});
