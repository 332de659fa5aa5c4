/**
 * The 1,000,000-line import of `npm run bench:scale` (alone with BENCH_ONLY=import-1m): the spec's
 * largest feed (1,000,000 lines, under 1 GiB as sent), NDJSON of new listings (the bench's
 * listing body, ~930 bytes a line, a unique externalId each), uploaded through the API and run by
 * the bulk worker as deployed (PROCESS_ROLE=worker, WORKER_LANES=bulk, the Dockerfile's heap
 * flag and malloc settings, an interactive worker beside it), its peak RSS taken while it runs. Then the same file again (all unchanged) and, with BENCH_IMPORT_1M_MIRROR
 * not 0, once more with mode=mirror (nothing to remove). Each run is timed from the POST to the
 * status polled as finished, started once every earlier event is relayed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { pollImport, upload, writeFeed } from './imports';
import {
  DEPLOYED_HEAP_FLAG,
  DEPLOYED_MALLOC_ENV,
  Started,
  startNode,
  withPeakRss,
} from './lib/processes';
import { outboxSettled } from './lib/outbox';
import { createAccount } from './lib/seed';

/** A million lines' events take minutes to relay and place in the feed. */
const SETTLE = { timeoutMs: 1_200_000, pollMs: 1_000 };

const LINES = Number(process.env.BENCH_IMPORT_LINES ?? 1_000_000);
/** BENCH_IMPORT_1M_TAG=<n> runs beside another run of this scenario: its own database, port and prefix. */
const TAG = process.env.BENCH_IMPORT_1M_TAG ?? '';
const DB = `lsvc_bench_import_1m${TAG && `_${TAG}`}`;
const PORT = 3311 + Number(TAG || 0);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const base = `http://127.0.0.1:${PORT}`;

/**
 * The kernel's high-water mark of the process's RSS in MB, since the last `resetPeak`: it also
 * catches a peak between two samples.
 */
function peakMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Math.round(Number(kb) / 1024) : 0;
}

/** Resets VmHWM to the current RSS (Linux's clear_refs, 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

interface MillionRun {
  status: string;
  counts: Record<string, number>;
  seconds: number;
  linesPerSecond: number;
  uploadSeconds: number;
  runSeconds: number;
  /** the larger of the 250 ms samples and the kernel's VmHWM over the run */
  peakRssMb: number;
  rssBeforeMb: number;
}

async function run(
  db: Client,
  worker: Started,
  storageDir: string,
  key: string,
  path: string,
  query = '',
): Promise<MillionRun> {
  const pid = worker.child.pid!;
  const rssBeforeMb = worker.rssMb();
  resetPeak(pid);
  const started = Date.now();
  let uploadSeconds = 0;
  const { result: view, peakRssMb: sampled } = await withPeakRss(worker, async () => {
    const accepted = await upload(base, key, path, query);
    uploadSeconds = (Date.now() - started) / 1000;
    return pollImport(base, key, accepted.id, () => false, 1_000, 3_600_000);
  });
  const seconds = (Date.now() - started) / 1000;
  const peakRssMb = Math.max(sampled, peakMb(pid));
  const { rows } = await db.query<{ file_key: string | null }>(
    'SELECT file_key FROM imports WHERE id = $1',
    [view.id],
  );
  if (rows[0]?.file_key) await rm(join(storageDir, '.private', rows[0].file_key), { force: true });
  const at = (iso: string | null) => (iso ? Date.parse(iso) : NaN);
  return {
    status: view.status,
    counts: Object.fromEntries(Object.entries(view.counts).filter(([, n]) => n > 0)),
    seconds,
    linesPerSecond: Math.round(LINES / seconds),
    uploadSeconds,
    runSeconds: (at(view.finishedAt) - at(view.startedAt)) / 1000,
    peakRssMb,
    rssBeforeMb,
  };
}

function describe(label: string, r: MillionRun): void {
  console.log(
    `${label}: ${r.status} in ${r.seconds.toFixed(1)} s = ${r.linesPerSecond} lines/s ` +
      `(upload ${r.uploadSeconds.toFixed(1)} s, run ${r.runSeconds.toFixed(1)} s; ${JSON.stringify(r.counts)}); ` +
      `worker RSS ${r.rssBeforeMb} MB before, peak ${r.peakRssMb} MB`,
  );
}

export async function benchImportMillion(pg: string) {
  const admin = new Client({ connectionString: `${pg}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const dir = await mkdtemp(join(tmpdir(), 'lsvc-bench-import-1m-'));
  const storageDir = join(dir, 'storage');
  const env = {
    ...DEPLOYED_MALLOC_ENV,
    DATABASE_URL: `${pg}/${DB}`,
    PORT: String(PORT),
    ADMIN_TOKEN,
    PUBLIC_BASE_URL: base,
    LOG_LEVEL: 'warn',
    PROCESS_ROLE: 'api',
    RATE_LIMIT_READ_PER_MIN: '10000000',
    RATE_LIMIT_WRITE_PER_MIN: '10000000',
    REDIS_KEY_PREFIX: `lsvc-bench-import-1m${TAG}`,
    STORAGE_DIR: storageDir,
  };
  const entry = join(process.env.BENCH_DIST ?? join(__dirname, '..', 'dist'), 'main.js');
  const service = await startNode([DEPLOYED_HEAP_FLAG, entry], env, `${base}/health/ready`);
  // As docker compose runs them: the imports in the bulk worker, whose RSS is measured; the
  // interactive worker relays the imports' own events (import.finished).
  let worker: Started | undefined;
  let interactive: Started | undefined;
  const db = new Client({ connectionString: env.DATABASE_URL });
  try {
    const workerEnv = { ...env, PROCESS_ROLE: 'worker' };
    worker = await startNode([DEPLOYED_HEAP_FLAG, entry], { ...workerEnv, WORKER_LANES: 'bulk' });
    interactive = await startNode([DEPLOYED_HEAP_FLAG, entry], {
      ...workerEnv,
      WORKER_LANES: 'interactive',
    });
    await db.connect();
    const feed = join(dir, 'import-1m.ndjson');
    const bytes = await writeFeed(feed, 'm', LINES);
    console.log(
      `\nImport of ${LINES.toLocaleString('en')} lines (${(bytes / 1e6).toFixed(0)} MB NDJSON, ${Math.round(bytes / LINES)} bytes a line)…`,
    );
    const importer = await createAccount(base, ADMIN_TOKEN, 'Miljonimport AB');
    await new Promise((r) => setTimeout(r, 2_000)); // the worker settles after its start
    const created = await run(db, worker, storageDir, importer.key, feed);
    describe('New listings', created);
    // BENCH_IMPORT_1M_SETTLE=0: the next run starts while the worker still relays (minutes).
    const settle = process.env.BENCH_IMPORT_1M_SETTLE !== '0';
    if (settle)
      console.log(`  outbox settled ${(await outboxSettled(db, SETTLE)).toFixed(0)} s after`);
    const unchanged = await run(db, worker, storageDir, importer.key, feed);
    describe('The same file again (all unchanged)', unchanged);
    let mirror: MillionRun | undefined;
    if (process.env.BENCH_IMPORT_1M_MIRROR !== '0') {
      if (settle) await outboxSettled(db, SETTLE);
      mirror = await run(db, worker, storageDir, importer.key, feed, '?mode=mirror');
      describe('Again with mode=mirror (nothing to remove)', mirror);
    }
    const peak = Math.max(created.peakRssMb, unchanged.peakRssMb, mirror?.peakRssMb ?? 0);
    const ok = (r: MillionRun) => r.status === 'succeeded';
    return {
      importMillionWorkerPeakRssMb: {
        value: peak,
        target:
          `< 300 (${LINES.toLocaleString('en')} lines, ${(bytes / 1e6).toFixed(0)} MB; peak create ${created.peakRssMb}, ` +
          `unchanged ${unchanged.peakRssMb}${mirror ? `, mirror ${mirror.peakRssMb}` : ''} MB; ` +
          `create ${created.seconds.toFixed(0)} s at ${created.linesPerSecond} lines/s, ` +
          `unchanged ${unchanged.seconds.toFixed(0)} s at ${unchanged.linesPerSecond} lines/s` +
          (mirror
            ? `, mirror ${mirror.seconds.toFixed(0)} s at ${mirror.linesPerSecond} lines/s`
            : '') +
          ')',
        met:
          peak < 300 &&
          ok(created) &&
          created.counts.created === LINES &&
          ok(unchanged) &&
          unchanged.counts.unchanged === LINES &&
          (!mirror || (ok(mirror) && mirror.counts.unchanged === LINES)),
      },
    };
  } finally {
    await db.end().catch(() => undefined);
    await worker?.stop();
    await interactive?.stop();
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
