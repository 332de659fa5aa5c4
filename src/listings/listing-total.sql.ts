/** Base counts plus unfolded deltas, inlined: `listing_total()` is re-planned on every call. */
export const listingTotalSql = (accountId: string, livemode: string, statusCondition: string) =>
  `(SELECT COALESCE(sum(n), 0)::bigint FROM (
     SELECT count AS n FROM listing_counts
     WHERE account_id = ${accountId} AND livemode = ${livemode} AND ${statusCondition}
     UNION ALL
     SELECT delta FROM listing_count_deltas
     WHERE account_id = ${accountId} AND livemode = ${livemode} AND ${statusCondition}) counted)`;
