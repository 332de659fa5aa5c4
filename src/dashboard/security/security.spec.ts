import { crossSiteRefused, csrfMatches } from './csrf';
import { ipPrefix } from './ip-prefix';
import { safeNextPath } from './next-path';
import { PASSWORD_MAX, passwordProblem } from './passwords';
import { roleAllows } from './roles';
import {
  passwordRecentlyConfirmed,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionEnded,
} from './session-times';
import { hashToken, isWellFormedToken, newToken } from './tokens';

describe('session tokens', () => {
  it('are 256 random bits, URL-safe, never the same twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newToken));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) {
      expect(isWellFormedToken(token)).toBe(true);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    }
  });

  it('are stored as their SHA-256', () => {
    expect(hashToken('abc').toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('anything else is not a token', () => {
    for (const value of [undefined, '', 'short', `${newToken()}x`, 'a'.repeat(42) + '!', 42])
      expect(isWellFormedToken(value)).toBe(false);
  });
});

describe('session timeouts', () => {
  const start = new Date('2026-11-29T08:00:00Z');
  const at = (ms: number) => new Date(start.getTime() + ms);

  it('end 8 h after the last request', () => {
    const session = { createdAt: start, lastSeenAt: start, revokedAt: null };
    expect(sessionEnded(session, at(SESSION_IDLE_MS - 1))).toBe(false);
    expect(sessionEnded(session, at(SESSION_IDLE_MS))).toBe(true);
  });

  it('end 7 days after sign-in, however active', () => {
    const session = {
      createdAt: start,
      lastSeenAt: at(SESSION_ABSOLUTE_MS - 1000),
      revokedAt: null,
    };
    expect(sessionEnded(session, at(SESSION_ABSOLUTE_MS - 1))).toBe(false);
    expect(sessionEnded(session, at(SESSION_ABSOLUTE_MS))).toBe(true);
  });

  it('end when revoked', () => {
    expect(sessionEnded({ createdAt: start, lastSeenAt: start, revokedAt: start }, start)).toBe(
      true,
    );
  });

  it('a password counts as recent for 10 minutes', () => {
    const tenMinutes = 10 * 60_000;
    expect(passwordRecentlyConfirmed(null, start, tenMinutes)).toBe(false);
    expect(passwordRecentlyConfirmed(start, at(tenMinutes - 1), tenMinutes)).toBe(true);
    expect(passwordRecentlyConfirmed(start, at(tenMinutes), tenMinutes)).toBe(false);
  });
});

describe('CSRF', () => {
  const token = newToken();

  it('accepts the same token only', () => {
    expect(csrfMatches(token, token)).toBe(true);
    expect(csrfMatches(token, newToken())).toBe(false);
    expect(csrfMatches(token, token.slice(0, -1))).toBe(false);
    expect(csrfMatches(token, `${token}x`)).toBe(false);
  });

  it('refuses when either side is missing', () => {
    expect(csrfMatches(token, undefined)).toBe(false);
    expect(csrfMatches(token, '')).toBe(false);
    expect(csrfMatches(undefined, token)).toBe(false);
    expect(csrfMatches('', '')).toBe(false);
    expect(csrfMatches(token, [token])).toBe(false);
  });

  it('Sec-Fetch-Site: absent or same-origin passes, anything else is refused', () => {
    expect(crossSiteRefused(undefined)).toBe(false);
    expect(crossSiteRefused('same-origin')).toBe(false);
    for (const value of ['cross-site', 'same-site', 'none', '', 'SAME-ORIGIN'])
      expect(crossSiteRefused(value)).toBe(true);
    expect(crossSiteRefused(['same-origin', 'cross-site'])).toBe(true);
  });
});

describe('the next path after sign-in', () => {
  it.each([
    ['/dashboard', '/dashboard'],
    ['/dashboard/keys', '/dashboard/keys'],
    ['/dashboard/keys?kind=live&page=2', '/dashboard/keys?kind=live&page=2'],
    ['/dashboard?notice=verified', '/dashboard?notice=verified'],
    ['/dashboard/webhooks#x', '/dashboard/webhooks'],
  ])('keeps %s', (value, expected) => {
    expect(safeNextPath(value)).toBe(expected);
  });

  it.each([
    '//evil.example',
    '//evil.example/dashboard',
    'https://evil.example/dashboard',
    'http:/dashboard',
    '/\\evil.example',
    '/dashboard\\..\\x',
    '\\\\evil.example',
    '/dashboard//evil.example',
    '/dashboardx',
    '/dashboard-evil',
    '/v1/me',
    '/',
    '',
    'dashboard',
    'javascript:alert(1)',
    '/dashboard/\nSet-Cookie: x',
    '/dashboard/\t',
    '/dashboard/../v1/me',
    '/dashboard/%2e%2e/v1',
  ])('refuses %j', (value) => {
    expect(safeNextPath(value)).toBeUndefined();
  });

  it('refuses a path over 2,000 characters', () => {
    expect(safeNextPath(`/dashboard/${'x'.repeat(2000)}`)).toBeUndefined();
  });

  it('refuses what is not a string', () => {
    expect(safeNextPath(['/dashboard'])).toBeUndefined();
    expect(safeNextPath(undefined)).toBeUndefined();
  });
});

describe('roles', () => {
  it('a route without roles is open to every member; with roles, only to those', () => {
    expect(roleAllows('viewer', undefined)).toBe(true);
    expect(roleAllows('viewer', [])).toBe(true);
    expect(roleAllows('viewer', ['owner', 'developer'])).toBe(false);
    expect(roleAllows('developer', ['owner', 'developer'])).toBe(true);
    expect(roleAllows('developer', ['owner'])).toBe(false);
    expect(roleAllows('owner', ['owner'])).toBe(true);
  });
});

describe('password rules', () => {
  it('12 to 128 characters', async () => {
    expect(await passwordProblem('Xq7#vL9!mZ2')).toBe('Use at least 12 characters.');
    expect(await passwordProblem('a'.repeat(PASSWORD_MAX + 1))).toBe('Use at most 128 characters.');
  });

  it("a guessable password is refused with the estimator's reason", async () => {
    const problem = await passwordProblem('password1234');
    expect(problem).toMatch(/^This password is too easy to guess\. \S/);
    expect(await passwordProblem('qwertyuiopasdf')).toMatch(/too easy to guess/);
  });

  it("the user's own words count against it", async () => {
    expect(await passwordProblem('bilhallen2026!', ['anna@bilhallen.se', 'Bilhallen'])).toMatch(
      /too easy to guess/,
    );
  });

  it('a few unrelated words pass', async () => {
    expect(await passwordProblem('violet tractor harbour 42 umbrella')).toBeUndefined();
  });

  it("loads the estimator's dictionaries at the first check, not with the module", async () => {
    let loaded = false;
    jest.doMock('@zxcvbn-ts/language-en', () => {
      loaded = true;
      return jest.requireActual('@zxcvbn-ts/language-en');
    });
    try {
      let fresh: typeof import('./passwords') | undefined;
      jest.isolateModules(() => {
        fresh = jest.requireActual('./passwords');
      });
      expect(loaded).toBe(false);
      expect(await fresh!.passwordProblem('violet tractor harbour 42 umbrella')).toBeUndefined();
      expect(loaded).toBe(true);
    } finally {
      jest.dontMock('@zxcvbn-ts/language-en');
    }
  });
});

describe('the address sign-in throttling counts by', () => {
  it('IPv4 as it is; IPv4-mapped IPv6 as IPv4', () => {
    expect(ipPrefix('203.0.113.7')).toBe('203.0.113.7');
    expect(ipPrefix('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('IPv6 by its /64', () => {
    expect(ipPrefix('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(ipPrefix('2001:db8:1:2::1')).toBe(ipPrefix('2001:db8:1:2:ffff::9'));
    expect(ipPrefix('2001:db8:1:3::1')).not.toBe(ipPrefix('2001:db8:1:2::1'));
  });

  it('nothing usable is one bucket', () => {
    expect(ipPrefix(undefined)).toBe('unknown');
    expect(ipPrefix('not an address')).toBe('unknown');
  });
});
