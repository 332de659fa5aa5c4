import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuditEntry, AuditRecord } from './audit-entry';
import { AuditStore } from './audit.store';

export interface AuditPage {
  items: AuditRecord[];
  /** the id to pass as `before` for the next page; null on the last */
  nextCursor: string | null;
}

/** The audit log. `record` takes the action's own transaction: an action that fails leaves no row. */
@Injectable()
export class AuditService {
  constructor(private readonly store: AuditStore) {}

  record(em: EntityManager, entry: AuditEntry): Promise<void> {
    return this.store.insert(em, entry);
  }

  async page(accountId: string, limit: number, before: string | null = null): Promise<AuditPage> {
    const rows = await this.store.page(accountId, limit + 1, before);
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
  }

  /**
   * The `before` of the page of newer rows than the page whose newest row is `newestId`:
   * undefined when there are none, null when that newer page is the first one.
   */
  async newerCursor(
    accountId: string,
    limit: number,
    newestId: string,
  ): Promise<string | null | undefined> {
    const ids = await this.store.idsAfter(accountId, newestId, limit + 1);
    if (ids.length === 0) return undefined;
    return ids.length > limit ? ids[limit] : null;
  }
}
