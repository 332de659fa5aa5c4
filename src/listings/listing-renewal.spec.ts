import type { ListingStatus } from './listing.constants';
import { renewalDue } from './listing-renewal';

describe('renewalDue', () => {
  const now = new Date('2026-11-29T12:00:00Z');
  const inDays = (days: number) => new Date(now.getTime() + days * 24 * 3600 * 1000);
  const row = (status: ListingStatus, expires: Date | null) => ({ status, expires_at: expires });

  it('renews an ACTIVE listing with 7 days or less left, not one with more', () => {
    expect(renewalDue(row('ACTIVE', inDays(7)), now)).toBe(true);
    expect(renewalDue(row('ACTIVE', inDays(0.5)), now)).toBe(true);
    expect(renewalDue(row('ACTIVE', inDays(7.01)), now)).toBe(false);
    expect(renewalDue(row('ACTIVE', inDays(29)), now)).toBe(false);
  });

  it('renews every EXPIRED listing, and never a DRAFT, SOLD or REMOVED one', () => {
    expect(renewalDue(row('EXPIRED', inDays(-40)), now)).toBe(true);
    for (const status of ['DRAFT', 'SOLD', 'REMOVED'] as const)
      expect(renewalDue(row(status, inDays(1)), now)).toBe(false);
    expect(renewalDue(row('ACTIVE', null), now)).toBe(false);
  });
});
