import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';

/**
 * `sha256=` + hex HMAC-SHA256 keyed with the endpoint secret over `"<timestamp>.<raw body>"`.
 * The body must be the exact string sent: re-serialising parsed JSON can change its bytes.
 */
export function signPayload(secret: string, timestamp: string, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `${SIGNATURE_PREFIX}${digest}`;
}

/** What a receiver does: recompute and compare in constant time. */
export function verifySignature(
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
): boolean {
  const expected = Buffer.from(signPayload(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Unix seconds, the value of `X-Service-Timestamp`. */
export function unixSeconds(at: Date = new Date()): string {
  return String(Math.floor(at.getTime() / 1000));
}
