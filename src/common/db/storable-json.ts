/** In JSON text: an escaped U+0000 or an escaped lone surrogate (JSON.stringify escapes only lone ones). */
const UNSTORABLE = /\\u0000|\\ud[89a-f]/i;

/**
 * JSON that PostgreSQL's jsonb and text accept. Neither can hold U+0000 or a lone surrogate, which
 * text quoted from a caller's file (an externalId, a parser's message) may carry: each such string
 * shows U+FFFD in their place. Serialised a second time only then, so the common case costs one
 * search of the text.
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (!UNSTORABLE.test(json)) return json;
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' ? v.toWellFormed().replaceAll('\0', '\uFFFD') : v,
  );
}
