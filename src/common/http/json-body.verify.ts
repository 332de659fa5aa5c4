import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { json, type RequestHandler } from 'express';
import iconv from 'iconv-lite';
import { ValidationError } from '../errors/domain-error';
import { markInvalidUtf8 } from './invalid-utf8';

/** More keys than any object of this API has; validating wider objects costs seconds. */
export const MAX_JSON_KEYS = 200;
/** Twice the longest array any route takes (a bulk's 50 items); longer ones are refused unread. */
export const MAX_JSON_ITEMS = 100;
/** Deeper than any body of this API; far below what recursive validators can walk safely. */
export const MAX_JSON_DEPTH = 32;
/**
 * Values (objects, arrays and what they hold) in one body: over three times the largest valid
 * one, a bulk of 50 listings with 30 images each (about 5,500). Validation walks every value
 * several times, and its cost grows faster than their number.
 */
export const MAX_JSON_VALUES = 20_000;

/** A key longer than this is shown as `…` in a path: the answer stays small. */
const MAX_KEY_IN_PATH = 64;

/**
 * What makes a JSON text too costly to parse and validate, and where: an object with more than
 * MAX_JSON_KEYS keys, an array with more than MAX_JSON_ITEMS items (each at its path: `body`,
 * `attributes`, `items[3].attributes`), containers nested deeper than MAX_JSON_DEPTH, or more
 * than MAX_JSON_VALUES values in all (both at `body`).
 */
export interface JsonShapeFault {
  kind: 'keys' | 'items' | 'depth' | 'values';
  path: string;
}

/** The fault as a sentence about `what` holds it ("The body", "attributes", "the line"). */
export function describeShapeFault(what: string, fault: JsonShapeFault): string {
  if (fault.kind === 'keys') return `${what} has more than ${MAX_JSON_KEYS} keys`;
  if (fault.kind === 'items') return `${what} has more than ${MAX_JSON_ITEMS} items`;
  if (fault.kind === 'values') return `${what} holds more than ${MAX_JSON_VALUES} values`;
  return `${what} is nested more than ${MAX_JSON_DEPTH} levels deep`;
}

/**
 * The first shape fault of the JSON text, or undefined. It scans the text without parsing it, so a
 * hostile body costs one pass over its characters (stopping at the fault) and no objects; text
 * that is not JSON gives no answer here and is refused by the parser.
 */
export function jsonShapeFault(
  text: string,
  limits = { keys: MAX_JSON_KEYS, items: MAX_JSON_ITEMS, values: MAX_JSON_VALUES },
): JsonShapeFault | undefined {
  // One entry per open object or array, innermost last.
  const isObject = new Uint8Array(MAX_JSON_DEPTH);
  const count = new Int32Array(MAX_JSON_DEPTH); // keys so far (object) or the current index (array)
  const keyStart = new Int32Array(MAX_JSON_DEPTH); // the key the container is the value of
  const keyEnd = new Int32Array(MAX_JSON_DEPTH);
  let depth = 0;
  // The body, then each container's first value and each comma (one more value each).
  let values = 1;
  let expectKey = false;
  let lastKeyStart = -1;
  let lastKeyEnd = -1;
  const at = (kind: JsonShapeFault['kind']) => ({
    kind,
    path: pathOf(text, depth, isObject, count, keyStart, keyEnd),
  });
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const j = closingQuote(text, i);
      if (expectKey && depth > 0) {
        expectKey = false;
        lastKeyStart = i;
        lastKeyEnd = j + 1;
        if (++count[depth - 1] > limits.keys) return at('keys');
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (depth === MAX_JSON_DEPTH) return { kind: 'depth', path: 'body' };
      if (!closesAt(text, i + 1) && ++values > limits.values)
        return { kind: 'values', path: 'body' };
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
      if (++values > limits.values) return { kind: 'values', path: 'body' };
      if (isObject[depth - 1]) expectKey = true;
      // the index of the item that follows: past the limit, the array has too many
      else if (++count[depth - 1] >= limits.items) return at('items');
    }
  }
  return undefined;
}

/** Whether a container closes at `from`, whitespace aside: an empty one holds no first value. */
function closesAt(text: string, from: number): boolean {
  let at = from;
  while (at < text.length && JSON_WHITESPACE.has(text.charCodeAt(at))) at++;
  const c = text.charCodeAt(at);
  return c === 0x7d /* } */ || c === 0x5d; /* ] */
}

const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

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

/**
 * The body's text in its declared charset, or undefined when its bytes are not that charset. The
 * text is decoded as the JSON parser will decode it (iconv-lite, as body-parser does), so the scan
 * reads what is parsed: a decoder of its own read `utf-16` without a byte order mark otherwise.
 * UTF-8 that is not quite UTF-8 comes back with its invalid sequences marked, to be parsed so.
 */
function decodeBody(req: IncomingMessage, buf: Buffer, encoding: string): string | undefined {
  if (encoding === 'utf-8' || encoding === 'utf8') {
    if (isUtf8(buf)) return buf.toString('utf8');
    // without a byte order mark, as body-parser (iconv-lite) reads the text it parses
    const marked = markInvalidUtf8(buf)?.replace(/^\uFEFF/, '');
    if (marked !== undefined) markedText.set(req, marked);
    return marked;
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch {
    throw ValidationError.field('Content-Type', 'The body charset is not supported; use UTF-8.');
  }
  const text = iconv.decode(buf, encoding);
  // UTF-16's only invalid text is an unpaired surrogate, which iconv-lite keeps: the text tells,
  // whichever byte order iconv-lite read (a fatal decoder of its own would assume one).
  if (decoder.encoding === 'utf-16le' || decoder.encoding === 'utf-16be')
    return text.isWellFormed() ? text : undefined;
  try {
    decoder.decode(buf); // refuses what is not valid in the charset; iconv-lite would replace it
  } catch {
    return undefined;
  }
  return text;
}

/** A body's text with its invalid UTF-8 marked, from the verify hook to the parser's end. */
const markedText = new WeakMap<IncomingMessage, string>();

/**
 * The JSON parser's `verify` hook, run on the raw bytes before they are parsed: bytes that are not
 * valid in the body's charset are refused rather than replaced with U+FFFD (in UTF-8, the field
 * holding them is refused instead, when they can be marked), and so is a body with a shape fault
 * (too wide, too long or too deep), before any parsing or validation work is spent on it.
 */
export function verifyJsonBody(
  req: IncomingMessage,
  _res: unknown,
  buf: Buffer,
  encoding: string,
): void {
  const text = decodeBody(req, buf, encoding.toLowerCase());
  if (text === undefined) throw notInCharset(encoding);
  const fault = jsonShapeFault(text);
  if (fault !== undefined) {
    const what = fault.path === 'body' ? 'The body' : fault.path;
    throw ValidationError.field(fault.path, `${describeShapeFault(what, fault)}.`);
  }
}

const notInCharset = (encoding: string) =>
  ValidationError.field('body', `The body is not valid ${encoding.toUpperCase()}.`);

/**
 * body-parser's JSON parser with verifyJsonBody. A UTF-8 body with invalid bytes inside its strings
 * is parsed with them marked (body-parser's own parse replaced them with U+FFFD): each field that
 * holds one is refused by name, and in a bulk only its item fails. Outside a string they leave
 * no JSON, and the body is refused as not UTF-8.
 */
export function jsonBodyParser(limit: number | string): RequestHandler {
  const parse = json({ limit, verify: verifyJsonBody });
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      const marked = markedText.get(req);
      if (marked === undefined) return next(error);
      markedText.delete(req);
      if (!error) {
        // In a stream's callback: a throw here would end the process, so none may escape.
        try {
          req.body = JSON.parse(marked);
        } catch {
          return next(notInCharset('utf-8'));
        }
        return next();
      }
      const parseFailed = (error as { type?: unknown }).type === 'entity.parse.failed';
      next(parseFailed ? notInCharset('utf-8') : error);
    });
}
