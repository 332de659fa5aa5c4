import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AllConfig } from '../../platform/config';
import { Every } from '../../platform/scheduling/every.decorator';
import { ListingsStore } from '../listings.store';
import { Metrics } from '../../platform/metrics/metrics';

/** Expires ACTIVE listings past expiresAt, in batches (ListingsStore.expireDue). */
@Injectable()
export class ExpiryService {
  private readonly logger = new Logger(ExpiryService.name);
  private readonly batchSize: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly listings: ListingsStore,
    private readonly metrics: Metrics,
    config: ConfigService<AllConfig, true>,
  ) {
    this.batchSize = config.get('listings.expiryBatchSize', { infer: true });
  }

  /** Batches until one comes back short; a stopping worker ends it between batches. */
  @Every('listing-expiry', (config) => config.get('listings.expirySweepEveryMs', { infer: true }))
  async sweep(stopping: () => boolean = () => false): Promise<number> {
    let total = 0;
    while (!stopping()) {
      const n = await this.listings.expireDue(this.dataSource.manager, this.batchSize);
      total += n;
      this.metrics.listingsExpired.inc(n);
      if (n < this.batchSize) break;
    }
    if (total > 0) this.logger.log(`Expired ${total} listings`);
    return total;
  }
}
