import { ListFilter, pageStatement } from './listings.store';

const scope = { accountId: 'acc', livemode: false };
const filter = (more: Partial<ListFilter> = {}): ListFilter => ({
  sort: 'newest',
  limit: 20,
  offset: 40,
  ...more,
});

describe('pageStatement', () => {
  it('a plain page: scope and live statuses, generic, the total from the folded counts', () => {
    const s = pageStatement(scope, filter());
    expect(s.generic).toBe(true);
    expect(s.filterParams).toEqual(['acc', false]);
    expect(s.params).toEqual(['acc', false, 20, 40]);
    expect(s.text).toContain(
      "WHERE l.account_id = $1 AND l.livemode = $2 AND l.status <> 'REMOVED'",
    );
    expect(s.text).toMatch(/ORDER BY l\.created_at DESC, l\.id DESC LIMIT \$3 OFFSET \$4$/);
    expect(s.total).toContain('FROM listing_counts');
    expect(s.total).toContain("status <> 'REMOVED'");
    expect(s.text).toContain(`SELECT l.rendered, ${s.total} AS total FROM listings l`);
  });

  it('writes a status filter into the text, in the page and in its total', () => {
    const s = pageStatement(scope, filter({ status: 'SOLD' }));
    expect(s.generic).toBe(true);
    expect(s.text).toContain("AND l.status = 'SOLD'");
    expect(s.total).toContain("status = 'SOLD'");
    expect(s.params).toEqual(['acc', false, 20, 40]);
  });

  it('refuses a status outside the known set rather than write it into SQL', () => {
    expect(() => pageStatement(scope, filter({ status: "SOLD' OR 1=1 --" as never }))).toThrow(
      /unknown listing status/,
    );
  });

  it.each([
    ['oldest', 'l.created_at ASC, l.id ASC'],
    ['price_asc', 'l.price ASC, l.id ASC'],
    ['price_desc', 'l.price DESC, l.id DESC'],
  ] as const)('sorts %s by %s, the id breaking ties', (sort, order) => {
    expect(pageStatement(scope, filter({ sort })).text).toContain(`ORDER BY ${order} LIMIT`);
  });

  it('an externalId is a parameter; the page is planned per call and counts its own rows', () => {
    const s = pageStatement(scope, filter({ externalId: "x'y" }));
    expect(s.generic).toBe(false);
    expect(s.filterParams).toEqual(['acc', false, "x'y"]);
    expect(s.params).toEqual(['acc', false, "x'y", 20, 40]);
    expect(s.text).toContain('AND l.external_id = $3');
    expect(s.text).not.toContain("x'y");
    expect(s.total).toBe(
      "(SELECT count(*) FROM listings l WHERE l.account_id = $1 AND l.livemode = $2 AND l.status <> 'REMOVED' AND l.external_id = $3)",
    );
    expect(s.text).toMatch(/LIMIT \$4 OFFSET \$5$/);
  });

  it('updatedSince reads from that time on in update order, whatever the sort', () => {
    const since = new Date('2026-01-01T00:00:00.000Z');
    const s = pageStatement(scope, filter({ updatedSince: since, sort: 'price_desc' }));
    expect(s.generic).toBe(false);
    expect(s.filterParams).toEqual(['acc', false, since]);
    expect(s.text).toContain('AND l.updated_at >= $3');
    expect(s.text).toMatch(/ORDER BY l\.updated_at ASC, l\.id ASC LIMIT \$4 OFFSET \$5$/);
  });

  it('updatedSince with afterId continues strictly after that row, as one row comparison', () => {
    const since = new Date('2026-01-01T00:00:00.000Z');
    const s = pageStatement(scope, filter({ updatedSince: since, afterId: 'id-9' }));
    expect(s.filterParams).toEqual(['acc', false, since, 'id-9']);
    expect(s.text).toContain('AND (l.updated_at, l.id) > ($3, $4)');
    expect(s.text).not.toContain('l.updated_at >=');
    expect(s.text).toMatch(/LIMIT \$5 OFFSET \$6$/);
  });

  it('numbers the parameters on with every filter at once', () => {
    const since = new Date(0);
    const s = pageStatement(
      scope,
      filter({ status: 'ACTIVE', externalId: 'e', updatedSince: since, afterId: 'a' }),
    );
    expect(s.params).toEqual(['acc', false, 'e', since, 'a', 20, 40]);
    expect(s.text).toContain(
      "l.status = 'ACTIVE' AND l.external_id = $3 AND (l.updated_at, l.id) > ($4, $5)",
    );
    expect(s.total).toContain('WHERE l.account_id = $1');
  });
});
