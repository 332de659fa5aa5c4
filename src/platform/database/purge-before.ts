import type { DataSource, EntityManager } from 'typeorm';

/** Append-only tables whose rows go after a retention: an identity `id` and a `created_at`. */
export type AppendOnlyTable = 'audit_log' | 'mail_outbox';

/**
 * Deletes up to `limit` rows of `table` made before `cutoff`, oldest first (by id: rows are only
 * appended), and answers how many: one batch of a retention purge (inBatches). Called only by
 * the table's own store.
 */
export async function purgeBefore(
  db: DataSource | EntityManager,
  table: AppendOnlyTable,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const [{ deleted }]: { deleted: number }[] = await db.query(
    `WITH deleted AS (
       DELETE FROM ${table} WHERE id IN (
         SELECT id FROM ${table} WHERE created_at < $1 ORDER BY id LIMIT $2
       ) RETURNING 1
     )
     SELECT count(*)::int AS deleted FROM deleted`,
    [cutoff, limit],
  );
  return deleted;
}
