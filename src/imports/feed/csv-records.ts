const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const LINE_BREAK = /\r\n|\r|\n/g;

/** Where the splitter is: at a cell's start, in a plain cell, in a quoted one, after a quote in it. */
const At = { CellStart: 0, Plain: 1, Quoted: 2, QuoteInQuoted: 3 } as const;

/** The ways a CSV's quoting can be wrong, or a record too long to read. */
export type CsvFault =
  | 'INVALID_OPENING_QUOTE'
  | 'CSV_INVALID_CLOSING_QUOTE'
  | 'CSV_QUOTE_NOT_CLOSED'
  | 'CSV_MAX_RECORD_SIZE';

/** A record as split: its first cells (see `keep`), how many it has, and the line breaks in them. */
export interface CsvRecord {
  cells: string[];
  width: number;
  /** line breaks inside its (quoted) cells: the record spans this many lines more than one */
  breaks: number;
}

export class CsvSyntaxError extends Error {
  constructor(readonly code: CsvFault) {
    super(code);
    this.name = 'CsvSyntaxError';
  }
}

/**
 * RFC 4180 records from bytes, chunk by chunk: each record's cells as latin1 text, a character
 * per byte (cellText reads them as UTF-8). Records end at `\r\n`, `\n` or `\r`; a quoted cell
 * may hold the delimiter, line breaks and doubled quotes. The work is in proportion to the bytes
 * whatever the shape of the rows: an empty cell is the empty string, nothing allocated, and a
 * record is refused (CSV_MAX_RECORD_SIZE) once its bytes in the file, delimiters and quotes
 * included, pass `maxRecordBytes`, before its end.
 */
export class CsvRecords {
  /** Cells kept per record: those after are only counted (the reader needs no more than this). */
  keep = Infinity;
  private at: (typeof At)[keyof typeof At] = At.CellStart;
  private cells: string[] = [];
  private width = 0;
  private breaks = 0;
  private cell = '';
  private quoted = false;
  private recordBytes = 0;
  /** the last chunk ended in `\r`: a `\n` starting the next one belongs to it */
  private afterCr = false;

  constructor(
    private readonly delimiter: number,
    private readonly maxRecordBytes: number,
    private readonly onRecord: (record: CsvRecord) => void,
  ) {}

  write(chunk: Buffer): void {
    const n = chunk.length;
    let i = 0;
    if (n === 0) return;
    if (this.afterCr && chunk[0] === LF) i = 1;
    this.afterCr = false;
    while (i < n) {
      if (this.at === At.Quoted) {
        const quote = chunk.indexOf(QUOTE, i);
        const end = quote === -1 ? n : quote;
        this.take(chunk, i, end);
        if (quote === -1) return;
        this.count(1);
        this.at = At.QuoteInQuoted;
        i = quote + 1;
        continue;
      }
      const byte = chunk[i];
      if (this.at === At.CellStart && byte === this.delimiter) {
        // A run of empty cells (a wide row of them is the hostile case): one push each.
        let end = i + 1;
        while (end < n && chunk[end] === this.delimiter) end++;
        this.count(end - i);
        const kept = Math.min(end - i, this.keep - this.cells.length);
        for (let k = 0; k < kept; k++) this.cells.push('');
        this.width += end - i;
        i = end;
        continue;
      }
      if (this.at === At.QuoteInQuoted) {
        if (byte === QUOTE) {
          this.cell += '"';
          this.count(1);
          this.at = At.Quoted;
          i++;
          continue;
        }
        if (byte !== this.delimiter && byte !== LF && byte !== CR)
          throw new CsvSyntaxError('CSV_INVALID_CLOSING_QUOTE');
      } else if (this.at === At.CellStart && byte === QUOTE) {
        this.count(1);
        this.quoted = true;
        this.at = At.Quoted;
        i++;
        continue;
      } else {
        // A plain cell: up to the next delimiter, line break or (refused) quote.
        let end = i;
        while (end < n) {
          const b = chunk[end];
          if (b === this.delimiter || b === LF || b === CR || b === QUOTE) break;
          end++;
        }
        this.take(chunk, i, end);
        this.at = At.Plain;
        if (end === n) return;
        i = end;
        if (chunk[i] === QUOTE) throw new CsvSyntaxError('INVALID_OPENING_QUOTE');
      }
      // At a delimiter or a line break that ends the cell.
      const ends = chunk[i];
      this.endCell();
      i++;
      if (ends === this.delimiter) {
        this.count(1);
        continue;
      }
      this.endRecord();
      if (ends === CR) {
        if (i === n) this.afterCr = true;
        else if (chunk[i] === LF) i++;
      }
    }
  }

  /** The input ended: the last record, if it has any byte. */
  end(): void {
    if (this.at === At.Quoted) throw new CsvSyntaxError('CSV_QUOTE_NOT_CLOSED');
    if (this.at === At.CellStart && this.width === 0) return;
    this.endCell();
    this.endRecord();
  }

  private take(chunk: Buffer, start: number, end: number): void {
    if (end === start) return;
    // A plain cell past those kept is only counted; a quoted one is read for its line breaks.
    if (this.quoted || this.cells.length < this.keep)
      this.cell += chunk.toString('latin1', start, end);
    this.count(end - start);
  }

  private count(bytes: number): void {
    this.recordBytes += bytes;
    if (this.recordBytes > this.maxRecordBytes) throw new CsvSyntaxError('CSV_MAX_RECORD_SIZE');
  }

  private endCell(): void {
    // Only a quoted cell can hold a line break.
    if (this.quoted) this.breaks += this.cell.match(LINE_BREAK)?.length ?? 0;
    if (this.cells.length < this.keep) this.cells.push(this.cell);
    this.width++;
    this.cell = '';
    this.quoted = false;
    this.at = At.CellStart;
  }

  private endRecord(): void {
    const record = { cells: this.cells, width: this.width, breaks: this.breaks };
    this.cells = [];
    this.width = 0;
    this.breaks = 0;
    this.recordBytes = 0;
    this.onRecord(record);
  }
}
