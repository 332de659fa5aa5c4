import { types } from 'pg';

const parseAnyTimestamptz = types.getTypeParser(types.builtins.TIMESTAMPTZ, 'text');

/**
 * Parses a timestamptz as PostgreSQL writes it in a UTC session, `2026-11-23 18:24:00.123456+00`,
 * by position instead of the general parser's three regular expressions (a list page parses 120
 * timestamps; docs/performance.md has the cost). Truncates to milliseconds, as the general
 * parser does; years outside 1000–9999, BC, infinity and other offsets take the general parser.
 */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (n < 22 || text[4] !== '-' || text[10] !== ' ' || text[0] === '0' || !text.endsWith('+00'))
    return parseAnyTimestamptz(text) as Date;
  // The fraction, when present, is 1–6 digits after the period at 19.
  const ms = n > 22 ? Number(text.slice(20, Math.min(n - 3, 23)).padEnd(3, '0')) : 0;
  return new Date(
    Date.UTC(
      Number(text.slice(0, 4)),
      Number(text.slice(5, 7)) - 1,
      Number(text.slice(8, 10)),
      Number(text.slice(11, 13)),
      Number(text.slice(14, 16)),
      Number(text.slice(17, 19)),
      ms,
    ),
  );
}
