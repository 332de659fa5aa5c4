import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import { ImportsStore } from './imports.store';

/** Finished imports, their results and files go after IMPORT_RETENTION. */
@Injectable()
export class ImportRetention {
  private readonly retentionMs: number;

  constructor(
    private readonly store: ImportsStore,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retentionMs = config.get('imports.retentionMs', { infer: true });
  }

  /** One batch; returns how many imports went (the scheduler runs batches until one is short). */
  async purgeBatch(batchSize: number): Promise<number> {
    const fileKeys = await this.store.purgeFinished(this.retentionMs, batchSize);
    for (const key of fileKeys) if (key) await this.storage.deletePrivate(key);
    return fileKeys.length;
  }
}
