import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Account } from '../accounts/account.entity';
import { AccountsService } from '../accounts/accounts.service';
import type { AuditActor, AuditOrigin } from '../audit/audit-entry';
import { AuditService } from '../audit/audit.service';
import { NotFoundError, ValidationError } from '../common/errors/domain-error';
import { isUniqueViolation } from '../common/db/pg-errors';
import { CursorPage } from '../common/pagination/cursor-page';
import { AccessDecisionNotifier } from './access-decision-notifier';
import type { AccessRequest, AccessRequestInput, AccessRequestStatus } from './access-request';
import { AccessRequestsStore, ONE_OPEN_REQUEST } from './access-requests.store';

/** What a decision returns: enough to tell the account's owner (the mail is sent by the caller). */
export interface AccessDecision {
  accountId: string;
  request: AccessRequest;
  account: Account;
}

/** `admin`, `cli`, `user:<id>`: who decided, as kept in `decided_by`. */
export const decidedBy = (actor: AuditActor): string =>
  actor.id ? `${actor.type}:${actor.id}` : actor.type;

/**
 * A PENDING account asks for API access; staff approve (the account becomes APPROVED) or reject
 * it (the account may ask again). Each change writes its audit row in its own transaction.
 */
@Injectable()
export class AccessRequestsService {
  constructor(
    private readonly store: AccessRequestsStore,
    private readonly accounts: AccountsService,
    private readonly audit: AuditService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() private readonly notifier?: AccessDecisionNotifier,
  ) {}

  /**
   * Sends the account's request. Only a PENDING account asks, and it has one open request at a
   * time (edit it with `update`); a rejected account may send a new one.
   */
  submit(
    accountId: string,
    input: AccessRequestInput,
    origin: AuditOrigin,
    em?: EntityManager,
  ): Promise<AccessRequest> {
    return this.within(em, async (tx) => {
      const account = await this.accounts.getLocked(accountId, tx);
      if (account.status !== 'PENDING') {
        throw ValidationError.field(
          'status',
          `The account is ${account.status.toLowerCase()}; only a pending account requests access.`,
        );
      }
      let request: AccessRequest;
      try {
        request = await this.store.insert(tx, accountId, input);
      } catch (error) {
        if (isUniqueViolation(error, ONE_OPEN_REQUEST)) throw alreadyOpen();
        throw error;
      }
      await this.audit.record(tx, {
        ...origin,
        accountId,
        action: 'access.requested',
        target: request.id,
        details: { expectedListings: request.expectedListings },
      });
      return request;
    });
  }

  /** Changes the account's open request; only while it waits for a decision. */
  update(accountId: string, input: AccessRequestInput, em?: EntityManager): Promise<AccessRequest> {
    return this.within(em, async (tx) => {
      const request = await this.store.updateOpen(tx, accountId, input);
      if (!request) throw new NotFoundError('Open access request');
      return request;
    });
  }

  /** The account's latest request, whatever its status; null when it never sent one. */
  async current(accountId: string): Promise<AccessRequest | null> {
    return (await this.store.latest(accountId)) ?? null;
  }

  async get(id: string): Promise<AccessRequest> {
    const request = await this.store.find(id);
    if (!request) throw new NotFoundError('Access request');
    return request;
  }

  /** Oldest first; `after` is the previous page's `nextCursor`. */
  async list(
    status: AccessRequestStatus | null,
    after: string | null,
    limit: number,
  ): Promise<CursorPage<AccessRequest>> {
    const rows = await this.store.page(status, after, limit + 1);
    const items = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return new CursorPage(items, {
      limit,
      hasMore,
      nextCursor: items.length > 0 ? items[items.length - 1].id : null,
    });
  }

  /** Approves a pending request and, in the same transaction, makes its account APPROVED. */
  approve(id: string, origin: AuditOrigin): Promise<AccessDecision> {
    return this.decide(id, origin, async (tx, request) => {
      const decided = await this.store.decide(tx, id, 'approved', decidedBy(origin.actor), null);
      const account = await this.accounts.setStatus(request.accountId, 'APPROVED', tx);
      await this.audit.record(tx, {
        ...origin,
        accountId: request.accountId,
        action: 'access.approved',
        target: id,
      });
      await this.notifier?.decided(tx, {
        accountId: request.accountId,
        decision: 'approved',
        request: decided!,
      });
      return { accountId: request.accountId, request: decided!, account };
    });
  }

  /** Rejects a pending request; the account stays PENDING and may send a new one. */
  reject(id: string, reason: string, origin: AuditOrigin): Promise<AccessDecision> {
    return this.decide(id, origin, async (tx, request, account) => {
      const decided = await this.store.decide(tx, id, 'rejected', decidedBy(origin.actor), reason);
      await this.audit.record(tx, {
        ...origin,
        accountId: request.accountId,
        action: 'access.rejected',
        target: id,
        details: { reason },
      });
      await this.notifier?.decided(tx, {
        accountId: request.accountId,
        decision: 'rejected',
        request: decided!,
      });
      return { accountId: request.accountId, request: decided!, account };
    });
  }

  /**
   * Staff approve the account itself (admin API or CLI `account:approve`): it becomes APPROVED
   * and its open request, if any, is closed as approved, in one transaction. Audited when the
   * account was not approved before or a request was closed.
   */
  approveAccount(
    accountId: string,
    origin: AuditOrigin,
  ): Promise<{ account: Account; request: AccessRequest | null }> {
    return this.dataSource.transaction(async (tx) => {
      const before = await this.accounts.getLocked(accountId, tx);
      const account = await this.accounts.setStatus(accountId, 'APPROVED', tx);
      const request =
        (await this.store.approveOpen(tx, accountId, decidedBy(origin.actor))) ?? null;
      if (before.status !== 'APPROVED' || request) {
        await this.audit.record(tx, {
          ...origin,
          accountId,
          action: 'access.approved',
          target: request?.id ?? accountId,
          details: { previousStatus: before.status },
        });
      }
      if (before.status !== 'APPROVED')
        await this.notifier?.decided(tx, { accountId, decision: 'approved', request });
      return { account, request };
    });
  }

  /** The account's row, then the request's: the same order as every other change of either. */
  private decide(
    id: string,
    origin: AuditOrigin,
    change: (
      tx: EntityManager,
      request: AccessRequest,
      account: Account,
    ) => Promise<AccessDecision>,
  ): Promise<AccessDecision> {
    return this.dataSource.transaction(async (tx) => {
      const found = await this.store.find(id, tx);
      if (!found) throw new NotFoundError('Access request');
      const account = await this.accounts.getLocked(found.accountId, tx);
      const request = (await this.store.find(id, tx))!;
      if (request.status !== 'pending') {
        throw ValidationError.field(
          'status',
          `The access request is already ${request.status}; it cannot be decided again.`,
        );
      }
      return change(tx, request, account);
    });
  }

  private within<T>(
    em: EntityManager | undefined,
    work: (tx: EntityManager) => Promise<T>,
  ): Promise<T> {
    return em ? work(em) : this.dataSource.transaction(work);
  }
}

const alreadyOpen = () =>
  ValidationError.field(
    'status',
    'The account already has an open access request; edit it until it is decided.',
  );
