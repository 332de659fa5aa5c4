import { liveSecrets, secretsAfterRotation } from './webhook-secrets';

describe('liveSecrets', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const previous = (secret: string, expiresInMs: number) => ({
    secret,
    expiresAt: at(expiresInMs),
  });

  it('signs with the current secret alone when nothing was rotated out', () => {
    expect(liveSecrets({ secret: 'whsec_new', previousSecrets: [] }, now)).toEqual(['whsec_new']);
  });

  it('adds the replaced secrets after the current one, newest first, until each expires', () => {
    const endpoint = {
      secret: 'whsec_new',
      previousSecrets: [previous('whsec_b', 1), previous('whsec_a', 3_600_000)],
    };
    expect(liveSecrets(endpoint, now)).toEqual(['whsec_new', 'whsec_b', 'whsec_a']);
  });

  it('drops each replaced secret from its own expiry on, keeping the others in order', () => {
    const endpoint = {
      secret: 'whsec_new',
      previousSecrets: [previous('whsec_c', 1), previous('whsec_b', 0), previous('whsec_a', -1)],
    };
    expect(liveSecrets(endpoint, now)).toEqual(['whsec_new', 'whsec_c']);
    // An older secret may outlive a newer one (a longer grace): the order stays newest first.
    const longer = {
      secret: 'whsec_new',
      previousSecrets: [previous('whsec_b', -1), previous('whsec_a', 1)],
    };
    expect(liveSecrets(longer, now)).toEqual(['whsec_new', 'whsec_a']);
  });

  it('keeps at most the 3 newest replaced secrets', () => {
    const endpoint = {
      secret: 'whsec_new',
      previousSecrets: ['whsec_d', 'whsec_c', 'whsec_b', 'whsec_a'].map((s) => previous(s, 60_000)),
    };
    expect(liveSecrets(endpoint, now)).toEqual(['whsec_new', 'whsec_d', 'whsec_c', 'whsec_b']);
  });

  it('counts the 3 among the unexpired ones: an expired newer one frees its place', () => {
    const endpoint = {
      secret: 'whsec_new',
      previousSecrets: [
        previous('whsec_d', -1),
        previous('whsec_c', 60_000),
        previous('whsec_b', 60_000),
        previous('whsec_a', 60_000),
      ],
    };
    expect(liveSecrets(endpoint, now)).toEqual(['whsec_new', 'whsec_c', 'whsec_b', 'whsec_a']);
  });
});

describe('secretsAfterRotation', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const inHours = (hours: number) => new Date(now.getTime() + hours * 3_600_000);

  it('puts the replaced secret first, with its grace, before the earlier ones', () => {
    const once = secretsAfterRotation(
      { secret: 'whsec_a', previousSecrets: [] },
      'whsec_b',
      inHours(24),
      now,
    );
    const twice = secretsAfterRotation(once, 'whsec_c', inHours(1), now);
    expect(twice).toEqual({
      secret: 'whsec_c',
      previousSecrets: [
        { secret: 'whsec_b', expiresAt: inHours(1).toISOString() },
        { secret: 'whsec_a', expiresAt: inHours(24).toISOString() },
      ],
    });
    expect(liveSecrets(twice, now)).toEqual(['whsec_c', 'whsec_b', 'whsec_a']);
  });

  it('keeps the 3 newest replaced secrets and drops expired ones from storage', () => {
    let secrets = {
      secret: 'whsec_0',
      previousSecrets: [] as { secret: string; expiresAt: string }[],
    };
    for (let i = 1; i <= 4; i++)
      secrets = secretsAfterRotation(secrets, `whsec_${i}`, inHours(24), now);
    expect(liveSecrets(secrets, now)).toEqual(['whsec_4', 'whsec_3', 'whsec_2', 'whsec_1']);
    expect(secrets.previousSecrets).toHaveLength(3);

    const later = new Date(inHours(24).getTime());
    const after = secretsAfterRotation(secrets, 'whsec_5', inHours(48), later);
    expect(after.previousSecrets).toEqual([
      { secret: 'whsec_4', expiresAt: inHours(48).toISOString() },
    ]);
  });

  it('with no grace (0 hours) leaves the new secret alone: every earlier one stops now', () => {
    const secrets = {
      secret: 'whsec_b',
      previousSecrets: [{ secret: 'whsec_a', expiresAt: inHours(24).toISOString() }],
    };
    const after = secretsAfterRotation(secrets, 'whsec_c', null, now);
    expect(after).toEqual({ secret: 'whsec_c', previousSecrets: [] });
    expect(liveSecrets(after, now)).toEqual(['whsec_c']);
  });
});
