import type { Client } from 'pg';

/**
 * Waits until every outbox event is relayed and placed in the feed; returns the seconds it took.
 * A scenario that writes many events leaves the worker relaying and positioning them after it
 * ends, in the same processes and database the next scenario measures.
 */
export async function outboxSettled(
  db: Client,
  { timeoutMs = 120_000, pollMs = 100 } = {},
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { rows } = await db.query(
      `SELECT EXISTS (SELECT 1 FROM outbox_events
         WHERE relayed_at IS NULL OR feed_position IS NULL) AS pending`,
    );
    if (!rows[0].pending) return (Date.now() - started) / 1000;
    if (Date.now() - started > timeoutMs)
      throw new Error(`the outbox did not settle in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * What the scenarios before left behind, cleaned up as a live server's autovacuum would have
 * in the minutes between (this bench's server runs without it): their events settled, then the
 * tables every import and sale writes vacuumed and analysed. Without it a scenario late in the
 * full run walks the dead index entries of every scenario before it (the renewing feed measured
 * 0.54 there against 0.70 alone).
 */
export async function settleTables(db: Client): Promise<void> {
  await outboxSettled(db, { timeoutMs: 600_000 });
  await db.query(
    `VACUUM ANALYZE outbox_events, listings, listing_line_hashes, listing_count_deltas, imports,
       import_results, webhook_deliveries, webhook_delivery_attempts`,
  );
}
