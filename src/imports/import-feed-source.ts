import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import type { ImportsConfig } from '../platform/config/imports.config';
import { GuardedFetch } from '../platform/outbound/guarded-fetch';
import { OutboundDns } from '../platform/outbound/outbound-dns';
import { CATEGORY_TREE } from '../reference/categories.data';
import { STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import { attributeTypesOf } from './feed/attribute-types';
import type { FeedRecord } from './feed/feed.types';
import { readFeed } from './feed/read-feed';
import { Claim, ImportRow, ImportsStore, LostClaimError } from './imports.store';

/** A feed URL gets a minute to answer in full; redirects at most 3, each hop checked again. */
const FEED_FETCH = { timeoutMs: 60_000, maxRedirects: 3 };
const DNS_TIMEOUT_MS = 5_000;

/** An import's stored file, read from its start as feed lines (each pass opens it anew). */
@Injectable()
export class ImportFeedSource {
  private readonly config: ImportsConfig;
  private readonly attributeType = attributeTypesOf(CATEGORY_TREE);
  private readonly fetcher: GuardedFetch;

  constructor(
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    config: ConfigService<AllConfig, true>,
  ) {
    this.config = config.get('imports', { infer: true });
    this.fetcher = new GuardedFetch(
      new OutboundDns(DNS_TIMEOUT_MS).lookup,
      config.get('outbound.allowPrivateTargets', { infer: true }),
    );
  }

  /**
   * A `sourceUrl` import's feed, fetched once through the outbound guard and stored, so every
   * later pass (and a resumed run) reads the same bytes. Throws FetchError when it cannot be had.
   */
  async download(row: ImportRow, claim: Claim, store: ImportsStore): Promise<ImportRow> {
    const fetched = await this.fetcher.get(row.source_url!, {
      ...FEED_FETCH,
      maxBytes: this.config.maxBytes,
    });
    const fileKey = `imports/${randomUUID()}`;
    await this.storage.putPrivate(fileKey, fetched.body);
    try {
      return await store.setFile(claim, fileKey, isGzip(fetched));
    } catch (error) {
      // The claim was lost meanwhile: the runner that holds it fetches its own copy. Any other
      // error may come after the update committed: the file stays, the import may name it.
      if (error instanceof LostClaimError)
        await this.storage.deletePrivate(fileKey).catch(() => undefined);
      throw error;
    }
  }

  /** `checkpoint` is awaited between chunks of the reading; it stops the reading by throwing. */
  async open(row: ImportRow, checkpoint?: () => Promise<void>): Promise<AsyncIterable<FeedRecord>> {
    const file = await this.storage.readPrivate(row.file_key!);
    return readFeed(file, {
      checkpoint,
      format: row.format,
      gzip: row.gzip,
      limits: {
        maxBytes: this.config.maxBytes,
        maxLines: this.config.maxLines,
        maxLineBytes: this.config.maxLineBytes,
      },
      attributeType: this.attributeType,
    });
  }
}

/**
 * Gzip, whether the transfer is (`Content-Encoding: gzip`) or the file itself is, as a web server
 * serves `feed.ndjson.gz`: `Content-Type: application/gzip` (or `x-gzip`), no Content-Encoding.
 */
function isGzip(fetched: { contentEncoding?: string; contentType?: string }): boolean {
  const type = fetched.contentType?.split(';')[0].trim().toLowerCase();
  return (
    fetched.contentEncoding?.trim().toLowerCase() === 'gzip' ||
    type === 'application/gzip' ||
    type === 'application/x-gzip'
  );
}
