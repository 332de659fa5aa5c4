import { isUtf8 } from 'node:buffer';
import { markInvalidUtf8, NOT_UTF8_MARK } from '../../common/http/invalid-utf8';
import { CsvRecord as SplitRecord, CsvRecords } from './csv-records';
import { FeedError } from './feed-error';
import type { AttributeTypeOf, FeedLimits, FeedLine, FeedRecord } from './feed.types';
import { LineCount } from './line-count';
import { MAX_IMAGES } from '../../common/api-limits';
import { REQUIRED_LISTING_FIELDS } from '../../listings/listing.constants';

export interface CsvOptions {
  limits: FeedLimits;
  attributeType: AttributeTypeOf;
}

/** The listing fields a CSV column may name, besides `attributes.<key>` (see CreateListingDto). */
export const CSV_FIELDS: readonly string[] = [
  'externalId',
  ...REQUIRED_LISTING_FIELDS,
  'phone',
  'images',
];

const ATTRIBUTE_PREFIX = 'attributes.';
const ATTRIBUTE_KEY = /^[A-Za-z][A-Za-z0-9]*$/;
const IMAGE_SEPARATOR = '|';
const PLAIN_INTEGER = /^-?[0-9]+$/;
/** A byte past ASCII in a cell read as latin1 (one character per byte) */
const NOT_ASCII = /[\x80-\xff]/;
const DELIMITERS = new Set([0x2c, 0x3b, 0x09]); // , ; tab
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

/**
 * RFC 4180 CSV, chunk by chunk (CsvRecords). The header names the columns; the delimiter is the
 * first `,`, `;` or tab outside quotes in the header line.
 */
export async function* csvLines(
  bytes: AsyncIterable<Buffer>,
  { limits, attributeType }: CsvOptions,
): AsyncGenerator<FeedRecord> {
  const input = bytes[Symbol.asyncIterator]();
  try {
    const { delimiter, head } = await readHeaderLine(input, limits.maxLineBytes);
    const records: SplitRecord[] = [];
    let failure: unknown;
    const splitter = new CsvRecords(delimiter.charCodeAt(0), limits.maxLineBytes, (record) =>
      records.push(record),
    );
    const rows = new RowReader(limits, attributeType, splitter);
    const split = (chunk: Buffer | undefined) => {
      try {
        if (chunk) splitter.write(chunk);
        else splitter.end();
      } catch (err) {
        failure = err;
      }
    };

    // Records split before a failure are read first, so chunk boundaries never change the result.
    const drain = function* (): Generator<FeedRecord> {
      for (const record of records.splice(0)) {
        const line = rows.read(record);
        if (line) yield new CsvRecord(line);
      }
      if (failure !== undefined) throw rows.malformed(failure);
    };

    for (const chunk of head) {
      split(chunk);
      yield* drain();
    }
    for (let next = await input.next(); !next.done; next = await input.next()) {
      split(next.value);
      yield* drain();
    }
    split(undefined);
    yield* drain();
  } finally {
    await input.return?.();
  }
}

/** Reads until the delimiter is known; the chunks read so far go to the splitter first. */
async function readHeaderLine(
  input: AsyncIterator<Buffer>,
  maxLineBytes: number,
): Promise<{ delimiter: string; head: Buffer[] }> {
  const head: Buffer[] = [];
  const finder = new DelimiterFinder(maxLineBytes);
  for (let next = await input.next(); !next.done; next = await input.next()) {
    head.push(next.value);
    const delimiter = finder.scan(next.value);
    if (delimiter !== undefined) return { delimiter, head };
  }
  return { delimiter: ',', head };
}

class DelimiterFinder {
  private inQuotes = false;
  private started = false;
  private seen = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** The delimiter; `,` when the header line ends without one; undefined to read on. */
  scan(chunk: Buffer): string | undefined {
    for (const byte of chunk) {
      if (!this.started) {
        // Blank lines before the header, spaces included (the reader skips them as blank too).
        if (byte === LF || byte === CR || byte === SPACE) continue;
        this.started = true;
      }
      if (++this.seen > this.maxLineBytes)
        throw new FeedError(
          'line_too_long',
          `the header line is longer than ${this.maxLineBytes} bytes`,
        );
      if (byte === QUOTE) this.inQuotes = !this.inQuotes;
      else if (!this.inQuotes && DELIMITERS.has(byte)) return String.fromCharCode(byte);
      else if (!this.inQuotes && (byte === LF || byte === CR)) return ',';
    }
    return undefined;
  }
}

/**
 * A cell's text from its latin1 reading, with bytes that are not UTF-8 marked as in a JSON body,
 * so that the PUT's own check of the field refuses them by name (`title is not valid UTF-8`),
 * with the line's other errors; a cell that cannot be marked in place is the mark alone. ASCII
 * reads the same either way.
 */
function cellText(cell: string): string {
  if (!NOT_ASCII.test(cell)) return cell;
  const bytes = Buffer.from(cell, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : (markInvalidUtf8(bytes) ?? NOT_UTF8_MARK);
}

/**
 * A record read as it was parsed. Its content is what it reads as (a cell's meaning depends on
 * the header, so the raw cells would not do): the body's JSON, serialised when asked for.
 */
class CsvRecord implements FeedRecord {
  private serialised: Buffer | undefined;

  constructor(private readonly parsed: FeedLine) {}

  get line(): number {
    return this.parsed.line;
  }

  get content(): Buffer {
    const read = 'body' in this.parsed ? this.parsed.body : this.parsed.error;
    return (this.serialised ??= Buffer.from(JSON.stringify(read)));
  }

  read(): FeedLine {
    return this.parsed;
  }
}

type Column = (body: Record<string, unknown>, value: string) => void;

class RowReader {
  private nextLine = 1;
  private columns: Column[] | undefined;
  /** the header's externalId column, -1 when it has none */
  private externalIdColumn = -1;
  /** the header ends with its delimiter: an unnamed last column, to be left empty */
  private trailingDelimiter = false;
  private readonly count: LineCount;

  constructor(
    private readonly limits: FeedLimits,
    private readonly attributeType: AttributeTypeOf,
    private readonly splitter: CsvRecords,
  ) {
    this.count = new LineCount(limits.maxLines);
  }

  /** A record as split: its cells in latin1 (see cellText). */
  read({ cells, width: cellCount, breaks }: SplitRecord): FeedLine | undefined {
    const line = this.nextLine;
    this.nextLine += 1 + breaks;
    if (cellCount === 1 && cellText(cells[0]).trim() === '') return void this.count.blank(line);
    if (this.columns === undefined) {
      const record = cells.map(cellText);
      // A mark (cellText) is the only lone surrogate a UTF-8 file can give.
      if (record.some((name) => !name.isWellFormed()))
        throw new FeedError(
          'header_not_utf8',
          `line ${line}: the header is not valid UTF-8; convert the file to UTF-8`,
          line,
        );
      // A header ending in its delimiter names no last column: rows ending in one too leave it empty.
      this.trailingDelimiter = record.length > 1 && record[record.length - 1].trim() === '';
      const named = this.trailingDelimiter ? record.slice(0, -1) : record;
      this.columns = columnsOf(named, this.attributeType, line);
      this.externalIdColumn = record.findIndex((name) => name.trim() === 'externalId');
      // A row's cells past the header's width are only counted: a wide row holds no more.
      this.splitter.keep = record.length;
      return undefined;
    }
    this.count.data(line);
    const named = this.columns.length;
    // Under a header that ends in its delimiter, a row may end in one too (an empty last cell).
    const width = this.trailingDelimiter && cellCount === named + 1 ? named + 1 : named;
    if (cellCount !== width)
      return this.failed(
        line,
        cells,
        `line ${line}: ${cellCount} cells where the header has ${named} columns`,
      );
    if (width > named && cells[named] !== '')
      return this.failed(
        line,
        cells,
        `line ${line}: a value after the last column (the header ends with its delimiter, naming no column there)`,
      );
    const body: Record<string, unknown> = {};
    for (let i = 0; i < named; i++) if (cells[i] !== '') this.columns[i](body, cellText(cells[i]));
    return { line, body };
  }

  /** A failed line. Its externalId cell is still read where it is, so that it protects its listing. */
  private failed(line: number, cells: string[], error: string): FeedLine {
    const externalId = cells[this.externalIdColumn];
    return externalId ? { line, error, externalId: cellText(externalId) } : { line, error };
  }

  /** the splitter stopped in the record after the last one read */
  malformed(err: unknown): FeedError {
    const line = this.nextLine;
    const code = (err as { code?: unknown }).code;
    if (code === 'CSV_MAX_RECORD_SIZE') return tooLong(line, this.limits.maxLineBytes);
    const detail = QUOTING_ERRORS[String(code)] ?? (err instanceof Error ? err.message : err);
    return new FeedError('malformed_csv', `line ${line}: malformed CSV: ${detail}`, line);
  }
}

const QUOTING_ERRORS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted cell is never closed',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted cell (quote the cell, double the quote)',
  CSV_INVALID_CLOSING_QUOTE: 'text after the closing quote of a cell',
};

function tooLong(line: number, maxLineBytes: number): FeedError {
  return new FeedError('line_too_long', `line ${line}: longer than ${maxLineBytes} bytes`, line);
}

function columnsOf(header: string[], attributeType: AttributeTypeOf, line: number): Column[] {
  const seen = new Set<string>();
  return header.map((raw) => {
    const name = raw.trim();
    if (seen.has(name))
      throw new FeedError(
        'duplicate_column',
        `line ${line}: the column ${name} is named twice`,
        line,
      );
    seen.add(name);
    const column = columnFor(name, attributeType);
    if (column === undefined)
      throw new FeedError(
        'unknown_column',
        `line ${line}: unknown column "${name}": a column is a listing field (${CSV_FIELDS.join(', ')}) or attributes.<key>`,
        line,
      );
    return column;
  });
}

function columnFor(name: string, attributeType: AttributeTypeOf): Column | undefined {
  if (name === 'price') return (body, value) => (body.price = integerOrText(value));
  if (name === 'images') return (body, value) => (body.images = imageRefs(value));
  if (CSV_FIELDS.includes(name)) return (body, value) => (body[name] = value);
  if (!name.startsWith(ATTRIBUTE_PREFIX)) return undefined;
  const key = name.slice(ATTRIBUTE_PREFIX.length);
  if (!ATTRIBUTE_KEY.test(key)) return undefined;
  const convert = converters[attributeType(key) ?? 'unknown'];
  if (convert === undefined) return undefined;
  return (body, value) => {
    const attributes = (body.attributes ??= {}) as Record<string, unknown>;
    attributes[key] = convert(value);
  };
}

/**
 * The cell's image URLs, one more at most than a listing takes: a longer cell fails its line as
 * too many images, without the thousands of objects a 256 KB cell could otherwise become.
 */
function imageRefs(cell: string): { url: string }[] {
  const refs: { url: string }[] = [];
  for (let start = 0; start <= cell.length && refs.length <= MAX_IMAGES;) {
    const end = cell.indexOf(IMAGE_SEPARATOR, start);
    const url = cell.slice(start, end === -1 ? cell.length : end).trim();
    if (url !== '') refs.push({ url });
    if (end === -1) break;
    start = end + IMAGE_SEPARATOR.length;
  }
  return refs;
}

/** A cell the type cannot read stays text, so the listing's validation names the field. */
const converters: Record<string, ((value: string) => unknown) | undefined> = {
  string: (value) => value,
  enum: (value) => value,
  integer: integerOrText,
  boolean: (value) => {
    const lower = value.toLowerCase();
    return lower === 'true' ? true : lower === 'false' ? false : value;
  },
};

function integerOrText(value: string): number | string {
  if (!PLAIN_INTEGER.test(value)) return value;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
}
