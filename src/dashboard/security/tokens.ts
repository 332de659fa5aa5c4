import { createHash, randomBytes } from 'node:crypto';

/** A random 256-bit secret, URL-safe: session cookies, CSRF tokens, mailed links. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a token: its SHA-256, never the token. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A token as a cookie or link carries it: 43 base64url characters. */
export function isWellFormedToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}
