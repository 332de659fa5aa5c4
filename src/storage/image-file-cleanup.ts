import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { AfterCommit } from '../common/db/after-commit';
import { Every } from '../platform/scheduling/every.decorator';
import { inBatches } from '../platform/scheduling/in-batches';
import { deleteEach } from './delete-each';
import { STORAGE_DRIVER, StorageDriver } from './storage-driver';
import { Sql, StorageDeletionsStore } from './storage-deletions.store';

/** Files deleted at once. */
const DELETES_AT_ONCE = 16;

/** How long the sweep leaves a request to the after-commit path of the transaction that made it. */
export const SWEEP_GRACE_MS = 60_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * Deletes dropped images' files (else they stay public, cached for a year) only after commit: a
 * rollback would leave rows pointing at nothing. A file an image row still holds then is kept.
 * The delete is requested in `storage_deletions` within the transaction, so one that a crash or a
 * failed storage call leaves undone is finished by the worker's sweep.
 */
@Injectable()
export class ImageFileCleanup {
  private readonly logger = new Logger(ImageFileCleanup.name);
  private readonly committed: AfterCommit<string>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly requests: StorageDeletionsStore,
  ) {
    this.committed = new AfterCommit(dataSource, (runner, keys) => this.afterCommit(runner, keys));
  }

  /** Requests the deletes in `em`'s transaction; they are done after its commit, else swept. */
  async deleteAfterCommit(em: EntityManager, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const runner = em.queryRunner;
    if (!runner?.isTransactionActive) throw new Error('deleteAfterCommit needs a transaction');
    const unique = [...new Set(keys)];
    await this.requests.request(em, unique);
    this.committed.add(runner, ...unique);
  }

  private async afterCommit(queryRunner: QueryRunner, keys: string[]): Promise<void> {
    // Committed already: failures are logged and their requests left to the sweep. Queries use
    // the still-held connection: waiting for another from the pool while holding this one could
    // starve the pool.
    try {
      await this.settle(queryRunner, keys);
    } catch (error) {
      this.logger.warn(
        { err: error, keys },
        'Could not delete the files of dropped images; the storage-deletion sweep retries them',
      );
    }
  }

  /** The worker's sweep: batches until one is short or the worker stops. */
  @Every('storage-deletion-sweep', SWEEP_EVERY_MS)
  sweep(stopping?: () => boolean): Promise<number> {
    return inBatches((n) => this.sweepBatch(n), stopping);
  }

  /**
   * One batch of the sweep: requests older than the grace period, which the after-commit path
   * left (a crash, a failed delete). Returns how many requests went; safe on several instances.
   */
  async sweepBatch(size: number): Promise<number> {
    return this.settle(this.dataSource, await this.requests.claimDue(SWEEP_GRACE_MS, size));
  }

  /**
   * Deletes the files of `keys` that no image row holds, then the requests of those deleted or
   * held (a row holding the key owns its file again); a file not deleted keeps its request.
   * Returns how many requests went.
   */
  private async settle(sql: Sql, keys: string[]): Promise<number> {
    const unique = [...new Set(keys)];
    const held = await this.heldKeys(sql, unique);
    const deleted = await deleteEach(
      unique.filter((key) => !held.has(key)),
      DELETES_AT_ONCE,
      (key) => this.storage.delete(key),
      (key, err) =>
        this.logger.warn(
          { err, key },
          'Image file not deleted; the storage-deletion sweep retries it',
        ),
    );
    return this.requests.remove(sql, [...held, ...deleted]);
  }

  /**
   * The keys an image row holds, or shows the file of by its URL (another listing that reuses an
   * upload's URL stores no key; listing_images_media_url_idx answers that).
   */
  private async heldKeys(sql: Sql, keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const held = (await sql.query(
      `SELECT storage_key AS key FROM listing_images WHERE storage_key = ANY($1)
       UNION
       SELECT u.key FROM unnest($1::text[], $2::text[]) AS u(key, url)
       WHERE EXISTS (SELECT 1 FROM listing_images i WHERE i.url = u.url
                       AND i.storage_key IS NULL AND i.url LIKE '%/media/%')`,
      [keys, keys.map((key) => this.storage.publicUrl(key))],
    )) as { key: string }[];
    return new Set(held.map((row) => row.key));
  }
}
