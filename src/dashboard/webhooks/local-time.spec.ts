import { ValidationError } from '../../common/errors/domain-error';
import { fromLocalDateTime, toLocalDateTime } from './local-time';

describe('datetime-local in Stockholm time', () => {
  it('reads winter and summer times with their offsets', () => {
    expect(fromLocalDateTime('2026-01-15T10:00', 'since').toISOString()).toBe(
      '2026-01-15T09:00:00.000Z',
    );
    expect(fromLocalDateTime('2026-07-15T10:30', 'since').toISOString()).toBe(
      '2026-07-15T08:30:00.000Z',
    );
  });

  it('writes an instant back as the same wall time', () => {
    expect(toLocalDateTime(new Date('2026-07-15T08:30:00Z'))).toBe('2026-07-15T10:30');
  });

  it.each(['', 'yesterday', '2026-02-30T10:00', '2026-01-01T25:00', '2026-01-01 10:00'])(
    'refuses %p on the named field',
    (value) => {
      try {
        fromLocalDateTime(value, 'since');
        throw new Error('accepted');
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).details?.[0].field).toBe('since');
      }
    },
  );
});
