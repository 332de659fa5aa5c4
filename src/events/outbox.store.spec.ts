import { feedPageStatement } from './outbox.store';

const scope = { accountId: 'acc', livemode: true };

describe('feedPageStatement', () => {
  it('passes absent filters as null and the page size last', () => {
    const { params } = feedPageStatement(scope, { retentionMs: 1_000, limit: 50 });
    expect(params).toEqual(['acc', true, null, 1_000, null, null, 50]);
  });

  it('passes the cursor, the event types and the listing id as given', () => {
    const { params } = feedPageStatement(scope, {
      after: 'evt',
      retentionMs: 5,
      types: ['listing.sold'],
      listingId: 'LST',
      limit: 1,
    });
    expect(params).toEqual(['acc', true, 'evt', 5, ['listing.sold'], 'LST', 1]);
  });

  const { text } = feedPageStatement(scope, { retentionMs: 1, limit: 1 });

  it('finds the cursor only among the scope’s positioned events within retention', () => {
    const cursor = text.match(
      /\(SELECT feed_position FROM outbox_events\s+WHERE ([\s\S]*?millisecond'\))/,
    )![1];
    expect(cursor).toContain('id = $3 AND account_id = $1 AND livemode = $2');
    expect(cursor).toContain('feed_position IS NOT NULL');
    expect(cursor).toContain("created_at >= now() - $4 * interval '1 millisecond'");
    expect(text).toContain('($3::uuid IS NULL OR EXISTS (SELECT feed_position');
  });

  it('reads the page in feed order after the cursor, and probes one row past it for more', () => {
    expect(text).toContain('feed_position > COALESCE(');
    expect(text).toContain('ORDER BY feed_position');
    expect(text).toMatch(
      /EXISTS \(SELECT 1 FROM outbox_events[\s\S]*OFFSET \$7 LIMIT 1\) AS "hasMore"/,
    );
    expect(text).toMatch(/SELECT id, feed_item FROM outbox_events[\s\S]*LIMIT \$7\) ordered/);
  });

  it('filters by type and listing only when asked, the listing id case-insensitively', () => {
    expect(text).toContain('($5::text[] IS NULL OR event = ANY($5))');
    expect(text).toContain(
      "($6::text IS NULL OR (data->>'id' = lower($6) AND event NOT LIKE 'import.%'))",
    );
  });

  it('answers an empty page as [] and the last id as the next cursor', () => {
    expect(text).toContain("'[' || COALESCE(string_agg(feed_item, ','), '') || ']' AS items");
    expect(text).toContain('(array_agg(id))[count(*)] AS "nextCursor"');
  });
});
