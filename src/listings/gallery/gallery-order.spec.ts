import { orderPayloadImages, resolveInsertPosition } from './gallery-order';

describe('gallery ordering', () => {
  describe('resolveInsertPosition (spec rules 5–7)', () => {
    it.each([
      ['appends without an order', 3, undefined, 3],
      ['appends with a null order', 3, null, 3],
      ['order 0 on an empty gallery lands at 0', 0, 0, 0],
      ['order 0 on a non-empty gallery lands at 1 (existing image first on ties)', 3, 0, 1],
      ['order 1 on 3 images lands at 2', 3, 1, 2],
      ['order 29 on 2 images lands at 2', 2, 29, 2],
      ['order 5 on 10 images lands at 6', 10, 5, 6],
    ])('%s', (_name, count, requested, expected) => {
      expect(resolveInsertPosition(count, requested)).toBe(expected);
    });
  });

  describe('orderPayloadImages (create and replace payloads)', () => {
    it('sorts by order, ties by array position, unordered last', () => {
      const items = [
        { url: 'a', order: 2 },
        { url: 'b' },
        { url: 'c', order: 0 },
        { url: 'd', order: 2 },
        { url: 'e', order: null },
        { url: 'f', order: 1 },
      ];
      expect(
        orderPayloadImages<{ url: string; order?: number | null }>(items).map((i) => i.url),
      ).toEqual(['c', 'f', 'a', 'd', 'b', 'e']);
    });

    it('keeps the array order when no item has an order', () => {
      expect(
        orderPayloadImages<{ url: string; order?: number }>([{ url: 'x' }, { url: 'y' }]).map(
          (i) => i.url,
        ),
      ).toEqual(['x', 'y']);
    });
  });
});
