import type { JobOptions } from 'bull';

export const IMAGE_QUEUE = 'images';

export interface ImageJob {
  imageId: string;
}

/** Past this a job is failed by Bull, and its image handed over again after the lease. */
const JOB_TIMEOUT_MS = 120_000;

/**
 * The database is the truth: a job only says "process this image". One job per image (its id),
 * removed when done, so the dispatcher can hand the image over again (Bull dedupes by job id
 * only while the job exists); the outcome is in the image row.
 */
export function imageJobOptions(imageId: string): JobOptions {
  return {
    jobId: imageId,
    removeOnComplete: true,
    removeOnFail: true,
    attempts: 1,
    timeout: JOB_TIMEOUT_MS,
  };
}
