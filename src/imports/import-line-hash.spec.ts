import { lineHash } from './import-line-hash';

describe('lineHash', () => {
  const body = { externalId: 'a-1', title: 'Cykel', price: 100, attributes: { color: 'red' } };

  it('is the same for a line read the same, under the same reference data', () => {
    expect(lineHash('ref-1', body).equals(lineHash('ref-1', structuredClone(body)))).toBe(true);
  });

  it('differs for other reference data, another value, or the fields in another order', () => {
    const hash = lineHash('ref-1', body);
    expect(hash.equals(lineHash('ref-2', body))).toBe(false);
    expect(hash.equals(lineHash('ref-1', { ...body, price: 101 }))).toBe(false);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect(hash.equals(lineHash('ref-1', reordered))).toBe(false);
  });
});
