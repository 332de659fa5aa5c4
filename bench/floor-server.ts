/**
 * The floor: a bare node:http + pg server doing the same SQL work as each benchmarked endpoint
 * (key lookup by hash, then the query), with nothing else: no framework, validation, envelope,
 * limits, usage counting or outbox. The service's figures are reported as a ratio to these.
 */
import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool, PoolClient } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
/**
 * A listing's columns, named: not `l.*`, which would also return `rendered` (the service's own
 * JSON of the row, read only by its list pages), a kilobyte a row the floor has no use for.
 */
const COLUMNS = [
  'id',
  'account_id',
  'livemode',
  'external_id',
  'title',
  'description',
  'price',
  'currency',
  'condition',
  'category_slug',
  'location_lan',
  'location_kommun',
  'phone',
  'attributes',
  'status',
  'created_at',
  'updated_at',
  'published_at',
  'expires_at',
  'sold_at',
  'expired_at',
  'removed_at',
  'removal_reason',
];
const SELECT_LISTING = `${COLUMNS.map((c) => `l.${c}`).join(', ')},
  COALESCE((SELECT json_agg(json_build_object('id', i.id, 'url', i.url, 'order', i.position,
    'status', i.status, 'width', i.width, 'height', i.height,
    'variants', CASE WHEN i.variants IS NULL THEN NULL ELSE json_build_object(
      'thumb', i.variants->>'thumb', 'medium', i.variants->>'medium', 'large', i.variants->>'large') END,
    'error', CASE WHEN i.error_reason IS NULL THEN NULL ELSE json_build_object(
      'reason', i.error_reason, 'message', i.error_message) END) ORDER BY i.position)
  FROM listing_images i WHERE i.listing_id = l.id), '[]') AS images`;

async function authenticate(
  req: IncomingMessage,
): Promise<{ accountId: string; livemode: boolean }> {
  const key = (req.headers.authorization ?? '').slice('Bearer '.length);
  const { rows } = await pool.query(
    `SELECT a.id AS "accountId", k.kind FROM api_keys k JOIN accounts a ON a.id = k.account_id
     WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [createHash('sha256').update(key).digest('hex')],
  );
  if (!rows[0]) throw new Error('unauthorised');
  return { accountId: rows[0].accountId, livemode: rows[0].kind === 'live' };
}

function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {}));
  });
}

async function inTransaction<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

const INSERT = `INSERT INTO listings (account_id, livemode, external_id, title, description, price, condition, category_slug,
  location_lan, location_kommun, phone, attributes, status, published_at, expires_at)
  SELECT $1, $2, x.external_id, x.title, x.description, x.price, x.condition, x."categorySlug", x."locationLan",
    x."locationKommun", x.phone, x.attributes, 'ACTIVE', now(), now() + interval '30 days'
  FROM jsonb_to_recordset($3::jsonb) AS x(external_id text, title text, description text, price int, condition text,
    "categorySlug" text, "locationLan" text, "locationKommun" text, phone text, attributes jsonb)
  RETURNING ${COLUMNS.join(', ')}`;

async function handle(req: IncomingMessage, url: URL): Promise<unknown> {
  const scope = await authenticate(req);
  const [, route, arg] = url.pathname.split('/');
  switch (route) {
    case 'get': {
      const { rows } = await pool.query(
        `SELECT ${SELECT_LISTING} FROM listings l WHERE l.id = $1 AND l.account_id = $2 AND l.livemode = $3`,
        [arg, scope.accountId, scope.livemode],
      );
      return rows[0];
    }
    case 'list': {
      const status = url.searchParams.get('status');
      const order =
        url.searchParams.get('sort') === 'price_asc'
          ? 'l.price ASC, l.id ASC'
          : 'l.created_at DESC, l.id DESC';
      const offset = (Number(url.searchParams.get('page') ?? 1) - 1) * 20;
      const where = `l.account_id = $1 AND l.livemode = $2 AND ${status ? 'l.status = $3' : `l.status <> 'REMOVED'`}`;
      const params = status
        ? [scope.accountId, scope.livemode, status]
        : [scope.accountId, scope.livemode];
      const [page, count] = await Promise.all([
        pool.query(
          `SELECT ${SELECT_LISTING} FROM listings l WHERE ${where} ORDER BY ${order} LIMIT 20 OFFSET ${offset}`,
          params,
        ),
        pool.query(`SELECT count(*)::int AS n FROM listings l WHERE ${where}`, params),
      ]);
      return { data: page.rows, total: count.rows[0].n };
    }
    case 'create':
    case 'bulk': {
      const body = await readBody(req);
      const items = route === 'bulk' ? (body.items as unknown[]) : [body];
      return inTransaction(
        async (c) =>
          (await c.query(INSERT, [scope.accountId, scope.livemode, JSON.stringify(items)])).rows
            .length,
      );
    }
    case 'put': {
      await readBody(req);
      return inTransaction(async (c) => {
        const { rows } = await c.query(
          `SELECT ${SELECT_LISTING} FROM listings l WHERE l.account_id = $1 AND l.livemode = $2 AND l.external_id = $3
           AND l.status <> 'REMOVED' FOR UPDATE OF l`,
          [scope.accountId, scope.livemode, arg],
        );
        return rows[0];
      });
    }
    default:
      throw new Error('unknown route');
  }
}

createServer((req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  if (url.pathname === '/ready') return void res.end('ok');
  handle(req, url).then(
    (data) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data }));
    },
    (error: Error) => {
      res.writeHead(500);
      res.end(error.message);
    },
  );
}).listen(Number(process.env.PORT));
