import { EventLoopTurns } from '../../platform/scheduling/event-loop-turns';
import { csvLines } from './csv';
import { feedBytes, type FeedChunk } from './feed-bytes';
import type { AttributeTypeOf, FeedFormat, FeedLimits, FeedRecord } from './feed.types';
import { ndjsonLines } from './ndjson';

/** The most bytes parsed in one go: a few milliseconds of work, whatever the source's chunks. */
export const READ_CHUNK_BYTES = 64 * 1024;
/**
 * Reading gives the event loop a turn once it has run this long: with one chunk's parsing and
 * its records' handling on top, a turn stays well under 50 ms, so other imports of the worker,
 * its lease timers and its other queues go on.
 */
const READ_TURN_MS = 10;

export interface ReadFeedOptions {
  format: FeedFormat;
  /** the body was sent with `Content-Encoding: gzip` */
  gzip: boolean;
  limits: FeedLimits;
  /** how CSV converts `attributes.<key>` cells; a key it does not know is an unknown column */
  attributeType: AttributeTypeOf;
  /** awaited between chunks, after the event loop's turn: a throw stops the reading (a cancel) */
  checkpoint?: () => Promise<void>;
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
  const bytes = inTurns(feedBytes(source, options.gzip, options.limits.maxBytes), options);
  return options.format === 'csv'
    ? csvLines(bytes, { limits: options.limits, attributeType: options.attributeType })
    : ndjsonLines(bytes, options.limits);
}

/** The bytes in chunks of READ_CHUNK_BYTES at most, with the event loop's turns between them. */
async function* inTurns(
  bytes: AsyncIterable<Buffer>,
  { checkpoint }: ReadFeedOptions,
): AsyncGenerator<Buffer> {
  const turns = new EventLoopTurns(READ_TURN_MS);
  for await (const chunk of bytes) {
    for (let at = 0; at < chunk.length; at += READ_CHUNK_BYTES) {
      yield chunk.subarray(at, at + READ_CHUNK_BYTES);
      await turns.maybeYield();
      await checkpoint?.();
    }
  }
}
