import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import type { ImportsConfig } from '../platform/config/imports.config';
import { CATEGORY_TREE } from '../reference/categories.data';
import { STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import { attributeTypesOf } from './feed/attribute-types';
import type { FeedLine } from './feed/feed.types';
import { readFeed } from './feed/read-feed';
import type { ImportRow } from './imports.store';

/** An import's stored file, read from its start as feed lines (each pass opens it anew). */
@Injectable()
export class ImportFeedSource {
  private readonly config: ImportsConfig;
  private readonly attributeType = attributeTypesOf(CATEGORY_TREE);

  constructor(
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    config: ConfigService<AllConfig, true>,
  ) {
    this.config = config.get('imports', { infer: true });
  }

  async open(row: ImportRow): Promise<AsyncIterable<FeedLine>> {
    const file = await this.storage.readPrivate(row.file_key!);
    return readFeed(file, {
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
