import { requestFingerprint } from './fingerprint';

describe('requestFingerprint', () => {
  it('ignores key order and undefined members', () => {
    expect(requestFingerprint('POST /listings', { a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      requestFingerprint('POST /listings', { b: { d: 'x', c: [1, 2] }, a: 1, e: undefined }),
    );
  });

  it('tells apart bodies, array orders and operations', () => {
    const base = requestFingerprint('POST /listings', { a: [1, 2] });
    expect(requestFingerprint('POST /listings', { a: [2, 1] })).not.toBe(base);
    expect(requestFingerprint('POST /listings', { a: [1, 2, 3] })).not.toBe(base);
    expect(requestFingerprint('POST /listings/bulk', { a: [1, 2] })).not.toBe(base);
  });
});
