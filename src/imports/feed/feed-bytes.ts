import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { FeedError } from './feed-error';

export type FeedChunk = Buffer | Uint8Array | string;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * A gzip body may inflate to this many times IMPORT_MAX_BYTES (4 GiB at the default 1 GiB): a
 * bomb inflates a thousandfold, and reading what it inflates to would hold a worker for hours.
 */
export const MAX_INFLATION = 4;

/**
 * The feed's bytes as the parsers read them: counted as sent (so compressed when gzip),
 * gunzipped, without a leading UTF-8 BOM.
 */
export function feedBytes(
  source: AsyncIterable<FeedChunk>,
  gzip: boolean,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  const sent = countBytes(source, maxBytes);
  return stripBom(gzip ? gunzip(sent, MAX_INFLATION * maxBytes) : sent);
}

async function* countBytes(source: AsyncIterable<FeedChunk>, maxBytes: number) {
  let total = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : asBuffer(chunk);
    total += bytes.length;
    if (total > maxBytes)
      throw new FeedError('too_large', `the file is larger than ${maxBytes} bytes`);
    if (bytes.length > 0) yield bytes;
  }
}

/** The same bytes as a Buffer, not a copy: a feed of 100 MB is read twice, chunk by chunk. */
function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk)
    ? chunk
    : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

async function* gunzip(input: AsyncIterable<Buffer>, maxInflated: number): AsyncGenerator<Buffer> {
  // pipeline destroys every stream with the first error, so the loop below rethrows it
  const inflated = pipeline(Readable.from(input), createGunzip(), () => undefined);
  let total = 0;
  try {
    for await (const chunk of inflated) {
      total += (chunk as Buffer).length;
      if (total > maxInflated)
        throw new FeedError(
          'too_large',
          `the file inflates to more than ${maxInflated} bytes (${MAX_INFLATION} times the limit on what is sent)`,
        );
      yield chunk as Buffer;
    }
  } catch (err) {
    if (err instanceof FeedError) throw err;
    const code = (err as NodeJS.ErrnoException | null)?.code;
    // zlib's codes; not `instanceof Error`, which fails across realms (Jest's sandbox)
    if (typeof code === 'string' && code.startsWith('Z_'))
      throw new FeedError('bad_gzip', `the file is not valid gzip: ${(err as Error).message}`);
    throw err;
  }
}

async function* stripBom(input: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head: Buffer | undefined = Buffer.alloc(0);
  for await (const chunk of input) {
    if (head === undefined) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < BOM.length && BOM.subarray(0, head.length).equals(head)) continue;
    const rest = head.subarray(0, BOM.length).equals(BOM) ? head.subarray(BOM.length) : head;
    head = undefined;
    if (rest.length > 0) yield rest;
  }
  if (head !== undefined && head.length > 0) yield head; // a file shorter than a BOM
}
