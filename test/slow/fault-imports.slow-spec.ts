import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { anAccount, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { TestApp, testEnv } from '../support/test-app';
import { createTestDatabase, databaseUrl, newRedisPrefix } from '../support/test-database';

const LINES = 20_000;

/** The factories speak HTTP through `http()` only; this points them at the API process. */
const through = (api: ServiceProcess) => ({ http: () => request(api.baseUrl) }) as TestApp;

interface Progress {
  status: string;
  processed: number;
  next_line: number;
  attempts: number;
}

/**
 * [fault] A worker killed (SIGKILL) in the middle of an import: another worker resumes it after
 * the dead runner's lease runs out, from its last committed chunk, and no line is applied twice.
 */
describe('[fault] imports: the worker killed mid-import', () => {
  let storageDir: string;
  let env: Record<string, string | undefined>;
  let db: Client;
  let api: ServiceProcess | undefined;
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'lsvc-fault-imports-'));
    const databaseName = await createTestDatabase();
    env = testEnv(databaseName, newRedisPrefix(), {
      STORAGE_DIR: storageDir,
      IMPORT_LEASE: '2s',
      IMPORT_SWEEP_EVERY: '1s',
      IMPORT_CHUNK_LINES: '200',
    });
    db = new Client({ connectionString: databaseUrl(databaseName) });
    await db.connect();
    api = await startServiceProcess({ ...env, PROCESS_ROLE: 'api' });
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) await worker.stop('SIGKILL');
    await api?.stop();
    await db?.end();
    if (storageDir) rmSync(storageDir, { recursive: true, force: true });
  });

  const progress = async (id: string): Promise<Progress> =>
    (
      await db.query(`SELECT status, processed, next_line, attempts FROM imports WHERE id = $1`, [
        id,
      ])
    ).rows[0];

  /** Polls the import until `done` says so, or fails naming the last state seen. */
  async function until(id: string, done: (p: Progress) => boolean, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await progress(id);
      if (done(current)) return current;
      if (Date.now() > deadline)
        throw new Error(`timed out; import ${id} is ${JSON.stringify(current)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const startWorker = async () => {
    const worker = await startServiceProcess({ ...env, PROCESS_ROLE: 'worker' });
    workers.push(worker);
    return worker;
  };

  it('applies each of 20,000 lines exactly once, with one event per created listing', async () => {
    const seller: TestAccount = await anAccount(through(api!)).build();
    const externalIds = Array.from({ length: LINES }, (_, i) => `fault-imp-${i + 1}`);
    const body =
      externalIds
        .map((externalId) => JSON.stringify(aListing().with({ externalId }).build()))
        .join('\n') + '\n';

    const first = await startWorker();
    const created = await request(api!.baseUrl)
      .post('/v1/imports')
      .set('Authorization', `Bearer ${seller.liveKey}`)
      .set('Content-Type', 'application/x-ndjson')
      .send(body)
      .expect(202);
    const id: string = created.body.data.id;

    // Part-way: some chunks committed, more to come.
    const before = await until(
      id,
      (p) => p.processed > 0 || !['queued', 'running'].includes(p.status),
      60_000,
    );
    expect(before.status).toBe('running');
    process.kill(first.child.pid!, 'SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const atKill = await progress(id);
    // The kill landed mid-import: lines were committed and lines were still owed.
    expect(atKill.status).toBe('running');
    expect(atKill.processed).toBeGreaterThan(0);
    expect(atKill.processed).toBeLessThan(LINES);

    // The dead worker's job leaves Bull's active list within about a lease (the queue's lock and
    // stall check follow IMPORT_LEASE), so the sweep's re-queue takes and the import resumes.
    await startWorker();
    const end = await until(id, (p) => !['queued', 'running'].includes(p.status), 120_000);
    // The first worker is dead: the second claimed the import and ran it to its end. Its run
    // committed chunks, so the count of claims in a row without progress is back at 1.
    expect(end.status).toBe('succeeded');
    expect(end.attempts).toBe(1);

    const [counts] = (
      await db.query(
        `SELECT lines, processed, created, updated, unchanged, failed, removed
                      FROM imports WHERE id = $1`,
        [id],
      )
    ).rows;
    expect(counts).toEqual({
      lines: LINES,
      processed: LINES,
      created: LINES,
      updated: 0,
      unchanged: 0,
      failed: 0,
      removed: 0,
    });

    // Every line applied once: one listing per externalId, none twice.
    const [listings] = (
      await db.query(
        `SELECT count(*)::int AS total, count(DISTINCT external_id)::int AS distinct_ids,
                count(x.id)::int AS ours
         FROM listings l LEFT JOIN unnest($2::text[]) AS x(id) ON x.id = l.external_id
         WHERE l.account_id = $1`,
        [seller.id, externalIds],
      )
    ).rows;
    expect(listings).toEqual({ total: LINES, distinct_ids: LINES, ours: LINES });

    // One result per line: seq 1..20,000, each once, each naming its line's listing.
    const [results] = (
      await db.query(
        `SELECT count(*)::int AS total, count(DISTINCT seq)::int AS distinct_seq,
                min(seq) AS min_seq, max(seq) AS max_seq,
                count(*) FILTER (WHERE outcome = 'created')::int AS created,
                count(*) FILTER (WHERE r.external_id <> 'fault-imp-' || r.seq)::int AS misnumbered,
                count(DISTINCT listing_id)::int AS distinct_listings
         FROM import_results r WHERE import_id = $1`,
        [id],
      )
    ).rows;
    expect(results).toEqual({
      total: LINES,
      distinct_seq: LINES,
      min_seq: 1,
      max_seq: LINES,
      created: LINES,
      misnumbered: 0,
      distinct_listings: LINES,
    });
    const { rows: orphans } = await db.query(
      `SELECT r.seq FROM import_results r
       LEFT JOIN listings l ON l.id = r.listing_id AND l.external_id = r.external_id
       WHERE r.import_id = $1 AND l.id IS NULL LIMIT 5`,
      [id],
    );
    expect(orphans).toEqual([]);

    // One listing.created event per created listing, none twice; one import.finished.
    const { rows: repeated } = await db.query(
      `SELECT data->>'id' AS id, count(*)::int AS n FROM outbox_events
       WHERE account_id = $1 AND event = 'listing.created'
       GROUP BY data->>'id' HAVING count(*) > 1 LIMIT 5`,
      [seller.id],
    );
    expect(repeated).toEqual([]);
    const [events] = (
      await db.query(
        `SELECT count(*) FILTER (WHERE event = 'listing.created')::int AS created,
                count(*) FILTER (WHERE event = 'listing.created' AND NOT EXISTS (
                  SELECT 1 FROM listings l WHERE l.id = (e.data->>'id')::uuid))::int AS unknown,
                count(*) FILTER (WHERE event = 'import.finished')::int AS finished,
                count(*) FILTER (WHERE event = 'import.finished' AND data->>'id' = $2
                  AND data->>'status' = 'succeeded')::int AS finished_ours
         FROM outbox_events e WHERE account_id = $1`,
        [seller.id, id],
      )
    ).rows;
    expect(events).toEqual({ created: LINES, unknown: 0, finished: 1, finished_ours: 1 });
  }, 270_000);
});
