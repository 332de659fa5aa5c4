import { PackedStrings } from './packed-strings';

describe('PackedStrings', () => {
  it('numbers strings by when they were added and finds each by its every code unit', () => {
    const set = new PackedStrings();
    const values = ['a', 'ab', '', 'é', 'ÿ', 'Ā', '日本', '😀', 'a\u0000b', 'ab '];
    values.forEach((value, i) => expect(set.add(value)).toBe(i));
    values.forEach((value, i) => {
      expect(set.indexOf(value)).toBe(i);
      expect(set.at(i)).toBe(value);
      expect(set.add(value)).toBe(i);
    });
    expect(set.size).toBe(values.length);
    expect(set.indexOf('b')).toBe(-1);
    expect(set.indexOf('a\u0100')).toBe(-1);
  });

  it('keeps every string through growth, trim and growth again', () => {
    const set = new PackedStrings();
    const value = (i: number) => (i % 7 === 0 ? `wide-${i}-Ω` : `id-${i}`);
    for (let i = 0; i < 5_000; i++) expect(set.add(value(i))).toBe(i);
    set.trim();
    for (let i = 0; i < 5_000; i++) expect(set.indexOf(value(i))).toBe(i);
    for (let i = 5_000; i < 12_000; i++) expect(set.add(value(i))).toBe(i);
    for (let i = 0; i < 12_000; i++) {
      expect(set.indexOf(value(i))).toBe(i);
      expect(set.at(i)).toBe(value(i));
    }
    expect(set.indexOf('id-12000')).toBe(-1);
  });

  it('trims an empty set and adds to it after', () => {
    const set = new PackedStrings();
    set.trim();
    expect(set.add('x')).toBe(0);
    expect(set.add('Ω')).toBe(1);
    expect(set.at(1)).toBe('Ω');
  });
});
