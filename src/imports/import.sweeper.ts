import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { PollingLoop } from '../platform/scheduling/polling-loop';
import { ImportsService } from './imports.service';
import { ImportsStore } from './imports.store';

/** Imports queued again per sweep: more than any number of workers takes up in one interval. */
const SWEEP_BATCH = 100;

/**
 * The database is the truth: queues again every import that should be running and may have lost
 * its job (Redis restarted empty) or its runner (a worker died; its lease ran out).
 */
@Injectable()
export class ImportSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ImportSweeper.name);
  private readonly loop: PollingLoop;

  constructor(
    private readonly store: ImportsStore,
    private readonly imports: ImportsService,
    config: ConfigService<AllConfig, true>,
  ) {
    this.loop = new PollingLoop(
      this.logger,
      config.get('imports.sweepEveryMs', { infer: true }),
      'Import sweep failed',
      () => this.sweep(),
      { runAtStart: false },
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  async sweep(): Promise<void> {
    for (const id of await this.store.runnable(SWEEP_BATCH)) await this.imports.enqueue(id);
  }
}
