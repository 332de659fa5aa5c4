import { listingTotalSql } from './listing-total.sql';

describe('listingTotalSql', () => {
  const sql = listingTotalSql('$1', '$2', "status = 'SOLD'");

  it('adds the deltas not folded yet to the folded counts, under the same filter', () => {
    expect(sql).toMatch(
      /FROM listing_counts\s+WHERE account_id = \$1 AND livemode = \$2 AND status = 'SOLD'/,
    );
    expect(sql).toMatch(
      /FROM listing_count_deltas\s+WHERE account_id = \$1 AND livemode = \$2 AND status = 'SOLD'/,
    );
    expect(sql).toContain('UNION ALL');
  });

  it('is one scalar subquery that answers 0 when nothing is counted', () => {
    expect(sql).toMatch(/^\(SELECT COALESCE\(sum\(n\), 0\)::bigint FROM \(.*\) counted\)$/s);
  });

  it('writes the parameters it is given', () => {
    const other = listingTotalSql('$7', '$8', "status <> 'REMOVED'");
    expect(
      other.match(/account_id = \$7 AND livemode = \$8 AND status <> 'REMOVED'/g),
    ).toHaveLength(2);
    expect(other).not.toContain('$1');
  });
});
