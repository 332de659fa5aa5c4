import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { Every } from '../platform/scheduling/every.decorator';
import { inBatches } from '../platform/scheduling/in-batches';
import { deleteEach } from '../storage/delete-each';
import { STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import { ImportsStore } from './imports.store';

/** Stored files deleted at once during a purge: a bucket is slower per call than a disk. */
const DELETES_AT_ONCE = 8;

/** Finished imports, their results and files go after IMPORT_RETENTION. */
@Injectable()
export class ImportRetention {
  private readonly logger = new Logger(ImportRetention.name);
  private readonly retentionMs: number;

  constructor(
    private readonly store: ImportsStore,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retentionMs = config.get('imports.retentionMs', { infer: true });
  }

  /** The worker's purge: batches until one is short or the worker stops. */
  @Every('import-purge', (config) => config.get('events.purgeEveryMs', { infer: true }))
  purge(stopping?: () => boolean): Promise<number> {
    return inBatches((n) => this.purgeBatch(n), stopping);
  }

  /**
   * One batch; returns how many imports went.
   * An import's file goes before its record: a purge stopped in between leaves records whose
   * files are gone, which the next batch takes again (deleting a missing file is no error). A
   * file that cannot be deleted keeps its record, so it is tried again and never left behind.
   * Two instances may purge the same batch.
   */
  async purgeBatch(batchSize: number): Promise<number> {
    const due = await this.store.finishedBefore(this.retentionMs, batchSize);
    const filesGone = await deleteEach(
      due,
      DELETES_AT_ONCE,
      async ({ file_key: key }) => {
        if (key) await this.storage.deletePrivate(key);
      },
      ({ id }, err) =>
        this.logger.warn({ err, importId: id }, 'Import file not deleted; kept for the next purge'),
    );
    return this.store.deleteImports(filesGone.map((row) => row.id));
  }
}
