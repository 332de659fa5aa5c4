import type { Response } from 'express';
import { DomainError } from '../common/errors/domain-error';
import type { IdempotentOutcome } from './idempotency.service';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Writes an outcome's status and replay header; returns its data or throws its stored error. */
export function sendIdempotent<T>(res: Response, outcome: IdempotentOutcome<T>): T {
  if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
  res.status(outcome.status);
  if (outcome.error)
    throw new DomainError(outcome.error.code, outcome.error.message, outcome.error.details);
  return outcome.data as T;
}
