import type { JobOptions } from 'bull';

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
