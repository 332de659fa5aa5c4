import { createHmac } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';
const SECRET_PREFIX = 'whsec_';

/**
 * `sha256=` + hex HMAC-SHA256 keyed with the endpoint secret over `"<timestamp>.<raw body>"`.
 * The body must be the exact string sent: re-serialising parsed JSON can change its bytes.
 */
export function signPayload(secret: string, timestamp: string, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `${SIGNATURE_PREFIX}${digest}`;
}

/**
 * Standard Webhooks `v1,` signature, keyed with the base64-decoded secret after `whsec_`. Our
 * secrets (32 base62 chars) always decode strictly to 24 bytes, so they verify as shown.
 */
export function signStandardWebhook(
  secret: string,
  msgId: string,
  timestamp: string,
  body: string,
): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  const digest = createHmac('sha256', key)
    .update(`${msgId}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${digest}`;
}

/** The two signature headers of one attempt, one signature per live secret (newest first). */
export function signatureHeaders(
  secrets: readonly string[],
  msgId: string,
  timestamp: string,
  body: string,
): { 'X-Service-Signature': string; 'webhook-signature': string } {
  return {
    'X-Service-Signature': secrets.map((s) => signPayload(s, timestamp, body)).join(','),
    'webhook-signature': secrets
      .map((s) => signStandardWebhook(s, msgId, timestamp, body))
      .join(' '),
  };
}

/** Unix seconds, the value of `X-Service-Timestamp` and `webhook-timestamp`. */
export function unixSeconds(at: Date = new Date()): string {
  return String(Math.floor(at.getTime() / 1000));
}
