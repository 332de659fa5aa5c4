import {
  galleryRows,
  IdentifiedListing,
  inInputOrder,
  insertCreatedQuery,
} from './listing-insert-rows';
import { IMAGE_PRIORITY } from './gallery/image-priority';
import type { ListingRow } from './listing-row';

const RETURNING = 'id, title';

function listing(
  id: string,
  urls: string[] = [],
  externalId: string | null = null,
): IdentifiedListing {
  return {
    id,
    scope: { accountId: 'acc-1', livemode: true },
    status: 'ACTIVE',
    validityMs: 2_592_000_000,
    images: urls.map((url) => ({ url })),
    externalId,
    title: `Bike ${id}`,
    description: 'A bike',
    price: 1200,
    condition: 'GOOD',
    categorySlug: 'bikes',
    locationLan: 'Stockholm',
    locationKommun: 'Solna',
    phone: null,
    attributes: { gears: 3 },
  };
}

const row = (id: string) => ({ id }) as ListingRow;

describe('insertCreatedQuery: the statement and parameters of a create', () => {
  it('a listing without images inserts no gallery rows and passes only the listings', () => {
    const { sql, params } = insertCreatedQuery([listing('a')], RETURNING, IMAGE_PRIORITY.request);
    expect(sql).not.toContain('listing_images');
    expect(sql).toContain(`'[]'::json AS images`);
    expect(params).toHaveLength(1);
  });

  it('a batch in which no listing has images inserts no gallery rows either', () => {
    const { sql, params } = insertCreatedQuery(
      [listing('a'), listing('b')],
      RETURNING,
      IMAGE_PRIORITY.request,
    );
    expect(sql).not.toContain('INSERT INTO listing_images');
    expect(params).toHaveLength(1);
  });

  it('with images, the gallery is inserted from four arrays (listing ids, urls, positions, accounts) and the priority', () => {
    const { sql, params } = insertCreatedQuery(
      [listing('a', ['a0', 'a1']), listing('b'), listing('c', ['c0'])],
      RETURNING,
      IMAGE_PRIORITY.bulk,
    );
    expect(sql).toContain(
      'INSERT INTO listing_images (listing_id, url, position, account_id, priority)',
    );
    expect(sql).toContain('FROM gallery g WHERE g.listing_id = new.id');
    expect(params.slice(1)).toEqual([
      ['a', 'a', 'c'],
      ['a0', 'a1', 'c0'],
      [0, 1, 0],
      ['acc-1', 'acc-1', 'acc-1'],
      IMAGE_PRIORITY.bulk,
    ]);
  });

  it('the listings are one JSON recordset: owner from the scope, no scope and no images', () => {
    const { params } = insertCreatedQuery(
      [listing('a', ['a0'], 'ext-1')],
      RETURNING,
      IMAGE_PRIORITY.request,
    );
    const [recordset] = JSON.parse(params[0] as string);
    expect(recordset).toEqual({
      id: 'a',
      accountId: 'acc-1',
      livemode: true,
      status: 'ACTIVE',
      validityMs: 2_592_000_000,
      externalId: 'ext-1',
      title: 'Bike a',
      description: 'A bike',
      price: 1200,
      condition: 'GOOD',
      categorySlug: 'bikes',
      locationLan: 'Stockholm',
      locationKommun: 'Solna',
      phone: null,
      attributes: { gears: 3 },
    });
  });

  it('returns the columns asked for and writes one listing.created event per listing', () => {
    const { sql } = insertCreatedQuery([listing('a')], RETURNING, IMAGE_PRIORITY.request);
    expect(sql).toContain(`RETURNING ${RETURNING})`);
    expect(sql).toContain(`SELECT account_id, 'listing.created'`);
    expect(sql).toMatch(/FROM new\)\s+SELECT new\.\*/);
  });
});

describe('galleryRows', () => {
  it('positions each listing’s images from 0 in the order they were given', () => {
    expect(galleryRows([listing('a', ['x', 'y']), listing('b', ['z'])])).toEqual([
      { listingId: 'a', accountId: 'acc-1', url: 'x', position: 0 },
      { listingId: 'a', accountId: 'acc-1', url: 'y', position: 1 },
      { listingId: 'b', accountId: 'acc-1', url: 'z', position: 0 },
    ]);
  });
});

describe('inInputOrder', () => {
  it('rows come back in the order the listings were given, whatever order RETURNING used', () => {
    const rows = [row('c'), row('a'), row('b')];
    expect(inInputOrder([{ id: 'a' }, { id: 'b' }, { id: 'c' }], rows)).toEqual([
      row('a'),
      row('b'),
      row('c'),
    ]);
  });
});
