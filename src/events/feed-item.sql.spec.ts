import { feedItemSql } from './feed-item.sql';

describe('feedItemSql', () => {
  const sql = feedItemSql('o');

  it('writes {id, event, timestamp, livemode, data} in that order', () => {
    expect([...sql.matchAll(/"(\w+)":/g)].map((m) => m[1])).toEqual([
      'id',
      'event',
      'timestamp',
      'livemode',
      'data',
    ]);
  });

  it('reads the given alias only; data is the stored payload as it is, the time as the API writes it', () => {
    expect(new Set([...sql.matchAll(/\b(\w+)\.\w+\b/g)].map((m) => m[1]))).toEqual(new Set(['o']));
    expect(sql).toContain('o.data::text');
    expect(sql).toContain('api_timestamp(o.created_at)');
    expect(sql).toContain('to_json(o.event)::text');
  });
});
