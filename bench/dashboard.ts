/**
 * The dashboard under load (`npm run bench`, alone with BENCH_ONLY=dashboard): an account with
 * 1,000,000 webhook deliveries and 90 days of usage over 10 keys. Its deliveries and usage pages,
 * with a signed-in session, against the API routes that read the same data with a key; and the
 * bytes a page costs a browser with all its assets (gzip), none from another origin.
 */
import { gzipSync } from 'node:zlib';
import type { Client } from 'pg';
import type { LoadOptions } from './lib/load';

export interface DashboardBenchContext {
  db: Client;
  base: string;
  adminToken: string;
  /** the dashboard's run against the API's, alternated, with the ratio of their medians */
  pair: (scenario: string, service: LoadOptions, floor: LoadOptions) => Promise<{ ratio?: number }>;
}

const DELIVERIES = 1_000_000;
const KEYS = 10;
const USAGE_DAYS = 90;
const PASSWORD = 'violet tractor harbour 42 umbrella';
const PAGE_KB_LIMIT = 150;
/** The deliveries an endpoint's page shows at once. */
const DELIVERIES_PAGE = 20;

/** The cookies a browser would keep, enough for the dashboard's session and CSRF cookies. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  keep(res: Response): void {
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** A browser's session: GETs and form POSTs with the cookies and the page's CSRF token. */
class Browser {
  readonly jar = new CookieJar();

  constructor(private readonly base: string) {}

  async get(path: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${this.base}${path}`, {
      headers: { cookie: this.jar.header() },
      redirect: 'manual',
    });
    this.jar.keep(res);
    return { status: res.status, text: await res.text() };
  }

  /** Posts the form at `path` with the CSRF token of the page at `from`. */
  async post(from: string, path: string, fields: Record<string, string>): Promise<number> {
    const csrf = /<meta name="csrf-token" content="([^"]*)">/.exec(
      (await this.get(from)).text,
    )?.[1];
    if (!csrf) throw new Error(`no CSRF token on ${from}`);
    const res = await fetch(`${this.base}${path}`, {
      method: 'POST',
      headers: {
        cookie: this.jar.header(),
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      redirect: 'manual',
    });
    this.jar.keep(res);
    await res.arrayBuffer();
    return res.status;
  }
}

async function admin<T>(ctx: DashboardBenchContext, method: string, path: string, body?: unknown) {
  const res = await fetch(`${ctx.base}/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ctx.adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} /v1/admin${path} answered ${res.status}`);
  return (await res.json()) as { data: T };
}

/** Signs up through the forms, verifies from the mail outbox, gets approved; a signed-in owner. */
async function signedInOwner(
  ctx: DashboardBenchContext,
): Promise<{ browser: Browser; accountId: string }> {
  const browser = new Browser(ctx.base);
  const email = `bench.${Date.now().toString(36)}@example.se`;
  const status = await browser.post('/dashboard/sign-up', '/dashboard/sign-up', {
    company: 'Leveransloggen AB',
    email,
    password: PASSWORD,
  });
  if (status !== 303) throw new Error(`sign-up answered ${status}`);
  const mails = await admin<{ text: string }[]>(
    ctx,
    'GET',
    `/emails?to=${encodeURIComponent(email)}&limit=1`,
  );
  const token = /verify-email\?token=([A-Za-z0-9_-]+)/.exec(mails.data[0].text)?.[1];
  if (!token) throw new Error('no verification link in the outbox');
  const verified = await browser.post(
    `/dashboard/verify-email?token=${token}`,
    '/dashboard/verify-email',
    {
      token,
    },
  );
  if (verified !== 303) throw new Error(`verification answered ${verified}`);
  const { rows } = await ctx.db.query<{ account_id: string }>(
    `SELECT m.account_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
    [email],
  );
  const accountId = rows[0].account_id;
  await admin(ctx, 'POST', `/accounts/${accountId}/approve`);
  // A session starts in test mode; the seeded keys and deliveries are live.
  const live = await browser.post('/dashboard', '/dashboard/mode', { mode: 'live' });
  if (live !== 303) throw new Error(`the mode switch answered ${live}`);
  return { browser, accountId };
}

/** 1,000,000 deliveries to one endpoint over 30 days, and 90 days of usage over the 10 keys. */
async function seed(ctx: DashboardBenchContext, keyIds: string[], endpointId: string) {
  await ctx.db.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event, payload, status, attempts,
       last_attempt_at, last_response_status, created_at)
     SELECT gen_random_uuid(), $1, (ARRAY['listing.created', 'listing.updated', 'listing.sold'])[1 + g % 3],
       '{"type":"listing.created"}', CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'succeeded' END,
       1 + (g % 50 = 0)::int * 7, now() - g * interval '2.592 seconds',
       CASE WHEN g % 50 = 0 THEN 500 ELSE 200 END, now() - g * interval '2.592 seconds'
     FROM generate_series(1, $2::int) AS g`,
    [endpointId, DELIVERIES],
  );
  await ctx.db.query(
    `INSERT INTO api_usage (key_id, day, method, route, status_class, rate_limited, requests)
     SELECT k, current_date - d, m.method, m.route, s, false, 1 + (d * 31 + s * 7) % 997
     FROM unnest($1::uuid[]) AS k, generate_series(0, $2::int - 1) AS d,
       (VALUES ('GET', '/v1/listings'), ('GET', '/v1/listings/:id'), ('POST', '/v1/listings'),
               ('PATCH', '/v1/listings/:id'), ('POST', '/v1/listings/bulk'),
               ('PUT', '/v1/listings/by-external-id/:externalId'), ('GET', '/v1/events'),
               ('POST', '/v1/imports')) AS m(method, route),
       (VALUES (2), (4), (5)) AS c(s)`,
    [keyIds, USAGE_DAYS],
  );
  await ctx.db.query('ANALYZE webhook_deliveries');
  await ctx.db.query('ANALYZE api_usage');
}

/** Bytes a browser transfers for the page and every asset it loads (gzip), and any other origin. */
async function pageWeight(ctx: DashboardBenchContext, browser: Browser, path: string) {
  const page = await browser.get(path);
  if (page.status !== 200) throw new Error(`${path} answered ${page.status}`);
  const assets = [...page.text.matchAll(/<(?:script|link|img)\b[^>]*?(?:src|href)="([^"]+)"/g)].map(
    (m) => m[1],
  );
  const foreign = assets.filter((url) => !url.startsWith('/') || url.startsWith('//'));
  let bytes = gzipSync(page.text).length;
  for (const url of assets.filter((u) => !foreign.includes(u))) {
    const res = await fetch(`${ctx.base}${url}`);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    bytes += gzipSync(Buffer.from(await res.arrayBuffer())).length;
  }
  return { kb: Number((bytes / 1024).toFixed(1)), assets: assets.length, foreign };
}

export async function benchDashboard(ctx: DashboardBenchContext) {
  const { browser, accountId } = await signedInOwner(ctx);
  const keys: { id: string; key: string }[] = [];
  for (let i = 0; i < KEYS; i++)
    keys.push(
      (
        await admin<{ id: string; key: string }>(ctx, 'POST', `/accounts/${accountId}/keys`, {
          kind: 'live',
          name: `Nyckel ${i + 1}`,
        })
      ).data,
    );
  const auth = { authorization: `Bearer ${keys[0].key}` };
  const endpoint = await fetch(`${ctx.base}/v1/webhooks`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://receiver.example.se/hooks' }),
  });
  const endpointId = ((await endpoint.json()) as { data: { id: string } }).data.id;
  console.log(
    `Seeding ${DELIVERIES.toLocaleString('en')} deliveries and ${USAGE_DAYS} days of usage over ${KEYS} keys…`,
  );
  await seed(
    ctx,
    keys.map((k) => k.id),
    endpointId,
  );
  const cookie = { cookie: browser.jar.header() };

  // Weighed first: each page must answer 200 before it is put under load.
  const weights = [];
  for (const path of [
    '/dashboard',
    `/dashboard/usage?days=${USAGE_DAYS}`,
    `/dashboard/usage?days=${USAGE_DAYS}&key=${keys[0].id}`,
    `/dashboard/webhooks/${endpointId}`,
    '/dashboard/keys',
    '/dashboard/imports',
  ])
    weights.push({ path, ...(await pageWeight(ctx, browser, path)) });
  const deliveries = await ctx.pair(
    'dashboard endpoint page vs GET /webhooks/:id/deliveries (1M)',
    { url: `${ctx.base}/dashboard/webhooks/${endpointId}`, headers: cookie },
    {
      url: `${ctx.base}/v1/webhooks/${endpointId}/deliveries?limit=${DELIVERIES_PAGE}`,
      headers: auth,
    },
  );
  const usage = await ctx.pair(
    'dashboard usage page (one key) vs GET /me/usage (90 days; 10 keys seeded)',
    { url: `${ctx.base}/dashboard/usage?days=${USAGE_DAYS}&key=${keys[0].id}`, headers: cookie },
    { url: `${ctx.base}/v1/me/usage?days=${USAGE_DAYS}`, headers: auth },
  );
  for (const w of weights)
    console.log(
      `${w.path}: ${w.kb} KB gzip with its ${w.assets} assets, ${w.foreign.length} from another origin`,
    );
  const heaviest = weights.reduce((a, b) => (b.kb > a.kb ? b : a));
  const foreign = weights.flatMap((w) => w.foreign);
  return {
    dashboardDeliveriesVsApi: {
      value: deliveries.ratio ?? 0,
      target: '≥ 0.5',
      met: (deliveries.ratio ?? 0) >= 0.5,
    },
    dashboardUsageVsApi: {
      value: usage.ratio ?? 0,
      target: '≥ 0.5',
      met: (usage.ratio ?? 0) >= 0.5,
    },
    dashboardPageKb: {
      value: heaviest.kb,
      target: `≤ ${PAGE_KB_LIMIT} KB gzip with assets (heaviest: ${heaviest.path}), no other origin`,
      met: heaviest.kb <= PAGE_KB_LIMIT && foreign.length === 0,
    },
  };
}
