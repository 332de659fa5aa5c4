import type { AttributeType } from '../../reference/categories.data';

export type FeedFormat = 'ndjson' | 'csv';

export interface FeedLimits {
  /** the file as sent: compressed bytes when gzip */
  maxBytes: number;
  /** data lines; blank lines and the CSV header do not count */
  maxLines: number;
  /** one line (NDJSON) or one record (CSV), without its line ending */
  maxLineBytes: number;
}

export const DEFAULT_FEED_LIMITS: Readonly<FeedLimits> = {
  maxBytes: 1024 ** 3,
  maxLines: 1_000_000,
  maxLineBytes: 256 * 1024,
};

/** The attribute's type by key, or undefined when no category has that attribute. */
export type AttributeTypeOf = (key: string) => AttributeType | undefined;

/** Line numbers count physical lines from 1; a CSV record has the number of the line it starts on. */
export type FeedLine =
  /** a PUT /listings/by-external-id body with its externalId, as given: the runner validates it */
  | { line: number; body: Record<string, unknown> }
  /**
   * a line that cannot be read as a listing (not JSON, not an object, too wide or deep to be
   * validated): a failed line, with the externalId it names when that can still be read (so
   * that a typo never removes a listing), and the field at fault when it is not the line itself
   */
  | { line: number; error: string; externalId?: string; field?: string };

/**
 * A data line of the feed, counted and within the limits, whose reading as a listing may wait
 * until it is needed (an NDJSON line is parsed by `read`, so a line known by its content never is).
 */
export interface FeedRecord {
  readonly line: number;
  /** What the line reads from: the same content always reads as the same body (or error). */
  readonly content: Buffer;
  read(): FeedLine;
}
