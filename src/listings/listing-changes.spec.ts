import { listingChanges } from './listing-changes';
import { contentOf, ListingContent, ListingRow } from './listing-row';

const pending = {
  status: 'pending',
  width: null,
  height: null,
  variants: null,
  error: null,
} as const;

const stored = {
  id: 'l-1',
  account_id: 'acc-1',
  livemode: true,
  external_id: 'sku-1',
  title: 'Bike',
  description: 'A red bike',
  price: 1200,
  currency: 'SEK',
  condition: 'GOOD',
  category_slug: 'bikes',
  location_lan: 'Stockholm',
  location_kommun: 'Solna',
  phone: null,
  attributes: { gears: 3, colour: 'red' },
  status: 'ACTIVE',
  created_at: new Date('2030-01-01T00:00:00Z'),
  updated_at: new Date('2030-01-01T00:00:00Z'),
  published_at: new Date('2030-01-01T00:00:00Z'),
  expires_at: null,
  sold_at: null,
  expired_at: null,
  removed_at: null,
  removal_reason: null,
  images: [
    { id: 'i-1', url: 'https://img.example/a.jpg', order: 0, ...pending },
    { id: 'i-2', url: 'https://img.example/b.jpg', order: 1, ...pending },
  ],
} satisfies ListingRow;

const edit = (fields: Partial<ListingContent>): ListingContent => ({
  ...contentOf(stored),
  ...fields,
});
const urls = (...names: string[]) => names.map((n) => ({ url: `https://img.example/${n}.jpg` }));

describe('listingChanges: what an edit changes', () => {
  it('the same content and no images is no change at all', () => {
    expect(listingChanges(stored, edit({}), undefined)).toEqual({
      changes: {},
      gallery: undefined,
      changedFields: [],
    });
  });

  it('only the fields whose value differs are written and named', () => {
    const result = listingChanges(stored, edit({ title: 'Red bike', price: 900 }), undefined);
    expect(result.changes).toEqual({ title: 'Red bike', price: 900 });
    expect(result.changedFields).toEqual(['title', 'price']);
  });

  it('attributes compare by value: the same attributes in another key order are unchanged', () => {
    const result = listingChanges(
      stored,
      edit({ attributes: { colour: 'red', gears: 3 } }),
      undefined,
    );
    expect(result.changedFields).toEqual([]);
  });

  it('attributes with a changed value are written whole', () => {
    const attributes = { gears: 7, colour: 'red' };
    const result = listingChanges(stored, edit({ attributes }), undefined);
    expect(result.changes).toEqual({ attributes });
    expect(result.changedFields).toEqual(['attributes']);
  });

  it('clearing an optional field (phone to null, externalId to null) is a change', () => {
    const withPhone = { ...stored, phone: '+46701234567' };
    const result = listingChanges(withPhone, edit({ phone: null, externalId: null }), undefined);
    expect(result.changes).toEqual({ externalId: null, phone: null });
  });

  it('absent images keep the gallery: it is neither written nor named', () => {
    const result = listingChanges(stored, edit({ title: 'New' }), undefined);
    expect(result.gallery).toBeUndefined();
    expect(result.changedFields).not.toContain('images');
  });

  it('the same image urls in the same order are no change', () => {
    expect(listingChanges(stored, edit({}), urls('a', 'b')).changedFields).toEqual([]);
  });

  it('the same images in another order change the gallery', () => {
    const images = urls('b', 'a');
    const result = listingChanges(stored, edit({}), images);
    expect(result.gallery).toBe(images);
    expect(result.changedFields).toEqual(['images']);
    expect(result.changes).toEqual({});
  });

  it('an empty image list clears a gallery that had images', () => {
    const result = listingChanges(stored, edit({}), []);
    expect(result.gallery).toEqual([]);
    expect(result.changedFields).toEqual(['images']);
  });

  it('content changes are named before images', () => {
    const result = listingChanges(stored, edit({ description: 'Blue now' }), urls('c'));
    expect(result.changedFields).toEqual(['description', 'images']);
  });
});
