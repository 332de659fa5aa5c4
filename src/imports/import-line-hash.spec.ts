import { lineHash } from './import-line-hash';

describe('lineHash', () => {
  const line = Buffer.from('{"externalId":"a-1","title":"Cykel","price":100}');

  it('is the same for the same content under the same reference data', () => {
    expect(lineHash('ref-1', line).equals(lineHash('ref-1', Buffer.from(line)))).toBe(true);
  });

  it('differs for other reference data, another value, or the same fields written otherwise', () => {
    const hash = lineHash('ref-1', line);
    expect(hash.equals(lineHash('ref-2', line))).toBe(false);
    const other = Buffer.from('{"externalId":"a-1","title":"Cykel","price":101}');
    expect(hash.equals(lineHash('ref-1', other))).toBe(false);
    const spaced = Buffer.from('{"externalId": "a-1", "title": "Cykel", "price": 100}');
    expect(hash.equals(lineHash('ref-1', spaced))).toBe(false);
  });
});
