import { ForbiddenError, ValidationError } from '../../common/errors/domain-error';
import { formats } from './format';
import { FormState } from './form';

describe('FormState', () => {
  it('turns a ValidationError into the summary and the message per field, keeping the values', () => {
    const error = new ValidationError([
      { field: 'email', message: 'Enter your email address.' },
      { field: 'company', message: 'Enter your company name.' },
    ]);
    const state = FormState.refused(error, { email: '', company: '' });
    expect(state.hasErrors).toBe(true);
    expect(state.errors.map((e) => e.field)).toEqual(['email', 'company']);
    expect(state.error('company')).toBe('Enter your company name.');
    expect(state.error('password')).toBeUndefined();
    expect(state.value('email')).toBe('');
  });

  it('throws anything but a ValidationError again (403, 404, 429 and 500 are pages of their own)', () => {
    const forbidden = new ForbiddenError('no');
    expect(() => FormState.refused(forbidden, {})).toThrow(forbidden);
    expect(() => FormState.refused(new Error('boom'), {})).toThrow('boom');
  });

  it('an empty state has no errors', () => {
    expect(FormState.empty({ email: 'a@b.se' }).hasErrors).toBe(false);
    expect(FormState.empty({ email: 'a@b.se' }).value('email')).toBe('a@b.se');
  });
});

describe('Swedish formats', () => {
  it('dates and times in Stockholm time, ISO-like', () => {
    expect(formats.date(new Date('2026-11-29T23:30:00Z'))).toBe('2026-11-30');
    expect(formats.dateTime(new Date('2026-07-01T10:05:00Z'))).toBe('2026-07-01 12:05');
    expect(formats.dateTime(null)).toBe('');
  });

  it('numbers, kronor and percent', () => {
    expect(formats.number(1234567)).toBe('1\u00a0234\u00a0567');
    expect(formats.sek(1234.5)).toBe('1\u00a0234,50\u00a0kr');
    expect(formats.percent(0.125)).toBe('12,5\u00a0%');
  });
});
