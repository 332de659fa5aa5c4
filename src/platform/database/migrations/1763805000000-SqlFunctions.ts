import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SQL the service composes into its statements, so that one statement can do what took several
 * round trips:
 * - `api_timestamp` renders a timestamp as the API does (JavaScript's toISOString: UTC,
 *   milliseconds, truncated like the driver's Date), for events built in SQL.
 * - `listing_total` is the exact total behind GET /listings: the folded base counts plus the
 *   deltas not yet folded (see the Listings migration). A NULL status means all but REMOVED.
 *   It rides in the same statement as the page it totals.
 */
export class SqlFunctions1763805000000 implements MigrationInterface {
  name = 'SqlFunctions1763805000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION api_timestamp(t timestamptz) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
    await q.query(`CREATE FUNCTION listing_total(p_account uuid, p_livemode boolean, p_status text)
      RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT COALESCE(sum(n), 0)::bigint FROM (
          SELECT count AS n FROM listing_counts
          WHERE account_id = p_account AND livemode = p_livemode
            AND CASE WHEN p_status IS NULL THEN status <> 'REMOVED' ELSE status = p_status END
          UNION ALL
          SELECT delta FROM listing_count_deltas
          WHERE account_id = p_account AND livemode = p_livemode
            AND CASE WHEN p_status IS NULL THEN status <> 'REMOVED' ELSE status = p_status END
        ) t
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION listing_total(uuid, boolean, text)`);
    await q.query(`DROP FUNCTION api_timestamp(timestamptz)`);
  }
}
