import { InjectQueue } from '@nestjs/bull';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { startProcessing } from '../platform/queues/queue-processing';
import { ImportRunner } from './import-runner';
import { IMPORT_QUEUE, ImportJob } from './import-queue';
import { ImportsService } from './imports.service';
import { ImportsStore } from './imports.store';

/** One import at a time per worker: an import is long, and its chunks already batch the work. */
@Injectable()
export class ImportProcessor implements OnApplicationBootstrap {
  constructor(
    @InjectQueue(IMPORT_QUEUE) private readonly queue: Queue<ImportJob>,
    private readonly runner: ImportRunner,
    private readonly imports: ImportsService,
    private readonly store: ImportsStore,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: the loop runs for the life of the process (see startProcessing).
    void startProcessing(this.queue, 1, (job: Job<ImportJob>) => this.process(job.data.importId));
  }

  async process(importId: string): Promise<void> {
    await this.runner.run(importId);
    const row = await this.store.findById(importId);
    // The next import of the account and mode waits for this one to end or be held.
    if (row && row.status !== 'queued' && row.status !== 'running')
      await this.imports.startNext(row);
  }
}
