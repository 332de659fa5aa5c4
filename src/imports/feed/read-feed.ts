import { csvLines } from './csv';
import { feedBytes, type FeedChunk } from './feed-bytes';
import type { AttributeTypeOf, FeedFormat, FeedLimits, FeedRecord } from './feed.types';
import { ndjsonLines } from './ndjson';

export interface ReadFeedOptions {
  format: FeedFormat;
  /** the body was sent with `Content-Encoding: gzip` */
  gzip: boolean;
  limits: FeedLimits;
  /** how CSV converts `attributes.<key>` cells; a key it does not know is an unknown column */
  attributeType: AttributeTypeOf;
}

/**
 * Reads the feed to its end, in order, as records: holding at most one line (and one chunk) at a
 * time, counting lines and enforcing the limits.
 * Throws a FeedError when the file as a whole cannot be read; lines read before it have been
 * yielded already. Any other error is the source's.
 */
export function readFeed(
  source: AsyncIterable<FeedChunk>,
  options: ReadFeedOptions,
): AsyncGenerator<FeedRecord> {
  const bytes = feedBytes(source, options.gzip, options.limits.maxBytes);
  return options.format === 'csv'
    ? csvLines(bytes, { limits: options.limits, attributeType: options.attributeType })
    : ndjsonLines(bytes, options.limits);
}
