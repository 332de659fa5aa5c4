import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AllConfig } from '../platform/config';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Serves SHUTDOWN_DRAIN_MS after SIGTERM with readiness 503, so balancers drain before close.
 * Readiness turns the moment the signal lands: Nest's hooks before this one (a process of role
 * `all` stopping its workers) take seconds, and the drain counts from the signal too.
 */
@Injectable()
export class ShutdownDrain
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(ShutdownDrain.name);
  private drainingSince: number | undefined;
  private readonly signalled = () => {
    this.drainingSince ??= Date.now();
  };

  constructor(private readonly config: ConfigService<AllConfig, true>) {}

  get isDraining(): boolean {
    return this.drainingSince !== undefined;
  }

  onApplicationBootstrap(): void {
    for (const signal of SIGNALS) process.on(signal, this.signalled);
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const drainMs = this.config.get('app.shutdownDrainMs', { infer: true });
    if (!signal || drainMs === 0) return;
    this.signalled();
    const left = drainMs - (Date.now() - this.drainingSince!);
    this.logger.log(`${signal}: draining for ${drainMs} ms before closing`);
    if (left > 0) await sleep(left);
  }

  onApplicationShutdown(): void {
    for (const signal of SIGNALS) process.off(signal, this.signalled);
  }
}
