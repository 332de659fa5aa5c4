import { payloadProblems } from './event-types';

describe('payloadProblems', () => {
  const sold = {
    id: '0b6f7a52-3f3c-4c0e-9a8e-2f1d5c4b3a21',
    externalId: null,
    livemode: true,
    soldAt: '2026-01-02T03:04:05.678Z',
  };

  it('accepts a payload with exactly the described keys and kinds', () => {
    expect(payloadProblems('listing.sold', sold)).toEqual([]);
    expect(payloadProblems('listing.sold', { ...sold, externalId: 'ext-1' })).toEqual([]);
  });

  it('names missing, unexpected and mistyped fields', () => {
    const withoutSoldAt: Record<string, unknown> = { ...sold };
    delete withoutSoldAt.soldAt;
    expect(payloadProblems('listing.sold', withoutSoldAt)).toEqual([
      'listing.sold: soldAt missing',
    ]);
    expect(payloadProblems('listing.sold', { ...sold, status: 'SOLD' })).toEqual([
      'listing.sold: status unexpected',
    ]);
    expect(
      payloadProblems('listing.sold', { ...sold, livemode: 'true', soldAt: '2026-01-02 03:04' }),
    ).toEqual([
      'listing.sold: livemode is "true", not boolean',
      'listing.sold: soldAt is "2026-01-02 03:04", not timestamp',
    ]);
    expect(payloadProblems('listing.updated', { ...sold, status: 'ACTIVE' })).toContain(
      'listing.updated: changedFields missing',
    );
  });

  it('refuses an event it does not know', () => {
    expect(payloadProblems('listing.teleported', sold)).toEqual([
      'unknown event listing.teleported',
    ]);
  });
});
