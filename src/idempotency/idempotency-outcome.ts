import { DomainError, FieldError } from '../common/errors/domain-error';
import { ERROR_HTTP_STATUS, ErrorCode } from '../common/errors/error-code';

export interface StoredError {
  code: ErrorCode;
  message: string;
  details?: FieldError[];
}

/** What to answer: a first execution's result, or the replay of an earlier one. */
export interface IdempotentOutcome<T> {
  status: number;
  data?: T;
  error?: StoredError;
  replayed: boolean;
}

/** The answer kept with a key, replayed as it was given. */
export interface StoredResponse {
  data?: unknown;
  error?: StoredError;
}

/** A key's stored row; `statusCode` and `response` are null until its claim's work is done. */
export interface StoredKey {
  fingerprint: string;
  statusCode: number | null;
  response: StoredResponse | null;
}

/** What a request whose key was already claimed gets. */
export type ClaimedKeyDecision<T> =
  | { kind: 'replay'; outcome: IdempotentOutcome<T> }
  /** no such row, or it answered a different request */
  | { kind: 'conflict' }
  /** a row without its answer: its claim committed without one, which the service never does */
  | { kind: 'in-progress' };

export function decideClaimedKey<T>(
  row: StoredKey | undefined,
  fingerprint: string,
): ClaimedKeyDecision<T> {
  if (!row || row.fingerprint !== fingerprint) return { kind: 'conflict' };
  if (row.statusCode === null) return { kind: 'in-progress' };
  return {
    kind: 'replay',
    outcome: {
      status: row.statusCode,
      data: row.response?.data as T | undefined,
      error: row.response?.error,
      replayed: true,
    },
  };
}

export function successOutcome<T>(status: number, data: T): IdempotentOutcome<T> {
  return { status, data, replayed: false };
}

/**
 * A failed first execution's kept answer: client errors are answers; anything else (a server
 * error, a 429 such as the unfinished-imports limit) is undefined and must roll the claim back
 * with the work.
 */
const TRANSIENT: ErrorCode[] = [ErrorCode.SERVER_ERROR, ErrorCode.RATE_LIMITED];

export function errorOutcome(error: unknown): IdempotentOutcome<never> | undefined {
  if (!(error instanceof DomainError) || TRANSIENT.includes(error.code)) return undefined;
  return {
    status: ERROR_HTTP_STATUS[error.code],
    error: { code: error.code, message: error.message, details: error.details },
    replayed: false,
  };
}

/** What is stored with the key: exactly what a replay answers. */
export function storedResponse(outcome: IdempotentOutcome<unknown>): StoredResponse {
  return { data: outcome.data, error: outcome.error };
}
