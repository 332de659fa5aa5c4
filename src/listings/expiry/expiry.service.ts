import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AllConfig } from '../../platform/config';
import { ListingsStore } from '../listings.store';
import { Metrics } from '../../platform/metrics/metrics';

/** Expires ACTIVE listings past expiresAt, in batches (ListingsStore.expireDue). */
@Injectable()
export class ExpiryService {
  private readonly batchSize: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly listings: ListingsStore,
    private readonly metrics: Metrics,
    config: ConfigService<AllConfig, true>,
  ) {
    this.batchSize = config.get('listings.expiryBatchSize', { infer: true });
  }

  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.listings.expireDue(this.dataSource.manager, this.batchSize);
      total += n;
      this.metrics.listingsExpired.inc(n);
      if (n < this.batchSize) return total;
    }
  }
}
