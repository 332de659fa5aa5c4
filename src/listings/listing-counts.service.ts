import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Every } from '../platform/scheduling/every.decorator';

const FOLD_BATCH = 50_000;
/** Deltas a page sums on top of its base stay few. */
const FOLD_EVERY_MS = 5_000;

/** Exact totals without scanning listings: triggers append deltas, pages read base plus deltas. */
@Injectable()
export class ListingCountsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One statement, so a reader sees the deltas or their sum, never both or neither. SKIP LOCKED
   * gives each delta to exactly one of several concurrent folds.
   */
  @Every('listing-counts-fold', FOLD_EVERY_MS)
  async fold(): Promise<void> {
    await this.dataSource.query(
      `WITH moved AS (
         DELETE FROM listing_count_deltas WHERE id IN (
           SELECT id FROM listing_count_deltas ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING account_id, livemode, status, delta)
       INSERT INTO listing_counts AS c (account_id, livemode, status, count)
       SELECT account_id, livemode, status, sum(delta) FROM moved
       GROUP BY account_id, livemode, status ORDER BY account_id, livemode, status
       ON CONFLICT (account_id, livemode, status) DO UPDATE SET count = c.count + EXCLUDED.count`,
      [FOLD_BATCH],
    );
  }
}
