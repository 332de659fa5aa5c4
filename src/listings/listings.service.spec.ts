import type { UpdateListingDto } from './dto/update-listing.dto';
import type { ListingContent } from './listing-row';
import { mergePatchChecked } from './listings.service';

const current: ListingContent = {
  externalId: 'ext-1',
  title: 'Volvo V70 2.4',
  description: 'Välskött',
  price: 45_000,
  condition: 'GOOD',
  categorySlug: 'bilar',
  locationLan: '01',
  locationKommun: '0180',
  phone: '+46701234567',
  attributes: { year: 2008 },
};
const merge = (dto: Record<string, unknown>, skip?: ReadonlySet<string>) =>
  mergePatchChecked(current, dto as UpdateListingDto, skip);
const patch = (dto: Record<string, unknown>) => {
  const { next, errors } = merge(dto);
  expect(errors).toEqual([]);
  return next;
};

describe('mergePatchChecked', () => {
  it('an empty body changes nothing, and the current content is not mutated', () => {
    const before = structuredClone(current);
    expect(patch({})).toEqual(current);
    expect(patch({})).not.toBe(current);
    expect(current).toEqual(before);
  });

  it('changes only the fields sent', () => {
    expect(patch({ price: 1, title: 'Ny' })).toEqual({ ...current, price: 1, title: 'Ny' });
  });

  it('replaces attributes as a whole rather than merging them', () => {
    expect(patch({ attributes: { colour: 'röd' } }).attributes).toEqual({ colour: 'röd' });
  });

  it('null clears an optional field; attributes clear to {}', () => {
    expect(patch({ phone: null, externalId: null, attributes: null })).toEqual({
      ...current,
      phone: null,
      externalId: null,
      attributes: {},
    });
  });

  it('refuses null for required fields, naming each of them and keeping their values', () => {
    expect(merge({ title: null, price: null, phone: null })).toEqual({
      next: { ...current, phone: null },
      errors: [
        { field: 'title', message: 'title cannot be null' },
        { field: 'price', message: 'price cannot be null' },
      ],
    });
  });

  it('keeps the fields it is told were refused already, unnamed', () => {
    expect(merge({ title: null, price: 5, phone: null }, new Set(['title', 'price']))).toEqual({
      next: { ...current, phone: null },
      errors: [],
    });
  });

  it('ignores fields outside the content: images are the gallery’s business', () => {
    expect(patch({ images: [{ url: 'https://img.example.com/a.jpg' }] })).toEqual(current);
  });

  it('keeps falsy values that are not null: 0 and the empty object', () => {
    expect(patch({ price: 0, attributes: {} })).toEqual({ ...current, price: 0, attributes: {} });
  });
});
