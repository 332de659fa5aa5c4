import { types } from 'pg';
import { parseTimestamptz } from './timestamptz-parser';

const general = types.getTypeParser(types.builtins.TIMESTAMPTZ, 'text');

describe('parseTimestamptz', () => {
  it.each([
    '2026-11-23 18:24:00+00',
    '2026-11-23 18:24:00.1+00',
    '2026-11-23 18:24:00.12+00',
    '2026-11-23 18:24:00.123+00',
    '2026-11-23 18:24:00.123456+00',
    '2026-11-23 18:24:00.999999+00',
    '2024-02-29 23:59:59.000500+00',
    '1970-01-01 00:00:00+00',
    '9999-12-31 23:59:59.999999+00',
  ])('reads %s as the general parser does, to the millisecond', (text) => {
    expect(parseTimestamptz(text).toISOString()).toBe((general(text) as Date).toISOString());
  });

  it('truncates microseconds rather than rounding them', () => {
    expect(parseTimestamptz('2026-11-23 18:24:00.123999+00').toISOString()).toBe(
      '2026-11-23T18:24:00.123Z',
    );
  });

  it.each([
    '2026-11-23 19:24:00.5+01',
    '2026-11-23 13:24:00-05:30',
    '0050-06-01 12:00:00+00',
    '0050-06-01 12:00:00+00 BC',
    '12026-11-23 18:24:00+00',
  ])(
    'agrees with the general parser on %s (other offsets, BC, years outside 1000–9999)',
    (text) => {
      expect(parseTimestamptz(text).getTime()).toBe((general(text) as Date).getTime());
    },
  );

  it('agrees with the general parser on random instants', () => {
    for (let i = 0; i < 2_000; i++) {
      const at = new Date(Date.UTC(1000, 0, 1) + Math.random() * 9e12 * 30);
      const micros = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
      const text = `${at.toISOString().slice(0, 19).replace('T', ' ')}.${micros.slice(0, 1 + (i % 6))}+00`;
      expect(parseTimestamptz(text).getTime()).toBe((general(text) as Date).getTime());
    }
  });
});
