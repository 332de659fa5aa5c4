import { FeedError } from './feed-error';

/**
 * A reader's lines against IMPORT_MAX_LINES: data lines, and blank lines as many again at most.
 * Blank lines cost time to read though they import nothing, so they are bounded too: a gzip body
 * of newlines alone inflates a thousandfold.
 */
export class LineCount {
  private dataLines = 0;
  private blankLines = 0;

  constructor(private readonly maxLines: number) {}

  /** Counts the data line at physical line `line`; throws past the limit. */
  data(line: number): void {
    if (++this.dataLines > this.maxLines) throw this.tooMany(line, 'lines');
  }

  /** Counts the blank line at physical line `line`; throws past the limit. */
  blank(line: number): void {
    if (++this.blankLines > this.maxLines) throw this.tooMany(line, 'blank lines');
  }

  private tooMany(line: number, what: string): FeedError {
    return new FeedError(
      'too_many_lines',
      `line ${line}: the file has more than ${this.maxLines} ${what}`,
      line,
    );
  }
}
