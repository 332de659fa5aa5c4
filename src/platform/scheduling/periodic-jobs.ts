import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { AllConfig } from '../config';
import { EVERY_METADATA, EveryOptions } from './every.decorator';

type JobMethod = (stopping: () => boolean) => Promise<unknown>;

/**
 * Starts every `@Every` method of the worker's providers as an interval in @nestjs/schedule's
 * registry, under its name. A job never overlaps itself: a tick that finds the last run still
 * going is skipped. Shutdown waits for the runs in progress, which see `stopping()` and end
 * between their batches.
 */
@Injectable()
export class PeriodicJobs implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PeriodicJobs.name);
  private readonly runs = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly registry: SchedulerRegistry,
    private readonly config: ConfigService<AllConfig, true>,
  ) {}

  onApplicationBootstrap(): void {
    const stopping = () => this.stopping;
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const host = instance as Record<string, JobMethod>;
      for (const method of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const job = this.reflector.get<EveryOptions | undefined>(EVERY_METADATA, host[method]);
        if (job) this.start(job, () => host[method](stopping));
      }
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    // @nestjs/schedule clears the intervals itself; no run starts once stopping is set.
    this.stopping = true;
    await Promise.all(this.runs.values());
  }

  /** First run one interval after start; an outage is logged once, at its first failure, and its end. */
  private start({ name, interval }: EveryOptions, run: () => Promise<unknown>): void {
    const ms = typeof interval === 'number' ? interval : interval(this.config);
    let failing = false;
    const timer = setInterval(() => {
      if (this.stopping || this.runs.has(name)) return;
      // Through a promise, so a job that throws before its first await is logged, not fatal.
      const running = Promise.resolve()
        .then(run)
        .then(
          () => {
            if (failing) this.logger.log(`${name} recovered`);
            failing = false;
          },
          (error: unknown) => {
            if (!failing)
              this.logger.error({ err: error }, `${name} failed; retried every interval`);
            failing = true;
          },
        )
        .finally(() => this.runs.delete(name));
      this.runs.set(name, running);
    }, ms);
    // Throws on a second job of the same name: two providers would run one job twice.
    this.registry.addInterval(name, timer);
  }
}
