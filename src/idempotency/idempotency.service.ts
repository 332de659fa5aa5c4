import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { withSavepoint } from '../common/db/savepoint';
import { DomainError, FieldError, ValidationError } from '../common/errors/domain-error';
import { ERROR_HTTP_STATUS, ErrorCode } from '../common/errors/error-code';

const RETENTION = `interval '24 hours'`;

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

interface KeyRow {
  fingerprint: string;
  status_code: number | null;
  response: { data?: unknown; error?: StoredError } | null;
}

/**
 * Idempotency-Key: the key row is claimed in the same transaction as the work, so the work
 * commits exactly once. A concurrent request with the same key blocks on the uncommitted row
 * and, once the first commits, replays its answer; if the first rolled back (a 5xx), it runs.
 */
@Injectable()
export class IdempotencyService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async execute<T>(
    scope: OwnerScope,
    key: string,
    fingerprint: string,
    successStatus: number,
    work: (em: EntityManager) => Promise<T>,
  ): Promise<IdempotentOutcome<T>> {
    return this.dataSource.transaction(async (em) => {
      const claimed = await em.query(
        `INSERT INTO idempotency_keys AS k (account_id, livemode, key, fingerprint) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, livemode, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, status_code = NULL, response = NULL, created_at = now()
           WHERE k.created_at < now() - ${RETENTION}
         RETURNING 1`,
        [scope.accountId, scope.livemode, key, fingerprint],
      );
      if (claimed.length === 0) return this.replay<T>(em, scope, key, fingerprint);

      let outcome: IdempotentOutcome<T>;
      try {
        const data = await withSavepoint(em, () => work(em));
        outcome = { status: successStatus, data, replayed: false };
      } catch (error) {
        // Client errors are answers too and are kept; anything else rolls the claim back with it.
        if (!(error instanceof DomainError) || error.code === ErrorCode.SERVER_ERROR) throw error;
        const stored: StoredError = {
          code: error.code,
          message: error.message,
          details: error.details,
        };
        outcome = { status: ERROR_HTTP_STATUS[error.code], error: stored, replayed: false };
      }
      await em.query(
        `UPDATE idempotency_keys SET status_code = $4, response = $5
         WHERE account_id = $1 AND livemode = $2 AND key = $3`,
        [
          scope.accountId,
          scope.livemode,
          key,
          outcome.status,
          JSON.stringify({ data: outcome.data, error: outcome.error }),
        ],
      );
      return outcome;
    });
  }

  /** Drops keys past their 24 hours. */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - ${RETENTION}`,
    );
  }

  private async replay<T>(
    em: EntityManager,
    scope: OwnerScope,
    key: string,
    fingerprint: string,
  ): Promise<IdempotentOutcome<T>> {
    const [row]: KeyRow[] = await em.query(
      `SELECT fingerprint, status_code, response FROM idempotency_keys
       WHERE account_id = $1 AND livemode = $2 AND key = $3`,
      [scope.accountId, scope.livemode, key],
    );
    if (!row || row.fingerprint !== fingerprint) {
      throw ValidationError.field(
        'Idempotency-Key',
        'This Idempotency-Key was already used with a different request.',
      );
    }
    return {
      status: row.status_code!,
      data: row.response?.data as T | undefined,
      error: row.response?.error,
      replayed: true,
    };
  }
}
