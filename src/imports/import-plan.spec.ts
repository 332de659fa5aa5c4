import { ValidationError } from '../common/errors/domain-error';
import { finalStatus, FirstLines, KnownLines, lineError, removalLimit } from './import-plan';

/** The externalIds a FirstLines sends PostgreSQL, read back from array_recv's layout. */
function noted(lines: FirstLines): string[] {
  const param = lines.externalIdsParam();
  if (param.readInt32BE(0) === 0) return [];
  const count = param.readInt32BE(12);
  const ids: string[] = [];
  for (let i = 0, at = 20; i < count; i++) {
    const length = param.readInt32BE(at);
    ids.push(param.toString('utf8', at + 4, at + 4 + length));
    at += 4 + length;
  }
  return ids;
}

describe('import plan', () => {
  describe('removalLimit', () => {
    it('is maxRemovals when the request names one, 0 included', () => {
      expect(removalLimit(3, 1_000)).toBe(3);
      expect(removalLimit(0, 1_000)).toBe(0);
    });

    it('is 10% of what the import could remove, rounded up', () => {
      expect(removalLimit(null, 1_000)).toBe(100);
      expect(removalLimit(null, 1_001)).toBe(101);
    });

    it('is at least 10', () => {
      expect(removalLimit(null, 0)).toBe(10);
      expect(removalLimit(null, 99)).toBe(10);
    });
  });

  describe('FirstLines', () => {
    it('names the first line of a repeated externalId to every later one', () => {
      const lines = new FirstLines();
      lines.note('a', 1);
      lines.note('b', 2);
      lines.note('a', 5);
      expect(lines.duplicateOf('a', 1)).toBeUndefined();
      expect(lines.duplicateOf('a', 5)).toBe(1);
      expect(lines.duplicateOf('b', 2)).toBeUndefined();
    });

    it('keeps every externalId of the feed, failed lines included, but only strings', () => {
      const lines = new FirstLines();
      lines.note('a', 1);
      lines.note(42, 2);
      lines.note(undefined, 3);
      lines.note('c', 4);
      expect(noted(lines)).toEqual(['a', 'c']);
    });

    it('tells apart ids that differ only past Latin-1, by a lone surrogate or by U+0000', () => {
      const lines = new FirstLines();
      const ids = ['ö-1', 'ő-1', '\ud800x', '\udc00x', 'a\u0000', 'a', 'é'.normalize('NFD')];
      ids.forEach((id, i) => lines.note(id, i + 1));
      // Kept apart in memory (on the wire a lone surrogate becomes U+FFFD, as PostgreSQL needs).
      const kept = ids.filter((id) => !id.includes('\0'));
      const entries = kept.map((id) => lines.entryOf(id));
      expect(new Set(entries).size).toBe(kept.length);
      expect(entries.map((entry) => lines.externalIdAt(entry))).toEqual(kept);
      expect(lines.duplicateOf('ő-1', 9)).toBe(2);
      expect(lines.duplicateOf('\udc00x', 9)).toBe(4);
      expect(lines.duplicateOf('a\u0000', 9)).toBeUndefined();
      expect(lines.duplicateOf('ø-1', 9)).toBeUndefined();
    });

    it('keeps the first line of each of many ids, in the order noted', () => {
      const lines = new FirstLines();
      for (let i = 0; i < 50_000; i++) lines.note(`id-${i % 20_000}`, i + 1);
      lines.trim(); // as once the file is read: nothing changes
      expect(noted(lines)).toHaveLength(20_000);
      expect(noted(lines)[19_999]).toBe('id-19999');
      expect(lines.duplicateOf('id-7', 8)).toBeUndefined();
      expect(lines.duplicateOf('id-7', 20_008)).toBe(8);
      expect(lines.duplicateOf('id-20000', 1)).toBeUndefined();
    });
  });

  describe('KnownLines', () => {
    const hit = (externalId: string, n: number, renewalDue = false) => ({
      externalId,
      listingId: `0190a3c2-7b1e-7c3d-8e4f-${String(n).padStart(12, '0')}`,
      renewalDue,
    });

    it('gives back each line found as it was set, until deleted', () => {
      const firstLines = new FirstLines();
      const known = new KnownLines(firstLines);
      for (let line = 1; line <= 5_000; line += 2) {
        firstLines.note(`id-${line}`, line);
        known.set(line, hit(`id-${line}`, line, line % 3 === 0));
      }
      firstLines.trim();
      known.trim(); // as once the read pass has set them all: nothing changes
      expect(known.get(2)).toBeUndefined();
      expect(known.get(3)).toEqual(hit('id-3', 3, true));
      expect(known.get(4_999)).toEqual(hit('id-4999', 4_999, false));
      known.delete(3);
      expect(known.get(3)).toBeUndefined();
      expect(known.get(5)).toEqual(hit('id-5', 5));
    });

    it('keeps a line set out of order, or one whose id is not a UUID, as it was set', () => {
      const firstLines = new FirstLines();
      const known = new KnownLines(firstLines);
      firstLines.note('a', 1);
      firstLines.note('b', 2);
      known.set(5, hit('a', 5));
      known.set(2, hit('b', 2));
      known.set(7, { externalId: 'b', listingId: 'NOT-A-UUID', renewalDue: true });
      known.set(9, hit('never-noted', 9));
      expect(known.get(5)).toEqual(hit('a', 5));
      expect(known.get(2)).toEqual(hit('b', 2));
      expect(known.get(7)).toEqual({ externalId: 'b', listingId: 'NOT-A-UUID', renewalDue: true });
      expect(known.get(9)).toEqual(hit('never-noted', 9));
      known.delete(2);
      expect(known.get(2)).toBeUndefined();
    });

    it('tells a line that writes nothing: found, and not due or not renewing', () => {
      const firstLines = new FirstLines();
      const known = new KnownLines(firstLines);
      firstLines.note('plain', 1);
      firstLines.note('due', 2);
      known.set(1, hit('plain', 1));
      known.set(2, hit('due', 2, true));
      known.set(9, hit('never-noted', 9, true)); // kept apart, as above
      expect([1, 2, 9].map((line) => known.writesNothing(line, false))).toEqual([true, true, true]);
      expect([1, 2, 9].map((line) => known.writesNothing(line, true))).toEqual([
        true,
        false,
        false,
      ]);
      expect(known.writesNothing(3, false)).toBe(false); // not found: read and written
      known.delete(1);
      expect(known.writesNothing(1, false)).toBe(false);
    });
  });

  it('finishes with errors when any line failed', () => {
    expect(finalStatus({ failed: 0 })).toBe('succeeded');
    expect(finalStatus({ failed: 1 })).toBe('succeeded_with_errors');
  });

  it("keeps a failed line's error as the PUT would answer it", () => {
    const error = ValidationError.field('price', 'price must not be less than 0');
    expect(lineError(error)).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'price must not be less than 0',
      details: [{ field: 'price', message: 'price must not be less than 0' }],
    });
  });
});
