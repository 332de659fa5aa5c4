/**
 * The inventory-import scenarios of `npm run bench` (alone with BENCH_ONLY=imports): a 20,000-line
 * NDJSON import of new listings and the same file again (all unchanged), each timed from the POST
 * to the status the API reports, against bulk create's listings/s in the same run; then a
 * 100,000-line (~100 MB) import with the worker's RSS sampled throughout, GET /listings/:id's
 * p95 and another account's 10-line import measured alone and while the import applies its
 * lines; then the CSV reader's seconds per MB on rows of 250,000 cells against ordinary rows.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { Client } from 'pg';
import type { CsvReadCost } from './csv-read-cost';
import { getByIdP95 } from './lib/get-p95';
import { load, RUN_SECONDS } from './lib/load';
import {
  cpuMs,
  postgresCpuMsSince,
  postgresCpuSample,
  Started,
  withPeakRss,
} from './lib/processes';
import { outboxSettled } from './lib/outbox';
import { BenchAccount, createAccount, LISTING_BODY, seedListings } from './lib/seed';

export interface ImportsBenchContext {
  db: Client;
  base: string;
  adminToken: string;
  /** the worker process the imports run in */
  worker: Started;
  /** bulk create's listings/s in this run (POST /listings/bulk req/s × 50) */
  bulkListingsPerSecond: number;
  /**
   * The floor's bulk listings/s in this run: a bare INSERT of the same rows, no validation and no
   * events. Shown beside the create ratio: 3× bulk is more than this floor reaches.
   */
  floorBulkListingsPerSecond: number;
  warmupSeconds: number;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const TERMINAL = new Set(['succeeded', 'succeeded_with_errors', 'failed', 'cancelled', 'held']);
/** GET by id's connections alone and during the import: latency, not the API's throughput. */
const GET_CONNECTIONS = 4;

interface ImportView {
  id: string;
  status: string;
  counts: Record<string, number>;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/**
 * Writes `lines` listing bodies as NDJSON to `path`, streamed (with backpressure), never held in
 * memory. With `lineBytes`, each line's description is padded so the line, `\n` included, is
 * exactly that long.
 */
export async function writeFeed(path: string, prefix: string, lines: number, lineBytes?: number) {
  const out = createWriteStream(path);
  for (let i = 1; i <= lines; i++) {
    const externalId = `${prefix}-${String(i).padStart(7, '0')}`;
    let line = `${JSON.stringify({ ...LISTING_BODY, externalId })}\n`;
    if (lineBytes) {
      const pad = lineBytes - Buffer.byteLength(line);
      const description = `${LISTING_BODY.description} ${'Extra utrustning. '.repeat(Math.ceil(pad / 18))}`;
      line = `${JSON.stringify({ ...LISTING_BODY, description: description.slice(0, LISTING_BODY.description.length + pad), externalId })}\n`;
    }
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return statSync(path).size;
}

/** POSTs the file as the request body (`query` after /v1/imports), streamed with its Content-Length. */
export function upload(base: string, key: string, path: string, query = ''): Promise<ImportView> {
  const size = statSync(path).size;
  return new Promise((resolvePromise, reject) => {
    const req = request(
      `${base}/v1/imports${query}`,
      {
        method: 'POST',
        headers: {
          ...auth(key),
          'content-type': 'application/x-ndjson',
          'content-length': String(size),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 202)
            return reject(new Error(`POST /v1/imports answered ${res.statusCode}: ${text}`));
          resolvePromise((JSON.parse(text) as { data: ImportView }).data);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    pipeline(createReadStream(path), req).catch(reject);
  });
}

async function getImport(base: string, key: string, id: string): Promise<ImportView> {
  const res = await fetch(`${base}/v1/imports/${id}`, { headers: auth(key) });
  return ((await res.json()) as { data: ImportView }).data;
}

/** Polls GET /v1/imports/:id every `everyMs` until `until` holds. */
export async function pollImport(
  base: string,
  key: string,
  id: string,
  until: (view: ImportView) => boolean,
  everyMs = 100,
  timeoutMs = 900_000,
): Promise<ImportView> {
  const started = Date.now();
  for (;;) {
    const view = await getImport(base, key, id);
    if (until(view) || TERMINAL.has(view.status)) return view;
    if (Date.now() - started > timeoutMs) throw new Error(`import ${id} timed out: ${view.status}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * How often a timed import's status is polled: every 20 ms when nothing else is measured (the
 * unchanged import takes about half a second, so 100 ms would add up to a fifth to it), every
 * 100 ms while GET by id's latency is, so the polling adds next to nothing to its load.
 */
const POLL_MS = { alone: 20, besideGets: 100 };

interface TimedImport {
  view: ImportView;
  lines: number;
  /** POST to the status polled as finished */
  seconds: number;
  listingsPerSecond: number;
  /** the POST until its 202 (the upload, stored) */
  uploadSeconds: number;
  /** created → started and started → finished, as the service recorded them */
  queuedSeconds: number;
  runSeconds: number;
  /** CPU per line of the worker and of PostgreSQL (all its processes), POST to end, in µs */
  workerUs: number;
  dbUs: number;
}

/**
 * Uploads and waits for the import to end; `during` runs once the import has committed its
 * first chunk (is applying lines: the longest and heaviest part, worker and database both), and
 * is awaited before returning.
 */
async function timedImport(
  ctx: ImportsBenchContext,
  storageDir: string,
  key: string,
  path: string,
  lines: number,
  during?: (importId: string) => Promise<void>,
): Promise<TimedImport> {
  const workerPid = ctx.worker.child.pid!;
  const cpuBefore = { worker: cpuMs(workerPid), db: postgresCpuSample() };
  const started = Date.now();
  const accepted = await upload(ctx.base, key, path);
  const uploadSeconds = (Date.now() - started) / 1000;
  let duringRun: Promise<void> | undefined;
  if (during) {
    await pollImport(ctx.base, key, accepted.id, (v) => (v.counts.processed ?? 0) > 0);
    duringRun = during(accepted.id);
  }
  const view = await pollImport(
    ctx.base,
    key,
    accepted.id,
    () => false,
    during ? POLL_MS.besideGets : POLL_MS.alone,
  );
  const seconds = (Date.now() - started) / 1000;
  const perLine = (ms: number) => Math.round((ms * 1000) / lines);
  const workerUs = perLine(cpuMs(workerPid) - cpuBefore.worker);
  const dbUs = perLine(postgresCpuMsSince(cpuBefore.db));
  await duringRun;
  // The stored copy of the file: the bench's database is dropped on the next run, its files not.
  const { rows } = await ctx.db.query<{ file_key: string | null }>(
    'SELECT file_key FROM imports WHERE id = $1',
    [accepted.id],
  );
  if (rows[0]?.file_key) await rm(join(storageDir, '.private', rows[0].file_key), { force: true });
  const at = (iso: string | null) => (iso ? Date.parse(iso) : NaN);
  return {
    view,
    lines,
    seconds,
    listingsPerSecond: Math.round(lines / seconds),
    uploadSeconds,
    queuedSeconds: (at(view.startedAt) - at(view.createdAt)) / 1000,
    runSeconds: (at(view.finishedAt) - at(view.startedAt)) / 1000,
    workerUs,
    dbUs,
  };
}

function describe(label: string, t: TimedImport): void {
  const counts = Object.entries(t.view.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  console.log(
    `${label}: ${t.view.status} in ${t.seconds.toFixed(1)} s = ${t.listingsPerSecond} listings/s ` +
      `(upload ${t.uploadSeconds.toFixed(3)} s, queued ${t.queuedSeconds.toFixed(3)} s, run ${t.runSeconds.toFixed(3)} s; ${counts}); per line worker ${t.workerUs} µs, db ${t.dbUs} µs`,
  );
}

const getP95 = (
  ctx: ImportsBenchContext,
  reader: BenchAccount,
  ids: string[],
  seconds = RUN_SECONDS,
) => getByIdP95(ctx.base, reader.key, ids, GET_CONNECTIONS, seconds);

/** The account's listings as they stand (id, updated_at, row version), kept in a temp table. */
async function snapshotListings(db: Client, accountId: string) {
  await db.query('DROP TABLE IF EXISTS bench_import_snapshot');
  await db.query(
    `CREATE TEMP TABLE bench_import_snapshot AS
     SELECT id, updated_at, xmin::text AS version FROM listings WHERE account_id = $1`,
    [accountId],
  );
}

/** Listings of the snapshot whose updated_at or row version changed (or that are gone). */
async function rowsWrittenSinceSnapshot(db: Client): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM bench_import_snapshot s LEFT JOIN listings l ON l.id = s.id
     WHERE l.id IS NULL OR l.updated_at IS DISTINCT FROM s.updated_at OR l.xmin::text <> s.version`,
  );
  return rows[0].n;
}

async function eventCounts(db: Client, accountId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ event: string; n: number }>(
    `SELECT event, count(*)::int AS n FROM outbox_events WHERE account_id = $1 GROUP BY event`,
    [accountId],
  );
  return Object.fromEntries(rows.map((r) => [r.event, r.n]));
}

/**
 * Bulk create's listings/s for one client sending its requests one after another (the issue's own
 * measure of bulk, "one bulk of 50 runs in 0.14 s"). Shown beside the create ratio, which is
 * judged against bulk at 4 connections as the rest of the bench measures it.
 */
async function oneClientBulkListingsPerSecond(ctx: ImportsBenchContext): Promise<number> {
  const writer = await createAccount(ctx.base, ctx.adminToken, 'Bulk i tur och ordning AB');
  const body = JSON.stringify({ items: Array.from({ length: 50 }, () => LISTING_BODY) });
  const run = (durationSeconds: number) =>
    load({
      url: `${ctx.base}/v1/listings/bulk`,
      method: 'POST',
      headers: auth(writer.key),
      body,
      connections: 1,
      durationSeconds,
    });
  await run(ctx.warmupSeconds);
  const measured = await run(RUN_SECONDS);
  if (measured.errors + measured.non2xx > 0) throw new Error('one-client bulk requests failed');
  return measured.rps * 50;
}

/** Another account's small import, timed alone and beside the 100,000-line one (median of these). */
const SMALL_IMPORT_RUNS = 3;

const median = (values: number[]) =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

/**
 * Writes a CSV of `rows` listings as an export would (the description quoted: it holds commas),
 * streamed to `path`.
 */
async function writeCsv(path: string, rows: number): Promise<number> {
  const { attributes, ...fields } = LISTING_BODY;
  const columns = Object.keys(fields);
  const attributeKeys = Object.keys(attributes);
  const out = createWriteStream(path);
  const cell = (value: unknown) => `"${String(value).replaceAll('"', '""')}"`;
  out.write(
    ['externalId', ...columns, ...attributeKeys.map((key) => `attributes.${key}`)].join(',') + '\n',
  );
  for (let i = 1; i <= rows; i++) {
    const values = [
      `csv-${i}`,
      ...columns.map((column) => fields[column as keyof typeof fields]),
      ...attributeKeys.map((key) => attributes[key as keyof typeof attributes]),
    ];
    if (!out.write(values.map(cell).join(',') + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return statSync(path).size;
}

/** A CSV of `rows` rows of 250,000 empty cells (the security review's hostile shape). */
async function writeWideCsv(path: string, rows: number): Promise<number> {
  const out = createWriteStream(path);
  out.write('externalId,title\n');
  const row = `${','.repeat(249_999)}\n`;
  for (let i = 0; i < rows; i++) if (!out.write(row)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return statSync(path).size;
}

const execFileAsync = promisify(execFile);

/** bench/csv-read-cost.ts in a process of its own: per file, one read per round. */
async function csvReadCosts(rounds: number, paths: string[]): Promise<CsvReadCost[][]> {
  const script = join(__dirname, 'csv-read-cost.ts');
  const { stdout } = await execFileAsync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', script, String(rounds), ...paths],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as CsvReadCost[][];
}

export async function benchImports(ctx: ImportsBenchContext) {
  const dir = await mkdtemp(join(tmpdir(), 'lsvc-bench-imports-'));
  // Where the service (started with the bench's environment) stores uploaded files.
  const storageDir = resolve(process.env.STORAGE_DIR ?? './storage');
  const profiling = process.env.BENCH_PROFILE_DIR !== undefined;
  const profile = async <T>(work: () => Promise<T>) => {
    if (profiling) ctx.worker.child.kill('SIGWINCH');
    try {
      return await work();
    } finally {
      if (profiling) ctx.worker.child.kill('SIGWINCH');
    }
  };
  try {
    const bulk = ctx.bulkListingsPerSecond;
    const small = join(dir, 'import-20k.ndjson');
    const smallBytes = await writeFeed(small, 'imp', 20_000);
    const importer = await createAccount(ctx.base, ctx.adminToken, 'Lagerimport AB');

    await outboxSettled(ctx.db);
    const created = await profile(() => timedImport(ctx, storageDir, importer.key, small, 20_000));
    describe(`Import of 20,000 new listings (${(smallBytes / 1e6).toFixed(1)} MB)`, created);

    await outboxSettled(ctx.db);
    await snapshotListings(ctx.db, importer.id);
    const eventsBefore = await eventCounts(ctx.db, importer.id);
    const unchanged = await profile(() =>
      timedImport(ctx, storageDir, importer.key, small, 20_000),
    );
    const eventsAfter = await eventCounts(ctx.db, importer.id);
    const rowsWritten = await rowsWrittenSinceSnapshot(ctx.db);
    const added = Object.fromEntries(
      Object.keys(eventsAfter)
        .map((event) => [event, eventsAfter[event] - (eventsBefore[event] ?? 0)] as const)
        .filter(([, n]) => n !== 0),
    );
    const eventsEmitted = Object.entries(added)
      .filter(([event]) => event !== 'import.finished')
      .reduce((sum, [, n]) => sum + n, 0);
    describe('The same file again (all unchanged)', unchanged);
    console.log(
      `  listings written ${rowsWritten} (updated_at or row version changed), events added ${JSON.stringify(added)}`,
    );

    // 100,000 lines of 1,024 bytes: ~102 MB, a reader account to GET from meanwhile.
    const large = join(dir, 'import-100k.ndjson');
    const largeBytes = await writeFeed(large, 'big', 100_000, 1_024);
    const reader = await createAccount(ctx.base, ctx.adminToken, 'Läsare Import AB');
    const ids = await seedListings(ctx.db, reader.id, 10_000);
    await getP95(ctx, reader, ids, ctx.warmupSeconds); // warm-up
    const alone = await getP95(ctx, reader, ids);
    // Another account's 10-line import, POST to finished: alone, then beside the large import.
    const smallImporter = await createAccount(ctx.base, ctx.adminToken, 'Småimport AB');
    let smallRuns = 0;
    const smallImport = async () => {
      const path = join(dir, `small-${++smallRuns}.ndjson`);
      await writeFeed(path, `small-${smallRuns}`, 10);
      const started = Date.now();
      const accepted = await upload(ctx.base, smallImporter.key, path);
      const view = await pollImport(ctx.base, smallImporter.key, accepted.id, () => false, 20);
      if (view.status !== 'succeeded') throw new Error(`the 10-line import ended ${view.status}`);
      // Ended when the service says (same host clock), not when a poll 20 ms apart saw it: the
      // import takes 40-100 ms, so the polling's granularity alone moved the ratio by half.
      return (Date.parse(view.finishedAt!) - started) / 1000;
    };
    await outboxSettled(ctx.db);
    const smallAlone: number[] = [];
    for (let i = 0; i < SMALL_IMPORT_RUNS; i++) smallAlone.push(await smallImport());
    const smallBeside: number[] = [];
    const bigImporter = await createAccount(ctx.base, ctx.adminToken, 'Storimport AB');
    let during: Awaited<ReturnType<typeof getP95>> | undefined;
    let duringEndedBeforeImport = false;
    const { result: bigImport, peakRssMb } = await withPeakRss(ctx.worker, () =>
      timedImport(ctx, storageDir, bigImporter.key, large, 100_000, async (importId) => {
        during = await getP95(ctx, reader, ids);
        for (let i = 0; i < SMALL_IMPORT_RUNS; i++) smallBeside.push(await smallImport());
        const view = await pollImport(ctx.base, bigImporter.key, importId, () => true);
        duringEndedBeforeImport = !TERMINAL.has(view.status);
      }),
    );
    describe(`Import of 100,000 new listings (${(largeBytes / 1e6).toFixed(1)} MB)`, bigImport);
    console.log(`  worker peak RSS ${peakRssMb} MB`);
    const getRatio = Number((during!.p95 / Math.max(alone.p95, 0.1)).toFixed(2));
    console.log(
      `GET /listings/:id p95 (${GET_CONNECTIONS} connections, ${RUN_SECONDS} s) alone ${alone.p95} ms (${alone.rps} req/s), ` +
        `during the import ${during!.p95} ms (${during!.rps} req/s): ratio ${getRatio}` +
        (duringEndedBeforeImport ? '' : ' [the import ended before the run did]'),
    );

    const smallRatio = Number((median(smallBeside) / median(smallAlone)).toFixed(2));
    const listed = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');
    console.log(
      `Another account's 10-line import, POST to finished: alone ${listed(smallAlone)} s, ` +
        `beside the 100,000-line import ${listed(smallBeside)} s: ratio of medians ${smallRatio}`,
    );

    await outboxSettled(ctx.db);
    const oneClientBulk = await oneClientBulkListingsPerSecond(ctx);
    const vsOneClient = (created.listingsPerSecond / oneClientBulk).toFixed(2);
    console.log(
      `POST /listings/bulk, one client, one request at a time: ${oneClientBulk} listings/s; the 20,000-line create import ${vsOneClient}× that`,
    );

    // The CSV reader, in a process of its own: ordinary rows against rows of 250,000 empty cells.
    const normalCsv = join(dir, 'normal.csv');
    const normalMb = (await writeCsv(normalCsv, 20_000)) / 1e6;
    const wideCsv = join(dir, 'wide.csv');
    const wideMb = (await writeWideCsv(wideCsv, 40)) / 1e6;
    const [normalRead, wideRead] = await csvReadCosts(3, [normalCsv, wideCsv]);
    const normalSPerMb = median(normalRead.map((r) => r.secondsPerMb));
    const wideSPerMb = median(wideRead.map((r) => r.secondsPerMb));
    const longestTurnMs = Math.round(
      Math.max(...[...normalRead, ...wideRead].map((r) => r.maxTurnMs)),
    );
    const csvRatio = Number((wideSPerMb / normalSPerMb).toFixed(2));
    console.log(
      `CSV read (median of 3): ordinary rows ${normalMb.toFixed(1)} MB at ${normalSPerMb.toFixed(3)} s/MB, ` +
        `40 rows of 250,000 cells ${wideMb.toFixed(1)} MB at ${wideSPerMb.toFixed(3)} s/MB: ratio ${csvRatio}; ` +
        `longest event-loop turn ${longestTurnMs} ms`,
    );

    const createRatio = Number((created.listingsPerSecond / bulk).toFixed(2));
    const unchangedRatio = Number((unchanged.listingsPerSecond / bulk).toFixed(2));
    return {
      importCreateVsBulk: {
        value: createRatio,
        target: `≥ 3 (import ${created.listingsPerSecond} listings/s, bulk ${bulk}/s, the floor's bare bulk insert ${ctx.floorBulkListingsPerSecond}/s; one client's bulk requests in turn ${oneClientBulk}/s, the import ${vsOneClient}× that)`,
        met: createRatio >= 3 && created.view.status === 'succeeded',
      },
      importUnchangedVsBulk: {
        value: unchangedRatio,
        target: `≥ 10 (import ${unchanged.listingsPerSecond} listings/s, bulk ${bulk}/s), nothing written`,
        rowsWritten,
        eventsEmitted,
        met:
          unchangedRatio >= 10 &&
          rowsWritten === 0 &&
          eventsEmitted === 0 &&
          unchanged.view.status === 'succeeded' &&
          unchanged.view.counts.unchanged === 20_000,
      },
      importWorkerPeakRssMb: {
        value: peakRssMb,
        target: `< 300 (100,000 lines, ${(largeBytes / 1e6).toFixed(0)} MB, ${bigImport.listingsPerSecond} listings/s)`,
        met: peakRssMb < 300 && bigImport.view.status === 'succeeded',
      },
      getP95DuringImport: {
        value: getRatio,
        target: `≤ 1.5 (p95 ${alone.p95} ms alone, ${during!.p95} ms during)`,
        met: getRatio <= 1.5 && duringEndedBeforeImport,
      },
      smallImportDuringBigVsAlone: {
        value: smallRatio,
        target: `≤ 3 (another account's 10-line import, median ${median(smallAlone).toFixed(2)} s alone, ${median(smallBeside).toFixed(2)} s beside the 100,000-line import)`,
        met: smallRatio <= 3 && duringEndedBeforeImport,
      },
      csvWideRowsVsNormal: {
        value: csvRatio,
        target: `≤ 2 (${wideSPerMb.toFixed(3)} s/MB for 40 rows of 250,000 cells, ${normalSPerMb.toFixed(3)} s/MB ordinary; longest turn ${longestTurnMs} ms)`,
        met: csvRatio <= 2 && longestTurnMs <= 50,
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
