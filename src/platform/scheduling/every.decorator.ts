import { SetMetadata } from '@nestjs/common';
import type { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../config';

export const EVERY_METADATA = 'lsvc:every';

/** A fixed period, or one read from the configuration when the worker starts. */
export type JobInterval = number | ((config: ConfigService<AllConfig, true>) => number);

export interface EveryOptions {
  name: string;
  interval: JobInterval;
}

/**
 * Marks a provider's method as a periodic job of the worker (PeriodicJobs runs it; elsewhere the
 * mark is inert). The method may take `stopping`, true once shutdown began, to end between batches.
 */
export const Every = (name: string, interval: JobInterval): MethodDecorator =>
  SetMetadata<string, EveryOptions>(EVERY_METADATA, { name, interval });
