import { setTimeout as sleep } from 'node:timers/promises';
import { isTransientConflict } from './pg-errors';

/** Runs of a transaction, the first included, before its conflict is the caller's error. */
const ATTEMPTS = 4;
/** The most a retry waits, times its number: apart, the two sides rarely meet again. */
const MAX_BACKOFF_MS = 40;

/**
 * Runs `transaction` (a whole one: a deadlock aborts it) again when PostgreSQL aborted it to
 * break a deadlock or a serialization conflict with other writers. Such a run changed nothing,
 * and work kept for after its commit was dropped with it, so running it again is safe.
 */
export async function retryingConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error;
      await sleep(Math.random() * MAX_BACKOFF_MS * attempt);
    }
  }
}
