import { ValidationError } from '../../common/errors/domain-error';
import { recoverableSince } from './webhook-deliveries.service';

const DAY = 24 * 3600 * 1000;
const now = Date.parse('2026-03-31T12:00:00.000Z');
const fieldError = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details;
  }
  throw new Error('did not throw');
};

describe('recoverableSince', () => {
  it('takes a moment within the retention as it is', () => {
    expect(recoverableSince('2026-03-30T12:00:00.000Z', 30 * DAY, now)).toEqual(
      new Date('2026-03-30T12:00:00.000Z'),
    );
  });

  it('holds both ends inclusive: now, and exactly the retention ago', () => {
    expect(recoverableSince(new Date(now).toISOString(), 30 * DAY, now).getTime()).toBe(now);
    expect(recoverableSince(new Date(now - 30 * DAY).toISOString(), 30 * DAY, now).getTime()).toBe(
      now - 30 * DAY,
    );
  });

  it('refuses a moment in the future, on since', () => {
    expect(fieldError(() => recoverableSince(new Date(now + 1).toISOString(), DAY, now))).toEqual([
      { field: 'since', message: 'since must not be in the future.' },
    ]);
  });

  it('refuses a moment past the retention, on since', () => {
    const details = fieldError(() =>
      recoverableSince(new Date(now - DAY - 1).toISOString(), DAY, now),
    );
    expect(details).toEqual([
      {
        field: 'since',
        message: 'since lies beyond the event retention; events that old are no longer kept.',
      },
    ]);
  });

  it('reads an offset time zone as the moment it names', () => {
    expect(recoverableSince('2026-03-31T13:00:00+02:00', DAY, now).toISOString()).toBe(
      '2026-03-31T11:00:00.000Z',
    );
  });
});
