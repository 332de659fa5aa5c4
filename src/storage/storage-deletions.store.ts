import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** Runs SQL: the data source, or a transaction's own connection once it has committed. */
export interface Sql {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * `storage_deletions`: image files to delete, requested in the transaction that drops their rows
 * (see ImageFileCleanup), so a request exists exactly when the drop committed.
 */
@Injectable()
export class StorageDeletionsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** In the caller's transaction; a key already requested stays as it is. */
  async request(em: EntityManager, keys: string[]): Promise<void> {
    await em.query(
      `INSERT INTO storage_deletions (key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`,
      [keys],
    );
  }

  /**
   * Claims up to `limit` requests older than `graceMs`, oldest first, and moves their time to
   * now: SKIP LOCKED and the new time keep other sweeps off them until the grace has passed again.
   */
  async claimDue(graceMs: number, limit: number): Promise<string[]> {
    const [rows] = (await this.dataSource.query(
      `WITH due AS (
         SELECT key FROM storage_deletions
         WHERE requested_at < now() - make_interval(secs => $1::double precision / 1000)
         ORDER BY requested_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE storage_deletions d SET requested_at = now() FROM due
       WHERE d.key = due.key RETURNING d.key`,
      [graceMs, limit],
    )) as [{ key: string }[], number];
    return rows.map((row) => row.key);
  }

  /** Returns how many of `keys` were still requested. */
  async remove(sql: Sql, keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const [, removed] = (await sql.query('DELETE FROM storage_deletions WHERE key = ANY($1)', [
      keys,
    ])) as [unknown, number];
    return removed;
  }
}
