import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookPayload } from './wire';

/** Why a delivery was refused; `reason` is stable, `message` is for people. */
export type WebhookVerificationReason =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** how far the delivery's timestamp may be from now, either way (default 300 s) */
  toleranceSeconds?: number;
  /** the clock to judge the timestamp by (default: the current time) */
  now?: Date | number;
}

/** Node's `req.headers`, a fetch `Headers`, or a plain object with any casing. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

const STANDARD_PREFIX = 'v1,';
const SERVICE_PREFIX = 'sha256=';
const SECRET_PREFIX = 'whsec_';

/**
 * Checks a delivery's signature and timestamp and returns its parsed body; throws a
 * WebhookVerificationError otherwise. `rawBody` must be the bytes as received (parse after
 * verifying: re-serialised JSON does not keep them). Standard Webhooks headers
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`) are checked when present, else the
 * service's own (`X-Service-Timestamp`, `X-Service-Signature`). Any one matching signature is
 * enough (the service signs with every live secret during a rotation), and `secret` may list
 * several (a receiver that holds both the old and the new one).
 */
export function verifyWebhook<T = WebhookPayload>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  { toleranceSeconds = 300, now = Date.now() }: VerifyWebhookOptions = {},
): T {
  const header = headerReader(headers);
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const standard = header('webhook-signature');
  const scheme = standard
    ? standardScheme(header('webhook-id'), header('webhook-timestamp'), standard)
    : serviceScheme(header('x-service-timestamp'), header('x-service-signature'));
  checkTimestamp(scheme.timestamp, toleranceSeconds, typeof now === 'number' ? now : now.getTime());
  const message = Buffer.concat([Buffer.from(scheme.prefix, 'utf8'), body]);
  const matches = secrets.some((s) => {
    const expected = createHmac('sha256', scheme.key(s)).update(message).digest();
    return scheme.signatures.some(
      (sig) => sig.length === expected.length && timingSafeEqual(sig, expected),
    );
  });
  if (!matches)
    throw new WebhookVerificationError('no_matching_signature', 'No signature matches the secret');
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON');
  }
}

interface Scheme {
  timestamp: string;
  /** what precedes the body in the signed message */
  prefix: string;
  /** the HMAC key a secret gives */
  key: (secret: string) => Buffer;
  /** the sent digests, decoded; other versions and malformed entries are dropped */
  signatures: Buffer[];
}

/** `webhook-signature: v1,<base64> v1,<base64>` over `<id>.<timestamp>.<body>`, keyed with the decoded secret. */
function standardScheme(
  id: string | undefined,
  timestamp: string | undefined,
  signatures: string,
): Scheme {
  if (!id || !timestamp) throw missingHeaders('webhook-id, webhook-timestamp');
  return {
    timestamp,
    prefix: `${id}.${timestamp}.`,
    key: (secret) =>
      Buffer.from(
        secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
        'base64',
      ),
    signatures: decoded(signatures.split(' '), STANDARD_PREFIX, 'base64'),
  };
}

/** `X-Service-Signature: sha256=<hex>,sha256=<hex>` over `<timestamp>.<body>`, keyed with the secret as shown. */
function serviceScheme(timestamp: string | undefined, signatures: string | undefined): Scheme {
  if (!timestamp || !signatures) throw missingHeaders('X-Service-Timestamp, X-Service-Signature');
  return {
    timestamp,
    prefix: `${timestamp}.`,
    key: (secret) => Buffer.from(secret, 'utf8'),
    signatures: decoded(signatures.split(','), SERVICE_PREFIX, 'hex'),
  };
}

function decoded(entries: string[], prefix: string, encoding: 'base64' | 'hex'): Buffer[] {
  return entries
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith(prefix))
    .map((entry) => Buffer.from(entry.slice(prefix.length), encoding));
}

function checkTimestamp(timestamp: string, toleranceSeconds: number, nowMs: number): void {
  if (!/^\d{1,15}$/.test(timestamp))
    throw new WebhookVerificationError(
      'invalid_timestamp',
      'The timestamp is not whole Unix seconds',
    );
  const skew = Math.floor(nowMs / 1000) - Number(timestamp);
  if (skew > toleranceSeconds)
    throw new WebhookVerificationError('timestamp_too_old', 'The timestamp is too old');
  if (skew < -toleranceSeconds)
    throw new WebhookVerificationError(
      'timestamp_too_new',
      'The timestamp is too far in the future',
    );
}

function missingHeaders(names: string): WebhookVerificationError {
  return new WebhookVerificationError('missing_headers', `Missing signature headers (${names})`);
}

/** Case-insensitive lookup; a repeated header counts by its first value. */
function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    const fetchHeaders = headers as Headers;
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  const lower = new Map(
    Object.entries(headers as Record<string, string | readonly string[] | undefined>).map(
      ([key, value]) => [key.toLowerCase(), typeof value === 'string' ? value : value?.[0]],
    ),
  );
  return (name) => lower.get(name);
}
