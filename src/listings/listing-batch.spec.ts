import { ValidationError } from '../common/errors/domain-error';
import { admitBatch } from './listing-batch';
import { ExternalIdTakenError } from './listings.errors';

interface Item {
  title: string;
  externalId?: string | null;
}

/** The service's `prepare` in miniature: an item without a title is refused. */
const prepare = (item: Item) => {
  if (!item.title) throw ValidationError.field('title', 'title is required');
  return { title: item.title, externalId: item.externalId ?? null };
};

describe('admitBatch: which bulk create items are inserted', () => {
  it('valid items are all admitted, in input order, with their input positions', () => {
    const { outcomes, pending } = admitBatch([{ title: 'a' }, { title: 'b' }], prepare);
    expect(pending).toEqual([
      { index: 0, listing: { title: 'a', externalId: null } },
      { index: 1, listing: { title: 'b', externalId: null } },
    ]);
    expect(outcomes).toHaveLength(2);
    expect(outcomes.filter((o) => o !== undefined)).toEqual([]);
  });

  it('an invalid item is refused at its own position and the others still go in', () => {
    const { outcomes, pending } = admitBatch(
      [{ title: 'a' }, { title: '' }, { title: 'c' }],
      prepare,
    );
    expect(pending.map((p) => p.index)).toEqual([0, 2]);
    expect(outcomes[1]).toBeInstanceOf(ValidationError);
    expect(outcomes[1].details).toEqual([{ field: 'title', message: 'title is required' }]);
    expect(outcomes[0]).toBeUndefined();
    expect(outcomes[2]).toBeUndefined();
  });

  it('the first use of an externalId in the batch wins; a later one is refused as taken', () => {
    const { outcomes, pending } = admitBatch(
      [
        { title: 'a', externalId: 'sku-1' },
        { title: 'b', externalId: 'sku-1' },
        { title: 'c', externalId: 'sku-2' },
      ],
      prepare,
    );
    expect(pending.map((p) => p.index)).toEqual([0, 2]);
    expect(outcomes[1]).toBeInstanceOf(ExternalIdTakenError);
    expect(outcomes[1].message).toBe("externalId 'sku-1' is already used by another listing");
  });

  it('an invalid item does not claim its externalId: the next valid use of it is admitted', () => {
    const { outcomes, pending } = admitBatch(
      [
        { title: '', externalId: 'sku-1' },
        { title: 'b', externalId: 'sku-1' },
      ],
      prepare,
    );
    expect(outcomes[0]).toBeInstanceOf(ValidationError);
    expect(outcomes[0]).not.toBeInstanceOf(ExternalIdTakenError);
    expect(pending).toEqual([{ index: 1, listing: { title: 'b', externalId: 'sku-1' } }]);
  });

  it('listings without an externalId never collide with each other', () => {
    const { pending } = admitBatch([{ title: 'a' }, { title: 'b', externalId: null }], prepare);
    expect(pending).toHaveLength(2);
  });

  it('an error that is not a refusal is thrown, not recorded as an outcome', () => {
    const broken = () => {
      throw new TypeError('bug');
    };
    expect(() => admitBatch([{ title: 'a' }], broken)).toThrow(TypeError);
  });

  it('an empty batch admits nothing', () => {
    expect(admitBatch([], prepare)).toEqual({ outcomes: [], pending: [] });
  });
});
