import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { feedBytes } from './feed-bytes';

/**
 * The SHA-256 of a feed's content as an import reads it (gunzipped, without a BOM), for its
 * Idempotency-Key: the same feed sent plain or gzipped, or gzipped twice (gzip writes the time
 * into its header), is the same request. A gzip body that cannot be read (not gzip, inflating
 * past the limit) is known by its bytes as sent instead; its import fails either way.
 */
export class FeedDigest {
  private readonly sent = createHash('sha256');
  private readonly feed = new PassThrough();
  private readonly content: Promise<string | undefined>;

  constructor(
    private readonly gzip: boolean,
    maxBytes: number,
  ) {
    this.content = hashAll(feedBytes(this.feed, gzip, maxBytes)).catch(() => undefined);
  }

  /** Takes the next chunk as sent; resolves once the next may come (the inflater keeps up). */
  async update(chunk: Buffer): Promise<void> {
    if (this.gzip) this.sent.update(chunk);
    // after a failed read, nothing more is read; the bytes as sent are hashed still
    if (this.feed.destroyed || this.feed.write(chunk)) return;
    await Promise.race([once(this.feed, 'drain').catch(() => undefined), this.content]);
  }

  /** The upload failed: the inflater is let go. */
  discard(): void {
    this.feed.destroy();
  }

  /** Once the last chunk is in. */
  async digest(): Promise<string> {
    this.feed.end();
    const content = await this.content;
    return content ?? `sent:${this.sent.digest('hex')}`;
  }
}

async function hashAll(chunks: AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of chunks) hash.update(chunk);
  return hash.digest('hex');
}
