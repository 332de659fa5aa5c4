import type { JobOptions, Queue, QueueOptions } from 'bull';
import type { EventLane } from '../../events/event-lane';
import { stalledJobSettings } from '../../platform/queues/stalled-jobs';

/**
 * relay → FANOUT (per event, makes first attempts) → DELIVERY (later attempts, retries), each
 * once per lane: a bulk backlog never holds a queue or a worker slot an interactive event needs.
 */
export const FANOUT_QUEUE = 'webhook-fanout';
export const FANOUT_BULK_QUEUE = 'webhook-fanout-bulk';
export const DELIVERY_QUEUE = 'webhook-delivery';
export const DELIVERY_BULK_QUEUE = 'webhook-delivery-bulk';

export const FANOUT_QUEUES: Record<EventLane, string> = {
  interactive: FANOUT_QUEUE,
  bulk: FANOUT_BULK_QUEUE,
};
export const DELIVERY_QUEUES: Record<EventLane, string> = {
  interactive: DELIVERY_QUEUE,
  bulk: DELIVERY_BULK_QUEUE,
};

export interface FanoutJob {
  eventId: string;
}

export interface DeliveryJob {
  deliveryId: string;
  /** a manual retry: one attempt outside the schedule */
  manual?: boolean;
}

/** Named on delivery jobs; resolved per queue in `settings.backoffStrategies`. */
export const DELIVERY_BACKOFF = 'webhook';
const FANOUT_BACKOFF = 'fanout';

/** Fan-out only touches PostgreSQL and Redis: retry quickly, for a long time, with the job kept. */
const FANOUT_ATTEMPTS = 50;
const FANOUT_MAX_DELAY_MS = 60_000;

/** Bull's job-id dedupe only works while the job exists: completed jobs stay a while for that. */
const KEEP_COMPLETED = { age: 24 * 3600, count: 10_000 };

/** A failed attempt carries the delay the delivery record was given, so Bull and the record agree. */
export class DeliveryAttemptError extends Error {
  constructor(
    message: string,
    readonly retryDelayMs?: number,
  ) {
    super(message);
    this.name = 'DeliveryAttemptError';
  }
}

/** The delay the processor recorded, else the schedule by attempts made (an unexpected error). */
export function webhookBackoff(retryDelaysMs: readonly number[]) {
  return (attemptsMade: number, error?: Error): number => {
    if (error instanceof DeliveryAttemptError && error.retryDelayMs !== undefined) {
      return error.retryDelayMs;
    }
    return retryDelaysMs[Math.min(attemptsMade, retryDelaysMs.length) - 1] ?? 0;
  };
}

export function fanoutBackoff(attemptsMade: number): number {
  return Math.min(250 * 2 ** (attemptsMade - 1), FANOUT_MAX_DELAY_MS);
}

export function fanoutQueueOptions(jobLockMs: number): QueueOptions {
  return {
    settings: {
      ...stalledJobSettings(jobLockMs),
      backoffStrategies: { [FANOUT_BACKOFF]: fanoutBackoff },
    },
  };
}

export function deliveryQueueOptions(
  retryDelaysMs: readonly number[],
  jobLockMs: number,
): QueueOptions {
  return {
    settings: {
      ...stalledJobSettings(jobLockMs),
      backoffStrategies: { [DELIVERY_BACKOFF]: webhookBackoff(retryDelaysMs) },
    },
  };
}

/** jobId = event id: a relay that enqueues the same event twice gets one job. */
export function fanoutJobOptions(eventId: string): JobOptions {
  return {
    jobId: eventId,
    attempts: FANOUT_ATTEMPTS,
    backoff: { type: FANOUT_BACKOFF },
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: false,
  };
}

/** jobId = deliveryId, so a repeated fan-out never doubles a delivery; attempts from the record. */
export function deliveryJobOptions(deliveryId: string, attemptsLeft: number): JobOptions {
  return {
    jobId: deliveryId,
    attempts: attemptsLeft,
    backoff: { type: DELIVERY_BACKOFF },
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_COMPLETED,
  };
}

const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'paused']);

/**
 * Queues a pending delivery again unless a live job holds it in either lane (a live job elsewhere
 * would make it attempted twice); a finished job with the same id would swallow the add, so it is
 * removed first.
 */
export async function requeueDelivery(
  queues: { target: Queue<DeliveryJob>; other: Queue<DeliveryJob> },
  deliveryId: string,
  attemptsLeft: number,
): Promise<boolean> {
  const [job, elsewhere] = await Promise.all([
    queues.target.getJob(deliveryId),
    queues.other.getJob(deliveryId),
  ]);
  for (const live of [job, elsewhere])
    if (live && LIVE_STATES.has(await live.getState())) return false;
  await job?.remove().catch(() => undefined);
  await queues.target.add(
    { deliveryId },
    deliveryJobOptions(deliveryId, Math.max(1, attemptsLeft)),
  );
  return true;
}

/** Beside the scheduled job (id = deliveryId), with its own id so every retry request runs. */
export function manualRetryJobOptions(deliveryId: string, requestedAt: number): JobOptions {
  return {
    jobId: `${deliveryId}:retry:${requestedAt}`,
    attempts: 1,
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_COMPLETED,
  };
}
