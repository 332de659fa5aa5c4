import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { STORAGE_DRIVER, StorageDriver } from './storage-driver';

/**
 * Deletes dropped images' files (else they stay public, cached for a year) only after commit: a
 * rollback would leave rows pointing at nothing. A file an image row still holds then is kept.
 */
@Injectable()
export class ImageFileCleanup implements EntitySubscriberInterface {
  private readonly logger = new Logger(ImageFileCleanup.name);
  private readonly pending = new WeakMap<QueryRunner, string[]>();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
  ) {
    dataSource.subscribers.push(this);
  }

  deleteAfterCommit(em: EntityManager, keys: string[]): void {
    if (keys.length === 0) return;
    const runner = em.queryRunner;
    if (!runner?.isTransactionActive) throw new Error('deleteAfterCommit needs a transaction');
    this.pending.set(runner, [...(this.pending.get(runner) ?? []), ...keys]);
  }

  async afterTransactionCommit({ queryRunner }: TransactionCommitEvent): Promise<void> {
    // Still active: an inner savepoint was released, the transaction goes on.
    if (queryRunner.isTransactionActive) return;
    const keys = this.pending.get(queryRunner);
    if (!keys) return;
    this.pending.delete(queryRunner);
    // Committed already: failures are logged, not answered. Queries use the still-held connection:
    // waiting for another from the pool while holding this one could starve the pool.
    try {
      // Kept while any image row holds the key, or shows the file by its URL (another listing
      // that reuses an upload's URL stores no key; listing_images_media_url_idx answers that).
      const unique = [...new Set(keys)];
      const held: { key: string }[] = await queryRunner.query(
        `SELECT storage_key AS key FROM listing_images WHERE storage_key = ANY($1)
         UNION
         SELECT u.key FROM unnest($1::text[], $2::text[]) AS u(key, url)
         WHERE EXISTS (SELECT 1 FROM listing_images i WHERE i.url = u.url
                         AND i.storage_key IS NULL AND i.url LIKE '%/media/%')`,
        [unique, unique.map((key) => this.storage.publicUrl(key))],
      );
      const kept = new Set(held.map((row) => row.key));
      await Promise.all(
        unique.filter((key) => !kept.has(key)).map((key) => this.storage.delete(key)),
      );
    } catch (error) {
      this.logger.warn({ err: error, keys }, 'Could not delete the files of dropped images');
    }
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    if (!queryRunner.isTransactionActive) this.pending.delete(queryRunner);
  }
}
