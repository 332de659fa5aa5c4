import type { JobOptions, ProcessPromiseFunction, Queue, QueueOptions } from 'bull';

/**
 * Every queue, job option and backoff of the webhook pipeline, in one place:
 * outbox relay → FANOUT (one job per event, which also makes each new delivery's first attempt)
 * → DELIVERY (a job per delivery whose first attempt failed, for the rest of its schedule; manual
 * retries; deliveries re-queued by recover or the sweep).
 */
export const FANOUT_QUEUE = 'webhook-fanout';
export const DELIVERY_QUEUE = 'webhook-delivery';

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

/**
 * The delay before the next attempt: the one the processor recorded, else the configured
 * schedule by attempts made (an unexpected error, e.g. the database went away mid-attempt).
 */
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

/**
 * Redis going away must not stall workers for long once it is back (Bull's default is 5 s).
 * A job whose worker died (its lock not renewed) goes back to the queue after about `jobLockMs`.
 */
function settings(jobLockMs: number) {
  return { retryProcessDelay: 1_000, lockDuration: jobLockMs, stalledInterval: jobLockMs };
}

export function fanoutQueueOptions(jobLockMs: number): QueueOptions {
  return {
    settings: { ...settings(jobLockMs), backoffStrategies: { [FANOUT_BACKOFF]: fanoutBackoff } },
  };
}

export function deliveryQueueOptions(
  retryDelaysMs: readonly number[],
  jobLockMs: number,
): QueueOptions {
  return {
    settings: {
      ...settings(jobLockMs),
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

/**
 * jobId = deliveryId: a repeated fan-out never doubles a delivery. `attemptsLeft` is counted
 * from the delivery record, which is the truth when a job is re-created for an old delivery.
 */
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
 * Gives a pending delivery its scheduled job again unless a live one exists; returns whether it
 * added one. A finished job under the same id would swallow the add, so it is removed first
 * (should that fail because another worker took it meanwhile, the add finds it and adds nothing).
 */
export async function requeueDelivery(
  queue: Queue<DeliveryJob>,
  deliveryId: string,
  attemptsLeft: number,
): Promise<boolean> {
  const job = await queue.getJob(deliveryId);
  if (job && LIVE_STATES.has(await job.getState())) return false;
  await job?.remove().catch(() => undefined);
  await queue.add({ deliveryId }, deliveryJobOptions(deliveryId, Math.max(1, attemptsLeft)));
  return true;
}

/**
 * A manual retry is a job of its own beside the delivery's scheduled one (whose id is the
 * deliveryId): one attempt, its own id so that every retry request runs.
 */
export function manualRetryJobOptions(deliveryId: string, requestedAt: number): JobOptions {
  return {
    jobId: `${deliveryId}:retry:${requestedAt}`,
    attempts: 1,
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_COMPLETED,
  };
}

/**
 * Bull names the worker's blocking connection when a processor is registered and does not handle
 * that command failing: a queue closed before the connection is up (a SIGTERM right after start,
 * or Redis down at shutdown) rejects it with "Connection is closed" and nothing catches it, which
 * crashes the process. The name only labels the connection in CLIENT LIST, so its failure is
 * dropped here.
 */
export function settleWorkerNaming(queue: Queue): void {
  const setWorkerName = queue.setWorkerName.bind(queue);
  queue.setWorkerName = () => setWorkerName().catch(() => undefined);
}

/**
 * Starts a queue's processing loop and settles when the loop stops. Bull's `process()` rejects
 * when the queue is closed before its connections came up (a SIGTERM while Redis is unreachable):
 * that is a normal shutdown, so it resolves. Any other stop means this worker takes no more jobs;
 * the rejection is left for the caller, whose unhandled rejection ends the process so that its
 * supervisor restarts it.
 */
export async function startProcessing<T>(
  queue: Queue<T>,
  concurrency: number,
  handler: ProcessPromiseFunction<T>,
): Promise<void> {
  try {
    await queue.process(concurrency, handler);
  } catch (error) {
    // Bull sets `closing` as `close()` begins; it is not in its typings.
    if (!(queue as Queue<T> & { closing?: unknown }).closing) throw error;
  }
}
