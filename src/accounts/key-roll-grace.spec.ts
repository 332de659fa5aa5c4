import { ValidationError } from '../common/errors/domain-error';
import { assertKeyRollGraceMs, KEY_ROLL_GRACE_NAMES, keyRollGraceMs } from './key-roll-grace';

describe('key roll grace', () => {
  it('offers now, 1 hour, 24 hours and 7 days', () => {
    expect(KEY_ROLL_GRACE_NAMES).toEqual(['0', '1h', '24h', '7d']);
    expect(keyRollGraceMs('0')).toBe(0);
    expect(keyRollGraceMs('now')).toBe(0);
    expect(keyRollGraceMs('1h')).toBe(3_600_000);
    expect(keyRollGraceMs('24h')).toBe(86_400_000);
    expect(keyRollGraceMs('7d')).toBe(604_800_000);
  });

  it.each(['2h', '', '1d', '24', 'constructor', '__proto__', '7D'])(
    'refuses %j naming the field',
    (name) => {
      expect(() => keyRollGraceMs(name)).toThrow(ValidationError);
      try {
        keyRollGraceMs(name, 'grace');
      } catch (error) {
        expect((error as ValidationError).details).toEqual([
          { field: 'grace', message: 'grace must be one of 0, 1h, 24h, 7d.' },
        ]);
      }
    },
  );

  it('accepts only the choices in milliseconds', () => {
    for (const ms of [0, 3_600_000, 86_400_000, 604_800_000])
      expect(() => assertKeyRollGraceMs(ms)).not.toThrow();
    for (const ms of [1, -1, 60_000, 2 * 86_400_000, Number.NaN])
      expect(() => assertKeyRollGraceMs(ms)).toThrow(ValidationError);
  });
});
