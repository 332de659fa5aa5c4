import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { Every } from '../platform/scheduling/every.decorator';
import { inBatches } from '../platform/scheduling/in-batches';
import { AuditStore } from './audit.store';

/** Audit rows go after AUDIT_RETENTION, in batches, on the retention purges' schedule. */
@Injectable()
export class AuditRetention {
  private readonly retentionMs: number;

  constructor(
    private readonly store: AuditStore,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retentionMs = config.get('audit.retentionMs', { infer: true });
  }

  @Every('audit-purge', (config) => config.get('events.purgeEveryMs', { infer: true }))
  purge(stopping?: () => boolean): Promise<number> {
    const cutoff = new Date(Date.now() - this.retentionMs);
    return inBatches((n) => this.store.purgeBefore(cutoff, n), stopping);
  }
}
