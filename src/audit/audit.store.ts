import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { purgeBefore } from '../platform/database/purge-before';
import { storableJson } from '../common/db/storable-json';
import type { AuditAction, AuditActorType, AuditEntry, AuditRecord } from './audit-entry';

interface AuditRow {
  id: string;
  account_id: string | null;
  actor_type: AuditActorType;
  actor_id: string | null;
  action: AuditAction;
  target: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

@Injectable()
export class AuditStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(em: EntityManager, entry: AuditEntry): Promise<void> {
    await em.query(
      `INSERT INTO audit_log (account_id, actor_type, actor_id, action, target, ip, user_agent, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        entry.accountId,
        entry.actor.type,
        entry.actor.id ?? null,
        entry.action,
        entry.target ?? null,
        entry.ip ?? null,
        entry.userAgent ?? null,
        storableJson(entry.details ?? {}),
      ],
    );
  }

  /** Newest first; `before` is the id of the last row of the previous page. */
  async page(accountId: string, limit: number, before: string | null): Promise<AuditRecord[]> {
    const rows: AuditRow[] = await this.db.query(
      `SELECT * FROM audit_log
        WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
        ORDER BY id DESC LIMIT $3`,
      [accountId, before, limit],
    );
    return rows.map(toRecord);
  }

  /** The ids of up to `limit` rows newer than `after`, oldest first (paging back to newer rows). */
  async idsAfter(accountId: string, after: string, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM audit_log WHERE account_id = $1 AND id > $2::bigint ORDER BY id LIMIT $3`,
      [accountId, after, limit],
    );
    return rows.map((r) => String(r.id));
  }

  /** Deletes up to `limit` rows written before the cutoff; returns how many went. */
  purgeBefore(cutoff: Date, limit: number): Promise<number> {
    return purgeBefore(this.db, 'audit_log', cutoff, limit);
  }
}

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    actorType: row.actor_type,
    actorId: row.actor_id,
    action: row.action,
    target: row.target,
    ip: row.ip,
    userAgent: row.user_agent,
    details: row.details,
    createdAt: row.created_at,
  };
}
