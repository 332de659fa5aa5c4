import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import type { StoredKey, StoredResponse } from './idempotency-outcome';

/** How long a key's answer is kept (and the key refused for another request). */
const RETENTION = `interval '24 hours'`;

/** The one owner of `idempotency_keys`' SQL. */
@Injectable()
export class IdempotencyStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims the key in `em`'s transaction: true when new or expired (the row starts over); an
   * uncommitted claim makes a second one wait for it.
   */
  async claim(
    em: EntityManager,
    scope: OwnerScope,
    key: string,
    fingerprint: string,
  ): Promise<boolean> {
    const claimed: unknown[] = await em.query(
      `INSERT INTO idempotency_keys AS k (account_id, livemode, key, fingerprint) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, livemode, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, status_code = NULL, response = NULL, created_at = now()
         WHERE k.created_at < now() - ${RETENTION}
       RETURNING 1`,
      [scope.accountId, scope.livemode, key, fingerprint],
    );
    return claimed.length > 0;
  }

  async find(em: EntityManager, scope: OwnerScope, key: string): Promise<StoredKey | undefined> {
    const [row]: StoredKey[] = await em.query(
      `SELECT fingerprint, status_code AS "statusCode", response FROM idempotency_keys
       WHERE account_id = $1 AND livemode = $2 AND key = $3`,
      [scope.accountId, scope.livemode, key],
    );
    return row;
  }

  /** Keeps the answer of a claimed key, in the claim's transaction. */
  async saveResponse(
    em: EntityManager,
    scope: OwnerScope,
    key: string,
    status: number,
    response: StoredResponse,
  ): Promise<void> {
    await em.query(
      `UPDATE idempotency_keys SET status_code = $4, response = $5
       WHERE account_id = $1 AND livemode = $2 AND key = $3`,
      [scope.accountId, scope.livemode, key, status, JSON.stringify(response)],
    );
  }

  /** Drops keys past their retention; a claim would start those over anyway. */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - ${RETENTION}`,
    );
  }
}
