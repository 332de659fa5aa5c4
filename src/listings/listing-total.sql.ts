/**
 * The exact total behind GET /listings as a subquery: the folded base counts plus the deltas not
 * folded yet (see the Listings migration and ListingCountsService.fold). `accountId` and
 * `livemode` are the statement's parameters; `statusCondition` is SQL over `status` (a closed
 * set of values, written into the text). It is written into the page's own statement rather than
 * called as the SqlFunctions migration's `listing_total()`: PostgreSQL 15 plans a SQL function's
 * body again on every call it cannot inline, and one with a FROM it never inlines, which cost
 * about 0.15 ms of database CPU per page; a prepared page plans this once.
 */
export const listingTotalSql = (accountId: string, livemode: string, statusCondition: string) =>
  `(SELECT COALESCE(sum(n), 0)::bigint FROM (
     SELECT count AS n FROM listing_counts
     WHERE account_id = ${accountId} AND livemode = ${livemode} AND ${statusCondition}
     UNION ALL
     SELECT delta FROM listing_count_deltas
     WHERE account_id = ${accountId} AND livemode = ${livemode} AND ${statusCondition}) counted)`;
