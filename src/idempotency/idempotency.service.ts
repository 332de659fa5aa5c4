import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { withSavepoint } from '../common/db/savepoint';
import { ValidationError } from '../common/errors/domain-error';
import {
  decideClaimedKey,
  errorOutcome,
  IdempotentOutcome,
  storedResponse,
  successOutcome,
} from './idempotency-outcome';
import { IdempotencyStore } from './idempotency.store';
import { Every } from '../platform/scheduling/every.decorator';

export type { IdempotentOutcome, StoredError } from './idempotency-outcome';

const PURGE_EVERY_MS = 10 * 60_000;

/**
 * The key row is claimed in the work's transaction, so the work commits once; a concurrent
 * request with the key waits on that row, then replays the answer, or runs if it rolled back.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: IdempotencyStore,
  ) {}

  async execute<T>(
    scope: OwnerScope,
    key: string,
    fingerprint: string,
    successStatus: number,
    work: (em: EntityManager) => Promise<T>,
  ): Promise<IdempotentOutcome<T>> {
    return this.dataSource.transaction(async (em) => {
      if (!(await this.store.claim(em, scope, key, fingerprint))) {
        return this.replay<T>(em, scope, key, fingerprint);
      }
      let outcome: IdempotentOutcome<T>;
      try {
        outcome = successOutcome(successStatus, await withSavepoint(em, () => work(em)));
      } catch (error) {
        const kept = errorOutcome(error);
        if (!kept) throw error;
        outcome = kept;
      }
      await this.store.saveResponse(em, scope, key, outcome.status, storedResponse(outcome));
      return outcome;
    });
  }

  /**
   * `execute` when a key came with the request; without one, the work in a transaction of its own,
   * answered as a first run. `fingerprint` is computed only for a key.
   */
  async executeIfKeyed<T>(
    scope: OwnerScope,
    key: string | undefined,
    fingerprint: () => string,
    successStatus: number,
    work: (em: EntityManager) => Promise<T>,
  ): Promise<IdempotentOutcome<T>> {
    if (key === undefined)
      return successOutcome(successStatus, await this.dataSource.transaction(work));
    return this.execute(scope, key, fingerprint(), successStatus, work);
  }

  /** Drops keys past their 24 hours. */
  @Every('idempotency-purge', PURGE_EVERY_MS)
  purgeExpired(): Promise<void> {
    return this.store.purgeExpired();
  }

  private async replay<T>(
    em: EntityManager,
    scope: OwnerScope,
    key: string,
    fingerprint: string,
  ): Promise<IdempotentOutcome<T>> {
    const decision = decideClaimedKey<T>(await this.store.find(em, scope, key), fingerprint);
    switch (decision.kind) {
      case 'replay':
        return decision.outcome;
      case 'conflict':
        throw ValidationError.field(
          'Idempotency-Key',
          'This Idempotency-Key was already used with a different request.',
        );
      case 'in-progress':
        throw new Error('An idempotency key was claimed without its answer being stored');
    }
  }
}
