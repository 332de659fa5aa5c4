import { FeedError } from './feed-error';
import type { FeedLimits, FeedLine } from './feed.types';

const NEWLINE = 0x0a;
const CR = 0x0d;
const MAX_REASON = 200;

/**
 * Splits the bytes on `\n` and parses each line. A line is held only until its end or until it
 * passes maxLineBytes, so memory stays bounded by the longest allowed line.
 */
export async function* ndjsonLines(
  bytes: AsyncIterable<Buffer>,
  limits: FeedLimits,
): AsyncGenerator<FeedLine> {
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
  private dataLines = 0;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly limits: FeedLimits) {}

  /** the line after the last one read: the one being split */
  tooLong(): FeedError {
    const line = this.lineNo + 1;
    return new FeedError(
      'line_too_long',
      `line ${line}: longer than ${this.limits.maxLineBytes} bytes`,
      line,
    );
  }

  read(raw: Buffer): FeedLine | undefined {
    const bytes = raw.length > 0 && raw[raw.length - 1] === CR ? raw.subarray(0, -1) : raw;
    if (bytes.length > this.limits.maxLineBytes) throw this.tooLong();
    const line = ++this.lineNo;
    let text: string;
    try {
      text = this.utf8.decode(bytes);
    } catch {
      return this.counted({ line, error: `line ${line}: not valid UTF-8` });
    }
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return this.counted({ line, error: `line ${line}: not valid JSON (${reason(err)})` });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return this.counted({ line, error: `line ${line}: not a JSON object (${kindOf(value)})` });
    return this.counted({ line, body: value as Record<string, unknown> });
  }

  private counted(line: FeedLine): FeedLine {
    if (++this.dataLines > this.limits.maxLines)
      throw new FeedError(
        'too_many_lines',
        `line ${line.line}: the file has more than ${this.limits.maxLines} lines`,
        line.line,
      );
    return line;
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
