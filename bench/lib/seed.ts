import { Client } from 'pg';

export interface BenchAccount {
  id: string;
  key: string;
}

export const LISTING_BODY = {
  title: 'Volvo V70 2.4 D5 Momentum, dragkrok',
  description:
    'Välskött bil med dragkrok, vinterhjul på fälg och full servicehistorik. Nybesiktad. ' +
    'Kamrem bytt vid 150 000 km. Två nycklar. Inga anmärkningar. '.repeat(8),
  price: 89000,
  condition: 'GOOD',
  categorySlug: 'cars',
  locationLan: 'stockholm',
  locationKommun: 'upplands-vasby',
  phone: '+46701234567',
  attributes: {
    make: 'volvo',
    model: 'V70',
    modelYear: 2012,
    mileageKm: 184000,
    fuel: 'diesel',
    gearbox: 'automatic',
  },
};

/** Creates an approved account and a live key through the admin API, like real provisioning. */
export async function createAccount(
  baseUrl: string,
  adminToken: string,
  name: string,
): Promise<BenchAccount> {
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const account = (await (
    await fetch(`${baseUrl}/v1/admin/accounts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name, approve: true }),
    })
  ).json()) as { data: { id: string } };
  const key = (await (
    await fetch(`${baseUrl}/v1/admin/accounts/${account.data.id}/keys`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ kind: 'live' }),
    })
  ).json()) as { data: { key: string } };
  return { id: account.data.id, key: key.data.key };
}

/**
 * Inserts `count` listings for an account in one statement (the service's own triggers keep the
 * counts), a third of them with three (processed) images. Returns their ids. They expire over the
 * 30 days to come, one second apart, or all at once `dueInSeconds` from now.
 */
export async function seedListings(
  db: Client,
  accountId: string,
  count: number,
  { status = 'ACTIVE', dueInSeconds }: { status?: string; dueInSeconds?: number } = {},
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO listings (account_id, livemode, external_id, title, description, price, condition, category_slug,
       location_lan, location_kommun, phone, attributes, status, published_at, expires_at, created_at, updated_at)
     SELECT $1, true, 'seed-' || g, 'Begagnad bil nummer ' || g, $2, (g * 7919) % 500000, 'GOOD', 'cars',
       'stockholm', 'upplands-vasby', '+46701234567', $3::jsonb, $4,
       now() - (g || ' seconds')::interval,
       COALESCE(now() + $6 * interval '1 second', now() + interval '30 days' - (g || ' seconds')::interval),
       now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
     FROM generate_series(1, $5::int) AS g
     RETURNING id`,
    [
      accountId,
      LISTING_BODY.description,
      JSON.stringify(LISTING_BODY.attributes),
      status,
      count,
      dueInSeconds ?? null,
    ],
  );
  // Seeded as processed (renditions named, not stored): the bench's worker must not spend the
  // run failing to fetch 100,000 made-up URLs.
  await db.query(
    `INSERT INTO listing_images (listing_id, url, position, status, width, height, variants)
     SELECT l.id, u.url, p, 'ready', 1600, 1200, jsonb_build_object(
       'thumb', u.url || '-thumb.webp', 'medium', u.url || '-medium.webp', 'large', u.url || '-large.webp')
     FROM listings l CROSS JOIN generate_series(0, 2) AS p
     CROSS JOIN LATERAL (SELECT 'https://img.example.com/' || l.id || '/' || p || '.jpg' AS url) u
     WHERE l.account_id = $1 AND right(l.external_id, 1) IN ('0', '3', '6')`,
    [accountId],
  );
  // Settle the tables now, so autovacuum does not wake up in the middle of a measurement.
  await db.query('VACUUM ANALYZE listings, listing_images, listing_count_deltas');
  return rows.map((r) => r.id);
}
