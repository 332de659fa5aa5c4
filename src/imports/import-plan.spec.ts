import { ValidationError } from '../common/errors/domain-error';
import { finalStatus, FirstLines, lineError, removalLimit } from './import-plan';

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
      expect(lines.externalIds()).toEqual(['a', 'c']);
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
