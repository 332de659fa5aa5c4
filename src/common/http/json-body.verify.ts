import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { ValidationError } from '../errors/domain-error';
import { MAX_JSON_DEPTH } from './json-depth.middleware';

/** More keys than any object of this API has; validating wider objects costs seconds. */
export const MAX_JSON_KEYS = 200;

/** A key longer than this is shown as `…` in a path: the answer stays small. */
const MAX_KEY_IN_PATH = 64;

/**
 * The path (`body`, `attributes`, `items[3].attributes`) of the first object in the JSON text with
 * more than `limit` keys, or undefined. It scans the text without parsing it, so a hostile body
 * costs one pass over its characters and no objects; text that is not JSON gives no answer here
 * and is refused by the parser.
 */
export function firstWideObject(text: string, limit: number): string | undefined {
  // One entry per open object or array, innermost last. Deeper text is refused after parsing
  // (jsonDepthMiddleware), so the scan stops there.
  const isObject = new Uint8Array(MAX_JSON_DEPTH);
  const count = new Int32Array(MAX_JSON_DEPTH); // keys so far (object) or the current index (array)
  const keyStart = new Int32Array(MAX_JSON_DEPTH); // the key the container is the value of
  const keyEnd = new Int32Array(MAX_JSON_DEPTH);
  let depth = 0;
  let expectKey = false;
  let lastKeyStart = -1;
  let lastKeyEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const j = closingQuote(text, i);
      if (expectKey && depth > 0) {
        expectKey = false;
        lastKeyStart = i;
        lastKeyEnd = j + 1;
        if (++count[depth - 1] > limit)
          return pathOf(text, depth, isObject, count, keyStart, keyEnd);
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (depth === MAX_JSON_DEPTH) return undefined;
      isObject[depth] = c === 0x7b ? 1 : 0;
      count[depth] = 0;
      keyStart[depth] = lastKeyStart;
      keyEnd[depth] = lastKeyEnd;
      depth++;
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (depth > 0) depth--;
      expectKey = false;
    } else if (c === 0x2c /* , */ && depth > 0) {
      if (isObject[depth - 1]) expectKey = true;
      else count[depth - 1]++;
    }
  }
  return undefined;
}

/** Where the string opened at `open` ends (the text's length when it never does). */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

function pathOf(
  text: string,
  depth: number,
  isObject: Uint8Array,
  count: Int32Array,
  keyStart: Int32Array,
  keyEnd: Int32Array,
): string {
  let path = '';
  for (let d = 1; d < depth; d++) {
    if (!isObject[d - 1]) {
      path += `[${count[d - 1]}]`;
      continue;
    }
    let key = '…';
    try {
      const decoded: unknown = JSON.parse(text.slice(keyStart[d], keyEnd[d]));
      if (typeof decoded === 'string' && decoded.length <= MAX_KEY_IN_PATH) key = decoded;
    } catch {
      // not reached for JSON; a path with `…` is still a path
    }
    path += path ? `.${key}` : key;
  }
  return path || 'body';
}

/** The body's text in its declared charset, or undefined when its bytes are not that charset. */
function decodeBody(buf: Buffer, encoding: string): string | undefined {
  if (encoding === 'utf-8' || encoding === 'utf8') {
    return isUtf8(buf) ? buf.toString('utf8') : undefined;
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch {
    throw ValidationError.field('Content-Type', 'The body charset is not supported; use UTF-8.');
  }
  try {
    return decoder.decode(buf);
  } catch {
    return undefined;
  }
}

/**
 * The JSON parser's `verify` hook, run on the raw bytes before they are parsed: bytes that are not
 * valid in the body's charset are refused rather than replaced with U+FFFD, and so is an object
 * wider than MAX_JSON_KEYS, before any parsing or validation work is spent on it.
 */
export function verifyJsonBody(
  _req: IncomingMessage,
  _res: unknown,
  buf: Buffer,
  encoding: string,
): void {
  const text = decodeBody(buf, encoding.toLowerCase());
  if (text === undefined) {
    throw ValidationError.field('body', `The body is not valid ${encoding.toUpperCase()}.`);
  }
  const wide = firstWideObject(text, MAX_JSON_KEYS);
  if (wide !== undefined) {
    const what = wide === 'body' ? 'The body' : wide;
    throw ValidationError.field(wide, `${what} has more than ${MAX_JSON_KEYS} keys.`);
  }
}
