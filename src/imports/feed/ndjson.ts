import { isUtf8 } from 'node:buffer';
import { markInvalidUtf8 } from '../../common/http/invalid-utf8';
import { describeShapeFault, jsonShapeFault } from '../../common/http/json-body.verify';
import { FeedError } from './feed-error';
import type { FeedLimits, FeedLine, FeedRecord } from './feed.types';
import { LineCount } from './line-count';

const NEWLINE = 0x0a;
const CR = 0x0d;
const MAX_REASON = 200;

/**
 * Splits the bytes on `\n` into records, each parsed when read. A line is held only until its end
 * or until it passes maxLineBytes, so memory stays bounded by the longest allowed line.
 */
export async function* ndjsonLines(
  bytes: AsyncIterable<Buffer>,
  limits: FeedLimits,
): AsyncGenerator<FeedRecord> {
  // a CR before the `\n` is not part of the line, so it may take one byte over the limit
  const holdAtMost = limits.maxLineBytes + 1;
  const reader = new LineReader(limits);
  let pieces: Buffer[] = [];
  let held = 0;
  for await (const chunk of bytes) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); ; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      held += piece.length;
      if (held > holdAtMost) throw reader.tooLong();
      if (piece.length > 0) pieces.push(piece);
      if (end === -1) break;
      const line = reader.read(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, held));
      if (line) yield line;
      pieces = [];
      held = 0;
      start = end + 1;
    }
  }
  if (held > 0) {
    const line = reader.read(Buffer.concat(pieces, held));
    if (line) yield line;
  }
}

class LineReader {
  private lineNo = 0;
  private readonly count: LineCount;

  constructor(private readonly limits: FeedLimits) {
    this.count = new LineCount(limits.maxLines);
  }

  /** the line after the last one read: the one being split */
  tooLong(): FeedError {
    const line = this.lineNo + 1;
    return new FeedError(
      'line_too_long',
      `line ${line}: longer than ${this.limits.maxLineBytes} bytes`,
      line,
    );
  }

  read(raw: Buffer): FeedRecord | undefined {
    const bytes = raw.length > 0 && raw[raw.length - 1] === CR ? raw.subarray(0, -1) : raw;
    if (bytes.length > this.limits.maxLineBytes) throw this.tooLong();
    const line = ++this.lineNo;
    if (!startsPlainly(bytes) && isBlank(bytes)) return void this.count.blank(line);
    this.count.data(line);
    return new NdjsonRecord(line, bytes);
  }
}

/** A line kept as its bytes, parsed only when read (a line known by its bytes never is). */
class NdjsonRecord implements FeedRecord {
  constructor(
    readonly line: number,
    readonly content: Buffer,
  ) {}

  read(): FeedLine {
    const line = this.line;
    // Invalid bytes inside a string are marked and refused by their field, as the PUT refuses them.
    const utf8 = isUtf8(this.content);
    const text = utf8 ? this.content.toString('utf8') : markInvalidUtf8(this.content);
    if (text === undefined) return { line, error: `line ${line}: not valid UTF-8` };
    // Refused before parsing, as the PUT refuses such a body, with the PUT's field.
    const fault = jsonShapeFault(text);
    if (fault !== undefined) {
      const what = fault.path === 'body' ? 'the line' : fault.path;
      const error = `line ${line}: ${describeShapeFault(what, fault)}`;
      return withExternalId({ line, error, field: fault.path }, externalIdIn(text));
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      // Outside a string, invalid bytes leave no JSON: the bytes are what is wrong.
      const error = utf8
        ? `line ${line}: not valid JSON (${reason(err)})`
        : `line ${line}: not valid UTF-8`;
      return withExternalId({ line, error }, externalIdIn(text));
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { line, error: `line ${line}: not a JSON object (${kindOf(value)})` };
    return { line, body: value as Record<string, unknown> };
  }
}

/** Decodes a whole line at a time, so one instance serves every line (it keeps no state). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A first byte that is ASCII and not whitespace: the line is not blank, known without decoding it.
 * Only ASCII whitespace and multi-byte characters (some of them whitespace) need a closer look.
 */
function startsPlainly(bytes: Buffer): boolean {
  const first = bytes[0];
  return first !== undefined && first > 0x20 && first < 0x80;
}

/** Whitespace alone, as `String.prototype.trim` sees it; a line that is not UTF-8 is not blank. */
function isBlank(bytes: Buffer): boolean {
  try {
    return UTF8.decode(bytes).trim() === '';
  } catch {
    return false;
  }
}

/** A failed line with the externalId it still names, if any. */
function withExternalId(failed: FeedLine & { error: string }, externalId: string | undefined) {
  return externalId === undefined ? failed : { ...failed, externalId };
}

/** `"externalId": "<a JSON string>"` anywhere in a line: read from a line that is not JSON. */
const EXTERNAL_ID_MEMBER = /"externalId"\s*:\s*("(?:[^"\\\n]|\\.)*")/;

/** The externalId a line that is not valid JSON still names plainly, if it names one. */
export function externalIdIn(text: string): string | undefined {
  const literal = EXTERNAL_ID_MEMBER.exec(text)?.[1];
  if (literal === undefined) return undefined;
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_REASON ? `${message.slice(0, MAX_REASON)}…` : message;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
