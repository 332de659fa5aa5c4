import type { JobOptions, QueueOptions } from 'bull';
import { stalledJobSettings } from '../platform/queues/stalled-jobs';

export const IMPORT_QUEUE = 'imports';

export interface ImportJob {
  importId: string;
}

/**
 * The database is the truth: a job only says "look at this import". Removed when done, so the
 * sweep can add it again (Bull dedupes by job id only while the job exists).
 */
export function importJobOptions(importId: string): JobOptions {
  return { jobId: importId, removeOnComplete: true, removeOnFail: true, attempts: 1 };
}

/**
 * A dead worker's job must leave Bull's active list within about a lease, as its import's claim
 * does: while it sits there, the sweep's re-queue (same job id) is ignored.
 */
export function importQueueOptions(leaseMs: number): QueueOptions {
  return { settings: stalledJobSettings(leaseMs) };
}
