import { liveSecrets } from './webhook-secrets';

describe('liveSecrets', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const rotated = (expiresAt: Date | null) => ({
    secret: 'whsec_new',
    previousSecret: 'whsec_old',
    previousSecretExpiresAt: expiresAt,
  });

  it('signs with the current secret alone when nothing was rotated out', () => {
    const endpoint = { secret: 'whsec_new', previousSecret: null, previousSecretExpiresAt: null };
    expect(liveSecrets(endpoint, now)).toEqual(['whsec_new']);
  });

  it('adds the replaced secret, after the current one, until it expires', () => {
    expect(liveSecrets(rotated(new Date(now.getTime() + 1)), now)).toEqual([
      'whsec_new',
      'whsec_old',
    ]);
  });

  it('drops the replaced secret from its expiry on', () => {
    expect(liveSecrets(rotated(now), now)).toEqual(['whsec_new']);
    expect(liveSecrets(rotated(new Date(now.getTime() - 1)), now)).toEqual(['whsec_new']);
  });

  it('drops a replaced secret with no expiry (a rotation with 0 hours stores neither)', () => {
    expect(liveSecrets(rotated(null), now)).toEqual(['whsec_new']);
  });
});
