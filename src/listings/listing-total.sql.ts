/**
 * A page's exact total (base counts plus unfolded deltas) as a subquery, written into the page's
 * statement rather than calling `listing_total()`, which PostgreSQL re-plans on every call.
 */
export const listingTotalSql = (accountId: string, livemode: string, statusCondition: string) =>
  `(SELECT COALESCE(sum(n), 0)::bigint FROM (
     SELECT count AS n FROM listing_counts
     WHERE account_id = ${accountId} AND livemode = ${livemode} AND ${statusCondition}
     UNION ALL
     SELECT delta FROM listing_count_deltas
     WHERE account_id = ${accountId} AND livemode = ${livemode} AND ${statusCondition}) counted)`;
