export type FeedErrorCode =
  | 'too_large'
  | 'bad_gzip'
  | 'too_many_lines'
  | 'line_too_long'
  | 'unknown_column'
  | 'duplicate_column'
  | 'header_not_utf8'
  | 'malformed_csv';

/**
 * The file as a whole cannot be read to its end: the import fails. An error that is not a
 * FeedError came from the source (a dropped connection, a storage read), not from the file.
 */
export class FeedError extends Error {
  constructor(
    readonly code: FeedErrorCode,
    message: string,
    /** the line at fault, where there is one */
    readonly line?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
