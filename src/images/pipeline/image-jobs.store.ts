import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../../auth/scope';
import type { ImageResponse } from '../../listings/dto/listing.response';
import { IMAGE_PRIORITY, ImagePriority } from '../../listings/gallery/image-priority';
import { imageJsonSql } from '../../listings/listing-json.sql';
import { ImageFileCleanup } from '../../storage/image-file-cleanup';
import type { RenditionName } from '../renditions/render-renditions';
import type { ImageFailure } from './image-failure';
import { otherRunKeys } from './rendition-keys';

/** What the processor needs of an image row. */
export interface ImageToProcess {
  id: string;
  url: string;
  storage_key: string | null;
  status: 'pending' | 'ready' | 'failed';
  attempts: number;
}

/** An image handed to the queue, with its priority (lower first). */
export interface ClaimedImage {
  id: string;
  priority: ImagePriority;
}

export interface ReadyImage {
  width: number;
  height: number;
  /** absolute URLs, as the record shows them */
  variants: Record<RenditionName, string>;
  keys: string[];
}

/**
 * The image pipeline's SQL. The database is the queue's truth: an image is due while it is
 * pending, its `next_attempt_at` has passed and no live hand-over (`queued_at` within the lease)
 * holds it. A result is written under the listing's lock, taken first as every gallery edit
 * takes it (the image trigger then updates the listing: the other order could deadlock), and
 * only while the image is still pending, so a deleted or already finished image keeps its state.
 * A run names its files in `pending_rendition_keys` before writing them, and its result clears
 * that column, so no file outlives the row that names it: whoever deletes the row or ends the
 * next run requests their deletion in the same transaction (ImageFileCleanup).
 */
@Injectable()
export class ImageJobsStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly imageFiles: ImageFileCleanup,
  ) {}

  /**
   * Claims up to `limit` due images, fresh or backfill, in the order they should run, with their
   * priority; SKIP LOCKED, so instances claim apart. A claim sets `queued_at` only, which renders
   * no listing again. Lower priority first; within one, accounts take turns: an image's turn is
   * its place among its account's due images plus the account's images already handed over and
   * not finished, so an account with thousands in the queue waits while another's first is
   * claimed, and a run that claims one image still picks the account with the fewest in flight.
   * The accounts are found by a loose index scan (one probe each), each account's oldest due
   * images by an index range, so the cost grows with the accounts waiting, not the images.
   */
  async claimDue(limit: number, backfill: boolean, leaseMs: number): Promise<ClaimedImage[]> {
    if (limit <= 0) return [];
    const rows: ClaimedImage[] = await this.dataSource.query(
      `WITH RECURSIVE owners AS (
         (SELECT priority, account_id FROM listing_images
          WHERE status = 'pending' AND backfill = $2 AND account_id IS NOT NULL
          ORDER BY priority, account_id LIMIT 1)
         UNION ALL
         SELECT later.priority, later.account_id FROM owners o CROSS JOIN LATERAL (
           SELECT priority, account_id FROM listing_images
           WHERE status = 'pending' AND backfill = $2 AND account_id IS NOT NULL
             AND (priority, account_id) > (o.priority, o.account_id)
           ORDER BY priority, account_id LIMIT 1) later
       ), lease AS (
         SELECT now() - make_interval(secs => $3::double precision / 1000) AS since
       ), candidates AS (
         SELECT c.id, o.priority, c.next_attempt_at,
                f.n + row_number() OVER (PARTITION BY o.priority, o.account_id
                                         ORDER BY c.next_attempt_at) AS turn
         FROM owners o CROSS JOIN lease
         CROSS JOIN LATERAL (
           SELECT count(*) AS n FROM listing_images q
           WHERE q.account_id = o.account_id AND q.status = 'pending'
             AND q.queued_at IS NOT NULL AND q.queued_at >= lease.since) f
         CROSS JOIN LATERAL (
           SELECT i.id, i.next_attempt_at FROM listing_images i
           WHERE i.status = 'pending' AND i.backfill = $2 AND i.priority = o.priority
             AND i.account_id = o.account_id AND i.next_attempt_at <= now()
             AND (i.queued_at IS NULL OR i.queued_at < lease.since)
           ORDER BY i.next_attempt_at LIMIT $1) c
       ), chosen AS (
         SELECT id, row_number() OVER (ORDER BY priority, turn, next_attempt_at) AS rank
         FROM candidates ORDER BY priority, turn, next_attempt_at LIMIT $1
       ), due AS (
         -- Checked again under the lock: another instance may have claimed it since.
         SELECT i.id, chosen.rank FROM listing_images i JOIN chosen USING (id) CROSS JOIN lease
         WHERE i.status = 'pending' AND i.next_attempt_at <= now()
           AND (i.queued_at IS NULL OR i.queued_at < lease.since)
         FOR UPDATE OF i SKIP LOCKED
       ), claimed AS (
         UPDATE listing_images i SET queued_at = now() FROM due WHERE i.id = due.id
         RETURNING i.id, i.priority, due.rank)
       SELECT id, priority FROM claimed ORDER BY rank`,
      [limit, backfill, leaseMs],
    );
    return rows;
  }

  /** Pending images stored since the pipeline (backfill aside), per priority. */
  async countPending(): Promise<Map<number, number>> {
    const rows: { priority: number; count: number }[] = await this.dataSource.query(
      `SELECT priority, count(*)::int AS count FROM listing_images
       WHERE status = 'pending' AND backfill = false GROUP BY priority`,
    );
    return new Map(rows.map((row) => [row.priority, row.count]));
  }

  async load(imageId: string): Promise<ImageToProcess | undefined> {
    const [row] = await this.dataSource.query(
      'SELECT id, url, storage_key, status, attempts FROM listing_images WHERE id = $1',
      [imageId],
    );
    return row;
  }

  /**
   * Names a run's files in the row before they are written; false (write nothing) when the image
   * is gone or no longer pending. No listing lock: the column is not shown, so no listing renders.
   */
  async recordPending(imageId: string, keys: string[]): Promise<boolean> {
    const [rows]: [unknown[]] = await this.dataSource.query(
      `UPDATE listing_images SET pending_rendition_keys = pending_rendition_keys || $2::text[]
       WHERE id = $1 AND status = 'pending' RETURNING id`,
      [imageId, keys],
    );
    return rows.length > 0;
  }

  /** Ready with its renditions, `ready.keys` those of this run; false when not recorded. */
  markReady(imageId: string, ready: ReadyImage): Promise<boolean> {
    return this.finish(
      imageId,
      `status = 'ready', width = $2, height = $3, variants = $4, rendition_keys = $5,
       error_reason = NULL, error_message = NULL`,
      [ready.width, ready.height, JSON.stringify(ready.variants), ready.keys],
      { runKeys: ready.keys },
    );
  }

  /**
   * Failed for good (`retryAt` null) or pending again from `retryAt`; counts the try. A retry
   * keeps the named files: a run still under way (a stalled job run again) may yet record them.
   */
  recordFailure(imageId: string, failure: ImageFailure, retryAt: Date | null): Promise<boolean> {
    return retryAt
      ? this.finish(imageId, `attempts = attempts + 1, next_attempt_at = $2`, [retryAt], {
          pending: false,
        })
      : this.finish(
          imageId,
          `status = 'failed', attempts = attempts + 1, error_reason = $2, error_message = $3`,
          [failure.reason, failure.message],
          { runKeys: [] },
        );
  }

  /**
   * POST …/images/:imageId/retry: a failed image of the owner's listing becomes due now, its
   * tries counted afresh, with a single request's priority. The image as it is when it was not
   * failed, or undefined when the listing or the image is not the caller's.
   */
  async requeue(
    em: EntityManager,
    scope: OwnerScope,
    listingId: string,
    imageId: string,
  ): Promise<{ listing: boolean; image?: ImageResponse; requeued: boolean }> {
    const [listing] = await em.query(
      `SELECT id FROM listings WHERE id = $1 AND account_id = $2 AND livemode = $3 FOR NO KEY UPDATE`,
      [listingId, scope.accountId, scope.livemode],
    );
    if (!listing) return { listing: false, requeued: false };
    const [[requeued]]: [{ image: ImageResponse }[]] = await em.query(
      `UPDATE listing_images i SET status = 'pending', attempts = 0, next_attempt_at = now(),
         queued_at = NULL, error_reason = NULL, error_message = NULL, priority = $3
       WHERE id = $1 AND listing_id = $2 AND status = 'failed'
       RETURNING ${imageJsonSql('i')} AS image`,
      [imageId, listingId, IMAGE_PRIORITY.request],
    );
    if (requeued) return { listing: true, image: requeued.image, requeued: true };
    const [current]: { image: ImageResponse }[] = await em.query(
      `SELECT ${imageJsonSql('i')} AS image FROM listing_images i WHERE id = $1 AND listing_id = $2`,
      [imageId, listingId],
    );
    return { listing: true, image: current?.image, requeued: false };
  }

  /**
   * Writes a run's result; false when the image is gone or no longer pending (nothing written).
   * An end (ready or failed) also clears the named files and has those not of this run
   * (`runKeys`: killed runs', or a live run's whose result the row now refuses) deleted after the
   * commit; the row is locked in the CTE so RETURNING shows the keys it clears, even those a
   * concurrent run named meanwhile. A retry (`pending: false`) keeps them.
   */
  private finish(
    imageId: string,
    set: string,
    params: unknown[],
    files: { runKeys: string[] } | { pending: false },
  ): Promise<boolean> {
    const clears = 'runKeys' in files;
    return this.dataSource.transaction(async (em) => {
      const [listing] = await em.query(
        `SELECT l.id FROM listings l JOIN listing_images i ON i.listing_id = l.id
         WHERE i.id = $1 FOR NO KEY UPDATE OF l`,
        [imageId],
      );
      if (!listing) return false;
      const [[row]]: [{ pending: string[] | null }[]] = await em.query(
        `WITH run AS (
           SELECT id, pending_rendition_keys FROM listing_images
           WHERE id = $1 AND status = 'pending' FOR NO KEY UPDATE)
         UPDATE listing_images i SET ${set}, queued_at = NULL
           ${clears ? ', pending_rendition_keys = NULL' : ''}
         FROM run WHERE i.id = run.id RETURNING run.pending_rendition_keys AS pending`,
        [imageId, ...params],
      );
      if (!row) return false;
      if (clears)
        await this.imageFiles.deleteAfterCommit(em, otherRunKeys(row.pending, files.runKeys));
      return true;
    });
  }
}
