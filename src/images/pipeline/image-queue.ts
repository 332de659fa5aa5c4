import type { JobOptions, QueueOptions } from 'bull';
import { stalledJobSettings } from '../../platform/queues/stalled-jobs';
import type { ImagePriority } from '../../listings/gallery/image-priority';

export const IMAGE_QUEUE = 'images';

export interface ImageJob {
  imageId: string;
}

/** Past this a job is failed by Bull, and its image handed over again after the lease. */
const JOB_TIMEOUT_MS = 120_000;
/** Bull's default lock: a job stalled within it is run again by Bull itself, before a longer lease ends. */
const MAX_JOB_LOCK_MS = 30_000;

/**
 * The database is the truth: a job only says "process this image". One job per image (its id),
 * removed when done, so the dispatcher can hand the image over again (Bull dedupes by job id
 * only while the job exists); the outcome is in the image row. Bull takes a lower `priority`
 * first (1 the highest, 0 none), so a single request's image claimed after a bulk one still
 * runs before it.
 */
export function imageJobOptions(imageId: string, priority: ImagePriority): JobOptions {
  return {
    jobId: imageId,
    priority: priority + 1,
    removeOnComplete: true,
    removeOnFail: true,
    attempts: 1,
    timeout: JOB_TIMEOUT_MS,
  };
}

/**
 * A dead worker's job must leave Bull's active list within about its image's lease, as the
 * image's claim does: while it sits there, the dispatcher's hand-over (same job id) is ignored.
 */
export function imageQueueOptions(leaseMs: number): QueueOptions {
  return { settings: stalledJobSettings(Math.min(leaseMs, MAX_JOB_LOCK_MS)) };
}
