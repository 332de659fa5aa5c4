import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';

/**
 * On SIGTERM, keeps serving for SHUTDOWN_DRAIN_MS while /health/ready answers 503, so load
 * balancers stop sending new requests before the server closes. Closing at once would reset
 * connections the kernel has already accepted but Node has not yet read.
 */
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
