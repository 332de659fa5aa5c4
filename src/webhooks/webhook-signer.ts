import { createHmac } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';

/**
 * `sha256=` + hex HMAC-SHA256 keyed with the endpoint secret over `"<timestamp>.<raw body>"`.
 * The body must be the exact string sent: re-serialising parsed JSON can change its bytes.
 */
export function signPayload(secret: string, timestamp: string, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `${SIGNATURE_PREFIX}${digest}`;
}

/** Unix seconds, the value of `X-Service-Timestamp`. */
export function unixSeconds(at: Date = new Date()): string {
  return String(Math.floor(at.getTime() / 1000));
}
