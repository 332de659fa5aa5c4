/**
 * `npm run bench:scale`: grows the listings table to 10k, 100k and 1M rows spread over 1,000
 * accounts and measures, at each size, per-account reads (GET by id, a list page) and expiry.
 * Per-account costs must not grow with the table. BENCH_DURATION seconds per load run (default 5),
 * after BENCH_WARMUP unrecorded seconds (default 3). Then a 1,000,000-line import and the worker's
 * peak RSS (bench/import-million.ts), in a database of its own; BENCH_ONLY=import-1m runs that
 * alone, BENCH_ONLY=sizes the table sizes alone.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { benchImportMillion } from './import-million';
import { load } from './lib/load';
import { DEPLOYED_HEAP_FLAG, startNode } from './lib/processes';
import { BenchAccount, createAccount } from './lib/seed';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const DB = 'lsvc_bench_scale';
const PORT = 3310;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const base = `http://127.0.0.1:${PORT}`;
const ACCOUNTS = 1_000;
const SIZES = [10_000, 100_000, 1_000_000];
const EXPIRING = 10_000;
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  if (only !== 'import-1m') await benchSizes();
  if (only !== 'sizes') {
    const targets = await benchImportMillion(PG);
    console.log('\nTargets:');
    for (const [name, t] of Object.entries(targets))
      console.log(`  ${t.met ? 'met   ' : 'MISSED'} ${name} ${t.value} ${t.target}`);
  }
}

async function benchSizes(): Promise<void> {
  const admin = new Client({ connectionString: `${PG}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const service = await startNode(
    [DEPLOYED_HEAP_FLAG, join(__dirname, '..', 'dist', 'main.js')],
    {
      DATABASE_URL: `${PG}/${DB}`,
      PORT: String(PORT),
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_READ_PER_MIN: '10000000',
      RATE_LIMIT_WRITE_PER_MIN: '10000000',
      EXPIRY_SWEEP_EVERY: '500ms',
      EXPIRY_BATCH_SIZE: '5000',
      REDIS_KEY_PREFIX: 'lsvc-bench-scale',
    },
    `${base}/health/ready`,
  );
  const db = new Client({ connectionString: `${PG}/${DB}` });
  await db.connect();
  try {
    console.log(`Creating ${ACCOUNTS} accounts…`);
    const accounts: BenchAccount[] = [];
    for (let i = 0; i < ACCOUNTS; i++)
      accounts.push(await createAccount(base, ADMIN_TOKEN, `Handlare ${i} AB`));
    const probe = accounts[0];
    let rows = 0;
    console.log('rows        GET by id req/s (p99)   list page req/s (p99)   expire 10k listings');
    for (const size of SIZES) {
      const started = Date.now();
      await db.query(
        `INSERT INTO listings (account_id, livemode, title, description, price, condition, category_slug, location_lan,
           location_kommun, attributes, status, published_at, expires_at, created_at, updated_at)
         SELECT ($1::uuid[])[1 + g % $2], true, 'Begagnad vara ' || g, 'Beskrivning av vara ' || g, (g::bigint * 7919) % 500000,
           'GOOD', 'cars', 'stockholm', 'upplands-vasby',
           '{"make":"volvo","model":"V70","modelYear":2012,"mileageKm":1000,"fuel":"diesel","gearbox":"manual"}',
           'ACTIVE', now(), now() + interval '30 days', now() - (g || ' seconds')::interval, now()
         FROM generate_series($3::int, $4::int) AS g`,
        [accounts.map((a) => a.id), ACCOUNTS, rows + 1, size],
      );
      rows = size;
      await db.query('VACUUM ANALYZE listings');
      const seedSeconds = ((Date.now() - started) / 1000).toFixed(1);
      const { rows: ids } = await db.query<{ id: string }>(
        'SELECT id FROM listings WHERE account_id = $1 LIMIT 500',
        [probe.id],
      );
      const headers = { authorization: `Bearer ${probe.key}` };
      const duration = Number(process.env.BENCH_DURATION ?? 5);
      const byIdRun = {
        url: base,
        headers,
        request: () => ({ path: `/v1/listings/${ids[Math.floor(Math.random() * ids.length)].id}` }),
      };
      // 10 listings per account at the smallest size: a full page of 10 at every size.
      const pageRun = { url: `${base}/v1/listings?limit=10`, headers };
      // Unrecorded warm-up, as in bench/run.ts: the first size would otherwise also measure JIT
      // and the pools filling.
      await load({ ...byIdRun, durationSeconds: WARMUP_SECONDS });
      const byId = await load({ ...byIdRun, durationSeconds: duration });
      await load({ ...pageRun, durationSeconds: WARMUP_SECONDS });
      const page = await load({ ...pageRun, durationSeconds: duration });

      const expiringStarted = Date.now();
      await db.query(
        `UPDATE listings SET expires_at = now() - interval '1 second'
         WHERE id IN (SELECT id FROM listings WHERE status = 'ACTIVE' ORDER BY id LIMIT $1)`,
        [EXPIRING],
      );
      for (;;) {
        const { rows: due } = await db.query(
          `SELECT count(*)::int AS n FROM listings WHERE status = 'ACTIVE' AND expires_at <= now()`,
        );
        if (due[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const expirySeconds = ((Date.now() - expiringStarted) / 1000).toFixed(1);
      console.log(
        `${String(size).padEnd(11)} ${String(byId.rps).padStart(6)} (${byId.p99} ms)`.padEnd(36) +
          `${String(page.rps).padStart(6)} (${page.p99} ms)`.padEnd(24) +
          `${expirySeconds} s   (seeded in ${seedSeconds} s)`,
      );
    }
  } finally {
    await db.end();
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
