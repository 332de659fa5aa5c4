import { InjectQueue } from '@nestjs/bull';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Queue } from 'bull';
import type { AllConfig } from '../platform/config';
import { startProcessing } from '../platform/queues/queue-processing';
import { ImportRunner } from './import-runner';
import { IMPORT_QUEUE, ImportJob } from './import-queue';
import { ImportsService } from './imports.service';
import { ImportsStore } from './imports.store';

/**
 * IMPORT_CONCURRENCY imports at a time per worker. A job only wakes a runner, which claims the
 * import next in the claim's fairness order: when that is not the job's own, the other's job,
 * still waiting, wakes a runner for it (or the sweep does, if that job was lost).
 */
@Injectable()
export class ImportProcessor implements OnApplicationBootstrap {
  private readonly concurrency: number;

  constructor(
    @InjectQueue(IMPORT_QUEUE) private readonly queue: Queue<ImportJob>,
    private readonly runner: ImportRunner,
    private readonly imports: ImportsService,
    private readonly store: ImportsStore,
    config: ConfigService<AllConfig, true>,
  ) {
    this.concurrency = config.get('imports.concurrency', { infer: true });
  }

  onApplicationBootstrap(): void {
    // Not awaited: the loop runs for the life of the process (see startProcessing).
    void startProcessing(this.queue, this.concurrency, () => this.process());
  }

  async process(): Promise<void> {
    const ran = await this.runner.run();
    const row = ran && (await this.store.findById(ran));
    // The next import of the account and mode waits for this one to end or be held.
    if (row && row.status !== 'queued' && row.status !== 'running')
      await this.imports.startNext(row);
  }
}
