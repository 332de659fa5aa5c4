import { UsageTally } from './usage-tally';

const KEY = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const at = (iso: string) => Date.parse(iso);

describe('UsageTally', () => {
  it('counts per key, UTC day, method, route and status class, with 429 apart', () => {
    const tally = new UsageTally();
    tally.add(KEY, 'GET', '/v1/listings/:id', 200, at('2025-01-01T10:00:00Z'));
    tally.add(KEY, 'GET', '/v1/listings/:id', 204, at('2025-01-01T11:00:00Z'));
    tally.add(KEY, 'GET', '/v1/listings/:id', 404, at('2025-01-01T12:00:00Z'));
    tally.add(KEY, 'GET', '/v1/listings/:id', 429, at('2025-01-01T13:00:00Z'));
    tally.add(KEY, 'GET', '/v1/listings/:id', 200, at('2025-01-02T00:00:00Z'));
    tally.add(KEY, 'POST', '/v1/listings', 500, at('2025-01-01T23:59:59.999Z'));
    tally.add(OTHER, 'GET', '/v1/listings/:id', 200, at('2025-01-01T10:00:00Z'));

    const row = (
      keyId: string,
      day: string,
      method: string,
      statusClass: number,
      requests: number,
      rateLimited = false,
    ) => ({ keyId, day, method, route: '/v1/listings/:id', statusClass, rateLimited, requests });
    const { counts } = tally.drain();
    expect(counts).toHaveLength(6);
    expect(counts).toEqual(
      expect.arrayContaining([
        row(KEY, '2025-01-01', 'GET', 2, 2),
        row(KEY, '2025-01-01', 'GET', 4, 1),
        row(KEY, '2025-01-01', 'GET', 4, 1, true),
        row(KEY, '2025-01-02', 'GET', 2, 1),
        { ...row(KEY, '2025-01-01', 'POST', 5, 1), route: '/v1/listings' },
        row(OTHER, '2025-01-01', 'GET', 2, 1),
      ]),
    );
  });

  it('keeps the latest use of each key, whatever the order of arrival', () => {
    const tally = new UsageTally();
    tally.add(KEY, 'GET', '/v1/me', 200, at('2025-01-01T10:00:05Z'));
    tally.add(KEY, 'GET', '/v1/me', 200, at('2025-01-01T10:00:01Z'));
    expect(tally.drain().lastUsed).toEqual(new Map([[KEY, at('2025-01-01T10:00:05Z')]]));
  });

  it('starts afresh after a drain', () => {
    const tally = new UsageTally();
    tally.add(KEY, 'GET', '/v1/me', 200);
    tally.drain();
    expect(tally.isEmpty).toBe(true);
    expect(tally.drain().counts).toEqual([]);
  });

  it('adds a restored batch to what was counted meanwhile, losing nothing', () => {
    const tally = new UsageTally();
    tally.add(KEY, 'GET', '/v1/me', 200, at('2025-01-01T10:00:00Z'));
    const failed = tally.drain();
    tally.add(KEY, 'GET', '/v1/me', 200, at('2025-01-01T10:00:03Z'));
    tally.restore(failed);
    const { counts, lastUsed } = tally.drain();
    expect(counts).toEqual([expect.objectContaining({ route: '/v1/me', requests: 2 })]);
    expect(lastUsed.get(KEY)).toBe(at('2025-01-01T10:00:03Z'));
  });
});
