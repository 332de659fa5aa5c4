import { types } from 'pg';

const parseAnyTimestamptz = types.getTypeParser(types.builtins.TIMESTAMPTZ, 'text');

/** By position, for UTC output; other offsets, BC, infinity and odd years: the general parser. */
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
