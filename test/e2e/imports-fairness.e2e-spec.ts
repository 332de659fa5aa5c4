import { once } from 'node:events';
import { createServer, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip } from 'node:zlib';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

type Body = Record<string, unknown>;
const ndjson = (externalIds: string[]) =>
  externalIds
    .map((externalId) => JSON.stringify(aListing().with({ externalId }).build()))
    .join('\n') + '\n';

/** A CSV header and `rows` rows of 250,000 empty cells each (about 250 KB a row), gzipped. */
async function wideRowsCsv(rows: number): Promise<Buffer> {
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const row = Buffer.from(`${','.repeat(249_999)}\n`);
  gzip.write('externalId,title\n');
  for (let i = 0; i < rows; i++) if (!gzip.write(row)) await once(gzip, 'drain');
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(chunks);
}

/** Imports of several accounts at once, and hostile feeds that take no more than their share. */
describe('Inventory imports: fair under load', () => {
  let t: TestApp;
  let a: TestAccount;
  let b: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({ env: { IMPORT_CONCURRENCY: '2' } });
    [a, b] = [await anAccount(t).build(), await anAccount(t).build()];
  });
  afterAll(() => t?.close());

  const view = async (key: string, id: string): Promise<Body> =>
    (await as(t, key).get(`/v1/imports/${id}`).expect(200)).body.data;
  async function ended(key: string, id: string): Promise<Body> {
    let current: Body = {};
    await eventually(async () => {
      current = await view(key, id);
      return !['queued', 'running'].includes(current.status as string);
    }, 30_000);
    return current;
  }
  const upload = (key: string, body: string | Buffer, type: string, gzip = false) => {
    const req = as(t, key).post('/v1/imports').set('Content-Type', type);
    return (gzip ? req.set('Content-Encoding', 'gzip') : req).send(body).expect(202);
  };

  it("finishes account B's 1-line import while account A's large import is still running", async () => {
    // A's feed: its first 1,000 lines at once, the rest only once B's import has ended.
    let holding: ServerResponse | undefined;
    const server: Server = createServer((_req, res) => {
      res.write(ndjson(Array.from({ length: 1_000 }, (_, i) => `fair-a-${i}`)));
      holding = res;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const sourceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.ndjson`;
      const big = await as(t, a.liveKey)
        .post('/v1/imports')
        .send({ sourceUrl, format: 'ndjson' })
        .expect(202);
      await eventually(() => holding !== undefined);
      expect((await view(a.liveKey, big.body.data.id)).status).toBe('running');

      const small = await upload(b.liveKey, ndjson(['fair-b-1']), 'application/x-ndjson');
      expect(await ended(b.liveKey, small.body.data.id)).toMatchObject({
        status: 'succeeded',
        counts: { created: 1 },
      });
      expect((await view(a.liveKey, big.body.data.id)).status).toBe('running');

      holding!.end(ndjson(Array.from({ length: 1_000 }, (_, i) => `fair-a-${1_000 + i}`)));
      expect(await ended(a.liveKey, big.body.data.id)).toMatchObject({
        status: 'succeeded',
        counts: { created: 2_000 },
      });
    } finally {
      holding?.destroy();
      server.close();
    }
  });

  it('reads a CSV of 40 rows of 250,000 cells in under 2 s, failing each row alone', async () => {
    // A first import of the account pays the worker's first-use costs, so the timing is the read's.
    await ended(
      a.liveKey,
      (await upload(a.liveKey, 'externalId,title\nwarm,Cykel\n', 'text/csv')).body.data.id,
    );
    const file = await wideRowsCsv(40);
    // CPU seconds of this process (the app's API and worker run in it), not wall time: the cost
    // of the read, whatever other suites run beside it on the machine.
    const cpuBefore = process.cpuUsage();
    const res = await upload(a.liveKey, file, 'text/csv', true);
    const done = await ended(a.liveKey, res.body.data.id);
    const cpu = process.cpuUsage(cpuBefore);
    expect(done).toMatchObject({
      status: 'succeeded_with_errors',
      counts: { lines: 40, processed: 40, failed: 40 },
    });
    expect((cpu.user + cpu.system) / 1e6).toBeLessThan(2);
  });

  it('ends an import cancelled while its wide rows are being read, before the read pass ends', async () => {
    // 400 rows: about 100 MB to read, seconds of work, cancelled well before its end.
    const file = await wideRowsCsv(400);
    const res = await upload(b.liveKey, file, 'text/csv', true);
    const id = res.body.data.id;
    await eventually(async () => (await view(b.liveKey, id)).status === 'running');
    const cancel = await as(t, b.liveKey).post(`/v1/imports/${id}/cancel`).expect(200);
    expect(cancel.body.data.status).toBe('running');
    const done = await ended(b.liveKey, id);
    // No line count: the read pass never reached the file's end.
    expect(done).toMatchObject({ status: 'cancelled', counts: { lines: null, processed: 0 } });
    const events = await t.dataSource.query(
      `SELECT data->>'status' AS status FROM outbox_events
       WHERE event = 'import.finished' AND data->>'id' = $1`,
      [id],
    );
    expect(events).toEqual([{ status: 'cancelled' }]);
  });
});
