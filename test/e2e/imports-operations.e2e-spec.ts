import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

type Body = Record<string, unknown>;
const ndjson = (externalIds: string[]) =>
  externalIds
    .map((externalId) => JSON.stringify(aListing().with({ externalId }).build()))
    .join('\n') + '\n';

/** Polls the import through the API until it has ended. */
async function ended(t: TestApp, key: string, id: string, timeoutMs = 30_000): Promise<Body> {
  let view: Body = {};
  await eventually(async () => {
    view = (await as(t, key).get(`/v1/imports/${id}`).expect(200)).body.data;
    return !['queued', 'running'].includes(view.status as string);
  }, timeoutMs);
  return view;
}

const listingsOf = async (t: TestApp, accountId: string) =>
  (
    await t.dataSource.query(`SELECT count(*)::int AS n FROM listings WHERE account_id = $1`, [
      accountId,
    ])
  )[0].n as number;

/** The limits and retention an operator sets, and the outbound guard on a feed URL. */
describe('Inventory imports: operator limits, retention and the outbound guard', () => {
  const MAX_BYTES = 20_000;
  let t: TestApp;
  let seller: TestAccount;
  let storageDir: string;

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'lsvc-import-limits-'));
    t = await createTestApp({
      env: {
        STORAGE_DIR: storageDir,
        IMPORT_MAX_BYTES: String(MAX_BYTES),
        IMPORT_MAX_LINES: '3',
        IMPORT_RETENTION: '3d',
        RETENTION_PURGE_EVERY: '200ms',
        FETCH_ALLOW_PRIVATE_TARGETS: 'false',
      },
    });
    seller = await anAccount(t).build();
  });
  afterAll(async () => {
    await t?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const storedFiles = () => {
    try {
      return readdirSync(join(storageDir, '.private', 'imports')).length;
    } catch {
      return 0; // nothing stored yet
    }
  };
  const importsOf = async (accountId: string) =>
    (await t.dataSource.query(`SELECT id FROM imports WHERE account_id = $1`, [accountId])).length;

  it('refuses a body over IMPORT_MAX_BYTES with 400 on body, declared or streamed, keeping nothing', async () => {
    const owner = await anAccount(t).build();
    const filesBefore = storedFiles();
    const oversized = 'x'.repeat(MAX_BYTES + 1);
    const declared = await as(t, owner.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(oversized);
    expectError(declared, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(declared)).toEqual(['body']);

    // Chunked, no Content-Length: refused once the count passes the limit.
    const streamed = await new Promise<{ status: number; body: Body }>((resolve, reject) => {
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      const url = new URL('/v1/imports', `http://127.0.0.1:${port}`);
      const req = request(
        url,
        {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${owner.liveKey}`,
            'Content-Type': 'application/x-ndjson',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      for (let i = 0; i <= MAX_BYTES / 1_000; i++) req.write('y'.repeat(1_000));
      req.end();
    });
    expect(streamed.status).toBe(400);
    expect(streamed.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'body', message: expect.stringContaining('IMPORT_MAX_BYTES') }],
    });
    expect(await importsOf(owner.id)).toBe(0);
    expect(storedFiles()).toBe(filesBefore);
  });

  it('fails a file over IMPORT_MAX_LINES as a whole, applying nothing', async () => {
    const res = await as(t, seller.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(ndjson(['lines-1', 'lines-2', 'lines-3', 'lines-4']))
      .expect(202);
    const done = await ended(t, seller.liveKey, res.body.data.id);
    expect(done).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('more than 3 lines') },
      counts: { processed: 0, created: 0 },
    });
    expect(await listingsOf(t, seller.id)).toBe(0);
  });

  it('fails a gzip body that inflates past four times IMPORT_MAX_BYTES, or holds more blank lines than IMPORT_MAX_LINES', async () => {
    const send = async (body: Buffer | string, gzip: boolean) => {
      const req = as(t, seller.liveKey)
        .post('/v1/imports')
        .set('Content-Type', 'application/x-ndjson');
      if (gzip) req.set('Content-Encoding', 'gzip');
      const res = await req.send(body).expect(202);
      return ended(t, seller.liveKey, res.body.data.id);
    };
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, ' ')); // 16 KB as sent
    expect(await send(bomb, true)).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('inflates to more than 80000 bytes') },
    });
    expect(await send('\n'.repeat(4) + ndjson(['blank-1']), false)).toMatchObject({
      status: 'failed',
      error: { message: 'line 4: the file has more than 3 blank lines' },
    });
    expect(await listingsOf(t, seller.id)).toBe(0);
  });

  it('purges a finished import once it is older than IMPORT_RETENTION, keeping younger and unfinished ones', async () => {
    const owner = await anAccount(t).build();
    const send = async (externalId: string, query = '') =>
      (
        await as(t, owner.liveKey)
          .post(`/v1/imports${query}`)
          .set('Content-Type', 'application/x-ndjson')
          .send(ndjson([externalId]))
          .expect(202)
      ).body.data.id as string;
    const old = await send('kept-1');
    await ended(t, owner.liveKey, old);
    const young = await send('kept-1');
    await ended(t, owner.liveKey, young);
    // A mirror that would remove the one listing the account has waits, held, unfinished.
    const held = await send('kept-2', '?mode=mirror&maxRemovals=0');
    expect((await ended(t, owner.liveKey, held)).status).toBe('held');
    await t.dataSource.query(
      `UPDATE imports SET finished_at = now() - interval '4 days', created_at = now() - interval '4 days' WHERE id = $1`,
      [old],
    );
    await t.dataSource.query(
      `UPDATE imports SET finished_at = now() - interval '2 days', created_at = now() - interval '2 days' WHERE id = $1`,
      [young],
    );
    await t.dataSource.query(
      `UPDATE imports SET created_at = now() - interval '10 days' WHERE id = $1`,
      [held],
    );
    const present = async (id: string) =>
      (await t.dataSource.query(`SELECT 1 FROM imports WHERE id = $1`, [id])).length === 1;
    // The scheduler's purge (every 200 ms here) takes every import due in one batch.
    await eventually(async () => !(await present(old)), 10_000);
    await as(t, owner.liveKey).get(`/v1/imports/${old}`).expect(404);
    expect(await present(young)).toBe(true);
    expect(await present(held)).toBe(true);
    expect(
      (await t.dataSource.query(`SELECT 1 FROM import_results WHERE import_id = $1`, [young]))
        .length,
    ).toBe(1);
  });

  describe('a feed URL', () => {
    let server: Server;
    let requests = 0;

    beforeAll(async () => {
      server = createServer((_req, res) => {
        requests++;
        res.end(ndjson(['private-1']));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('naming a private address is refused with 400 on sourceUrl, never fetched', async () => {
      const port = (server.address() as AddressInfo).port;
      for (const host of ['127.0.0.1', '[::1]', '10.0.0.5', '[::ffff:127.0.0.1]', '[fc00::1]']) {
        const res = await as(t, seller.liveKey)
          .post('/v1/imports')
          .send({ sourceUrl: `http://${host}:${port}/feed.ndjson`, format: 'ndjson' });
        expect({ host, details: expectError(res, 400, 'VALIDATION_ERROR').details }).toEqual({
          host,
          details: [{ field: 'sourceUrl', message: 'sourceUrl must be a public address.' }],
        });
      }
      // An IPv6 zone id: a URL Node cannot request, refused as one.
      const zoned = await as(t, seller.liveKey)
        .post('/v1/imports')
        .send({ sourceUrl: 'http://[fe80::1%25eth0]/feed.ndjson', format: 'ndjson' });
      expect(expectError(zoned, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'sourceUrl', message: 'sourceUrl must be an http or https URL' },
      ]);
      expect(requests).toBe(0);
    });

    it('whose name leads to a private address fails the import through the outbound guard', async () => {
      const port = (server.address() as AddressInfo).port;
      const res = await as(t, seller.liveKey)
        .post('/v1/imports')
        .send({ sourceUrl: `http://localhost:${port}/feed.ndjson`, format: 'ndjson' })
        .expect(202);
      const done = await ended(t, seller.liveKey, res.body.data.id);
      expect(done).toMatchObject({
        status: 'failed',
        error: { message: expect.stringContaining('public address') },
        counts: { processed: 0 },
      });
      expect(requests).toBe(0);
    });
  });
});

/** A cancel that reaches a running import stops it at its next commit, keeping what it applied. */
describe('Inventory imports: a cancel while running', () => {
  const LINES = 6_000;
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { IMPORT_CHUNK_LINES: '50' } });
  });
  afterAll(() => t?.close());

  it('stops after the chunk in progress, with one import.finished and every applied line kept', async () => {
    const seller = await anAccount(t).build();
    const externalIds = Array.from({ length: LINES }, (_, i) => `cancel-run-${i + 1}`);
    const res = await as(t, seller.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(ndjson(externalIds))
      .expect(202);
    const id = res.body.data.id;
    await eventually(
      async () =>
        (await t.dataSource.query(`SELECT 1 FROM imports WHERE id = $1 AND processed > 0`, [id]))
          .length === 1,
      30_000,
    );
    const cancel = await as(t, seller.liveKey).post(`/v1/imports/${id}/cancel`).expect(200);
    expect(cancel.body.data.status).toBe('running');
    const done = await ended(t, seller.liveKey, id);
    const counts = done.counts as Record<string, number>;
    expect(done.status).toBe('cancelled');
    expect(counts.processed).toBeGreaterThan(0);
    expect(counts.processed).toBeLessThan(LINES);
    expect(counts.processed % 50).toBe(0);
    expect(counts.created).toBe(counts.processed);
    // What was committed stays: a listing and a result per processed line, nothing after them.
    expect(await listingsOf(t, seller.id)).toBe(counts.processed);
    const [{ n, last }] = await t.dataSource.query(
      `SELECT count(*)::int AS n, max(seq)::int AS last FROM import_results WHERE import_id = $1`,
      [id],
    );
    expect({ n, last }).toEqual({ n: counts.processed, last: counts.processed });
    const events = await t.dataSource.query(
      `SELECT data->>'status' AS status FROM outbox_events WHERE event = 'import.finished' AND data->>'id' = $1`,
      [id],
    );
    expect(events).toEqual([{ status: 'cancelled' }]);
    // Cancelled is an end: a second cancel is refused, naming the status.
    const again = await as(t, seller.liveKey).post(`/v1/imports/${id}/cancel`);
    expectError(again, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(again)).toEqual(['status']);
  });
});

/** An import and the account's own bulk requests writing the same listings at once. */
describe('Inventory imports: racing bulk updates of the same listings', () => {
  const LINES = 2_000;
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        IMPORT_LEASE: '3s',
        IMPORT_SWEEP_EVERY: '1s',
        // The import does not give way to the bulk traffic: it meets it in every chunk.
        IMPORT_YIELD_SLOWDOWN: '0',
        RATE_LIMIT_WRITE_PER_MIN: '100000',
      },
    });
    seller = await anAccount(t).build();
  });
  afterAll(() => t?.close());

  const post = (body: string) =>
    as(t, seller.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(body)
      .expect(202);

  it('neither deadlocks: the import runs through in its first claim, every bulk answers 200', async () => {
    const externalIds = Array.from({ length: LINES }, (_, i) => `race-${i}`);
    const created = await ended(t, seller.liveKey, (await post(ndjson(externalIds))).body.data.id);
    expect(created).toMatchObject({ status: 'succeeded', counts: { created: LINES } });

    const priced = externalIds
      .map((externalId, i) =>
        JSON.stringify(
          aListing()
            .with({ externalId, price: 500 + i })
            .build(),
        ),
      )
      .join('\n');
    const id = (await post(priced + '\n')).body.data.id as string;
    let running = true;
    const statuses: number[] = [];
    // Three integrations' loops, each updating 50 of the same listings in random order, with a
    // pause between requests: the app under test, its worker included, shares this process.
    const loop = async (k: number) => {
      for (let round = 0; running; round++, await new Promise((r) => setTimeout(r, 20))) {
        const items = Array.from({ length: 50 }, () => ({
          externalId: externalIds[Math.floor(Math.random() * LINES)],
          price: 100_000 + k * 1_000 + round,
        }));
        const unique = [...new Map(items.map((item) => [item.externalId, item])).values()];
        statuses.push(
          (await as(t, seller.liveKey).patch('/v1/listings/bulk').send({ items: unique })).status,
        );
      }
    };
    const loops = [0, 1, 2].map(loop);
    let done: Body;
    try {
      done = await ended(t, seller.liveKey, id, 120_000);
    } finally {
      running = false;
      await Promise.all(loops);
    }

    expect(done).toMatchObject({ status: 'succeeded', counts: { updated: LINES } });
    const [{ attempts }] = await t.dataSource.query(`SELECT attempts FROM imports WHERE id = $1`, [
      id,
    ]);
    expect(attempts).toBe(1);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  }, 180_000);
});
