import { Injectable } from '@nestjs/common';
import { Every } from '../platform/scheduling/every.decorator';
import { ImportsService } from './imports.service';
import { ImportsStore } from './imports.store';

/** Imports queued again per sweep: more than any number of workers takes up in one interval. */
const SWEEP_BATCH = 100;

/**
 * The database is the truth: queues again every import that should be running and may have lost
 * its job (Redis restarted empty) or its runner (a worker died; its lease ran out).
 */
@Injectable()
export class ImportSweeper {
  constructor(
    private readonly store: ImportsStore,
    private readonly imports: ImportsService,
  ) {}

  @Every('import-sweep', (config) => config.get('imports.sweepEveryMs', { infer: true }))
  async sweep(): Promise<void> {
    for (const id of await this.store.runnable(SWEEP_BATCH)) await this.imports.enqueue(id);
  }
}
