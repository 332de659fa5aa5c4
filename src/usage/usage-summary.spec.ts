import { summarizeClassedUsage, summarizeUsage, usageRange, UsageRow } from './usage-summary';

const NOW = new Date('2025-03-10T15:30:00Z');
const row = (day: string, method: string, route: string, counts: Partial<UsageRow> = {}) => ({
  day,
  method,
  route,
  requests: 1,
  errors: 0,
  rateLimited: 0,
  ...counts,
});

describe('usage summary', () => {
  it('covers `days` UTC dates ending today', () => {
    expect(usageRange(1, NOW)).toEqual({ from: '2025-03-10', to: '2025-03-10' });
    expect(usageRange(30, NOW)).toEqual({ from: '2025-02-09', to: '2025-03-10' });
    expect(usageRange(90, new Date('2025-03-10T23:59:59.999Z'))).toEqual({
      from: '2024-12-11',
      to: '2025-03-10',
    });
  });

  it('lists every date oldest first, zeros where the key was idle', () => {
    const summary = summarizeUsage(3, NOW, [
      row('2025-03-08', 'GET', '/v1/me', { requests: 4, errors: 1 }),
      row('2025-03-10', 'GET', '/v1/me', { requests: 2, errors: 2, rateLimited: 1 }),
    ]);
    expect(summary).toMatchObject({ days: 3, from: '2025-03-08', to: '2025-03-10' });
    expect(summary.daily).toEqual([
      { date: '2025-03-08', requests: 4, errors: 1, rateLimited: 0 },
      { date: '2025-03-09', requests: 0, errors: 0, rateLimited: 0 },
      { date: '2025-03-10', requests: 2, errors: 2, rateLimited: 1 },
    ]);
    expect(summary.totals).toEqual({ requests: 6, errors: 3, rateLimited: 1 });
  });

  it('sums endpoints over the days, busiest first, ties by route', () => {
    const summary = summarizeUsage(7, NOW, [
      row('2025-03-09', 'GET', '/v1/listings/:id', { requests: 3 }),
      row('2025-03-10', 'GET', '/v1/listings/:id', { requests: 4 }),
      row('2025-03-10', 'POST', '/v1/listings', { requests: 7 }),
      row('2025-03-10', 'GET', '/v1/me', { requests: 1 }),
    ]);
    expect(summary.byEndpoint).toEqual([
      { method: 'POST', route: '/v1/listings', requests: 7 },
      { method: 'GET', route: '/v1/listings/:id', requests: 7 },
      { method: 'GET', route: '/v1/me', requests: 1 },
    ]);
  });

  it('reports an unused key as zeros', () => {
    const summary = summarizeUsage(2, NOW, []);
    expect(summary.totals).toEqual({ requests: 0, errors: 0, rateLimited: 0 });
    expect(summary.daily).toHaveLength(2);
    expect(summary.byEndpoint).toEqual([]);
  });

  it('splits each day by status class and counts errors per endpoint, agreeing with the summary', () => {
    // The same counts as the API reads them (by day and endpoint) and as the page does (by day
    // and class, and by endpoint).
    const rows = [
      row('2025-03-09', 'GET', '/v1/me', { requests: 4, errors: 1, rateLimited: 1 }),
      row('2025-03-10', 'POST', '/v1/imports', { requests: 2, errors: 2 }),
      row('2025-03-10', 'GET', '/v1/me', { requests: 5 }),
    ];
    const classRows = [
      { day: '2025-03-09', statusClass: 2, requests: 3, rateLimited: 0 },
      { day: '2025-03-09', statusClass: 4, requests: 1, rateLimited: 1 },
      { day: '2025-03-10', statusClass: 2, requests: 5, rateLimited: 0 },
      { day: '2025-03-10', statusClass: 5, requests: 2, rateLimited: 0 },
    ];
    const endpointRows = [
      { method: 'POST', route: '/v1/imports', requests: 2, errors: 2 },
      { method: 'GET', route: '/v1/me', requests: 9, errors: 1 },
    ];
    const usage = summarizeClassedUsage(2, NOW, classRows, endpointRows);
    expect(usage.summary).toEqual(summarizeUsage(2, NOW, rows));
    expect(usage.classes).toEqual([2, 4, 5]);
    expect(usage.dailyByClass).toEqual([
      { date: '2025-03-09', counts: [3, 1, 0] },
      { date: '2025-03-10', counts: [5, 0, 2] },
    ]);
    expect(usage.endpoints).toEqual([
      { method: 'GET', route: '/v1/me', requests: 9, errors: 1 },
      { method: 'POST', route: '/v1/imports', requests: 2, errors: 2 },
    ]);
  });
});
