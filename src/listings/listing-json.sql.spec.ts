import type { ListingRow } from './listing-row';
import { galleryJsonSql, imageJsonSql, listingJsonSql } from './listing-json.sql';
import { toListingResponse } from './listing.mapper';

/** The keys a rendering writes, in order: each `"key":` the SQL text spells out. */
const keysOf = (sql: string) => [...sql.matchAll(/"(\w+)":/g)].map((m) => m[1]);

describe('listingJsonSql', () => {
  const sql = listingJsonSql('r', 'gallery');

  it('writes the keys toListingResponse writes, in the same order', () => {
    const row = {
      images: [],
      created_at: new Date(0),
      updated_at: new Date(0),
      published_at: null,
      expires_at: null,
      sold_at: null,
      removed_at: null,
    } as unknown as ListingRow;
    expect(keysOf(sql)).toEqual(Object.keys(toListingResponse(row)));
  });

  it('reads every column through the given alias and the gallery from the given expression', () => {
    const columns = [...sql.matchAll(/\b(\w+)\.(\w+)\b/g)].map((m) => m[1]);
    expect(new Set(columns)).toEqual(new Set(['r']));
    expect(sql).toContain(`',"images":' || gallery`);
  });

  it('writes null for each nullable column, never a missing value', () => {
    for (const column of ['external_id', 'phone']) {
      expect(sql).toContain(`COALESCE(to_json(r.${column})::text, 'null')`);
    }
    for (const column of ['published_at', 'expires_at', 'sold_at', 'removed_at']) {
      expect(sql).toContain(`COALESCE('"' || api_timestamp(r.${column}) || '"', 'null')`);
    }
  });

  it('escapes every free-text column through to_json', () => {
    for (const column of ['title', 'description', 'currency', 'category_slug', 'location_lan']) {
      expect(sql).toContain(`to_json(r.${column})::text`);
    }
  });
});

describe('galleryJsonSql', () => {
  const sql = galleryJsonSql('i');

  it('writes the image record per image, by position, and [] for none', () => {
    expect(keysOf(sql)).toEqual([
      ...['id', 'url', 'order', 'status', 'width', 'height', 'variants'],
      ...['thumb', 'medium', 'large', 'error', 'reason', 'message'],
    ]);
    expect(sql).toContain(`ORDER BY i.position`);
    expect(sql).toMatch(/^COALESCE\(.*, '\[\]'\)$/s);
  });
});

describe('imageJsonSql', () => {
  it('builds the keys galleryJsonSql writes, in the same order', () => {
    const built = [...imageJsonSql('i').matchAll(/[(\s]'(\w+)', /g)].map((m) => m[1]);
    expect(built).toEqual(keysOf(galleryJsonSql('i')));
  });
});
