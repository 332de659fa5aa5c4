import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AllConfig } from '../config';
import { Metrics } from '../metrics/metrics';

/**
 * Expires ACTIVE listings past expiresAt. Each batch is one statement that flips the rows and
 * writes their listing.expired events together; SKIP LOCKED hands every row to exactly one of
 * several instances sweeping at once, and the status recheck makes a row expire only once.
 */
@Injectable()
export class ExpiryService {
  private readonly batchSize: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
    config: ConfigService<AllConfig, true>,
  ) {
    this.batchSize = config.get('listings.expiryBatchSize', { infer: true });
  }

  /** Expires everything due now, batch after batch; returns how many listings it expired. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const [{ n }] = await this.dataSource.query(
        `WITH due AS (
           SELECT id FROM listings WHERE status = 'ACTIVE' AND expires_at <= now()
           ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED),
         expired AS (
           UPDATE listings l SET status = 'EXPIRED', expired_at = now(), updated_at = now()
           FROM due WHERE l.id = due.id
           RETURNING l.id, l.account_id, l.external_id, l.livemode, l.expired_at),
         events AS (
           INSERT INTO outbox_events (account_id, event, data)
           SELECT account_id, 'listing.expired', jsonb_build_object(
             'id', id, 'externalId', external_id, 'livemode', livemode,
             'expiredAt', api_timestamp(expired_at))
           FROM expired RETURNING 1)
         SELECT count(*)::int AS n FROM events`,
        [this.batchSize],
      );
      total += n;
      this.metrics.listingsExpired.inc(n);
      if (n < this.batchSize) return total;
    }
  }
}
