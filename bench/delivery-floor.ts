/**
 * The delivery floor: a bare node + pg process that does what a webhook delivery needs and
 * nothing else. It claims due `webhook_deliveries` rows of one account in batches (FOR UPDATE
 * SKIP LOCKED), POSTs each stored body, signed with the service's own signing function and with
 * the service's headers, over keep-alive connections with WEBHOOK_WORKER_CONCURRENCY requests in
 * flight, and records each outcome with one UPDATE. No queue, no framework, no SSRF check, no
 * retries, no attempt log, no metrics. The bench reports the service's deliveries/s as a ratio
 * to this process's, measured in the same run.
 *
 * It waits on `LISTEN delivery_floor`; a NOTIFY whose payload is an account id starts a round,
 * which ends when that account has no due delivery left.
 */
import http from 'node:http';
import { Client, Pool } from 'pg';
import { signatureHeaders, unixSeconds } from '../src/webhooks/transport/webhook-signer';

const CONCURRENCY = Number(process.env.WEBHOOK_WORKER_CONCURRENCY ?? 50);
const CLAIM_BATCH = 100;
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const agent = new http.Agent({ keepAlive: true });

interface Due {
  id: string;
  event: string;
  payload: string;
  url: string;
  secret: string;
}

/** Up to `limit` due deliveries of the account, leased for a minute so no other claim takes them. */
async function claim(accountId: string, limit: number): Promise<Due[]> {
  const { rows } = await pool.query<Due>(
    `UPDATE webhook_deliveries d SET next_attempt_at = now() + interval '1 minute'
     FROM webhook_endpoints e
     WHERE e.id = d.endpoint_id AND d.id IN (
       SELECT d2.id FROM webhook_deliveries d2 JOIN webhook_endpoints e2 ON e2.id = d2.endpoint_id
       WHERE e2.account_id = $1 AND d2.status = 'pending' AND d2.next_attempt_at <= now()
       ORDER BY d2.next_attempt_at LIMIT $2 FOR UPDATE OF d2 SKIP LOCKED)
     RETURNING d.id, d.event, d.payload, e.url, e.secret`,
    [accountId, limit],
  );
  return rows;
}

function post(d: Due): Promise<number> {
  const at = new Date();
  const timestamp = unixSeconds(at);
  const body = Buffer.from(d.payload, 'utf8');
  return new Promise((resolve, reject) => {
    const request = http.request(d.url, {
      method: 'POST',
      agent,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        'User-Agent': 'ListingsService-Webhooks/1',
        'X-Service-Event': d.event,
        'X-Service-Delivery': d.id,
        'X-Service-Timestamp': timestamp,
        'webhook-id': d.id,
        'webhook-timestamp': timestamp,
        ...signatureHeaders([d.secret], d.id, timestamp, d.payload),
      },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      response.on('data', () => undefined);
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.end(body);
  });
}

async function deliver(d: Due): Promise<void> {
  const at = new Date();
  const status = await post(d).catch(() => null);
  const ok = status !== null && status >= 200 && status < 300;
  await pool.query(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = $2,
       last_response_status = $3, status = CASE WHEN $4 THEN 'succeeded' ELSE status END,
       next_attempt_at = CASE WHEN $4 THEN NULL ELSE next_attempt_at END
     WHERE id = $1`,
    [d.id, at, status, ok],
  );
}

/** CONCURRENCY lanes share one buffer of claimed rows, refilled by one claim at a time. */
async function round(accountId: string): Promise<void> {
  const buffer: Due[] = [];
  let refill: Promise<void> | undefined;
  let exhausted = false;
  const next = async (): Promise<Due | undefined> => {
    while (buffer.length === 0 && !exhausted) {
      refill ??= claim(accountId, CLAIM_BATCH).then((rows) => {
        if (rows.length === 0) exhausted = true;
        buffer.push(...rows);
        refill = undefined;
      });
      await refill;
    }
    return buffer.shift();
  };
  const lane = async () => {
    for (let d = await next(); d; d = await next()) await deliver(d);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

async function main(): Promise<void> {
  const listener = new Client({
    connectionString: process.env.DATABASE_URL,
    application_name: 'delivery-floor',
  });
  await listener.connect();
  let running = Promise.resolve();
  listener.on('notification', (message) => {
    const accountId = message.payload!;
    running = running.then(() => round(accountId)).catch((error: unknown) => console.error(error));
  });
  await listener.query('LISTEN delivery_floor');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
