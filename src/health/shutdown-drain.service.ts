import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';

/** Serves SHUTDOWN_DRAIN_MS after SIGTERM with readiness 503, so balancers drain before close. */
@Injectable()
export class ShutdownDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ShutdownDrain.name);
  private draining = false;

  constructor(private readonly config: ConfigService<AllConfig, true>) {}

  get isDraining(): boolean {
    return this.draining;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const drainMs = this.config.get('app.shutdownDrainMs', { infer: true });
    if (!signal || drainMs === 0) return;
    this.draining = true;
    this.logger.log(`${signal}: draining for ${drainMs} ms before closing`);
    await new Promise((resolve) => setTimeout(resolve, drainMs));
  }
}
