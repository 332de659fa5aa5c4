import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const BODY =
  '{"event":"listing.sold","eventId":"e1","deliveryId":"d1","timestamp":"2025-11-22T08:26:40.000Z","data":{"id":"x","soldAt":"2025-11-22T08:26:40.000Z"}}';
const NOW = new Date('2025-11-22T08:26:40.000Z');

/** A secret as the service issues them: `whsec_` and 32 base62 characters. */
const newSecret = () =>
  `whsec_${randomBytes(48)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 32)}`;

/** Both header kinds, signed by the standardwebhooks package and by hand as the service's scheme. */
function signedHeaders(
  secrets: string[],
  body = BODY,
  at = NOW,
  id = 'd1',
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' '),
    'X-Service-Timestamp': timestamp,
    'X-Service-Signature': secrets
      .map((s) => `sha256=${createHmac('sha256', s).update(`${timestamp}.${body}`).digest('hex')}`)
      .join(','),
  };
}

const standardOnly = (h: Record<string, string>) => ({
  'webhook-id': h['webhook-id'],
  'webhook-timestamp': h['webhook-timestamp'],
  'webhook-signature': h['webhook-signature'],
});
const serviceOnly = (h: Record<string, string>) => ({
  'x-service-timestamp': h['X-Service-Timestamp'],
  'x-service-signature': h['X-Service-Signature'],
});

function reasonOf(verify: () => unknown): string {
  try {
    verify();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  throw new Error('verified, expected a refusal');
}

describe.each([
  ['Standard Webhooks', standardOnly],
  ['X-Service', serviceOnly],
])('verifyWebhook, %s headers', (_scheme, pick) => {
  const secret = newSecret();
  const verify = (
    headers: Record<string, string>,
    options = {},
    body: string | Buffer = BODY,
    s: string | string[] = secret,
  ) => verifyWebhook(body, headers, s, { now: NOW, ...options });

  it('returns the parsed body of a delivery signed with the secret (string or bytes)', () => {
    expect(verify(pick(signedHeaders([secret])))).toEqual(JSON.parse(BODY));
    expect(verify(pick(signedHeaders([secret])), {}, Buffer.from(BODY))).toEqual(JSON.parse(BODY));
  });

  it('refuses a tampered body, another secret and a stripped signature', () => {
    const headers = pick(signedHeaders([secret]));
    expect(reasonOf(() => verify(headers, {}, BODY.replace('"x"', '"y"')))).toBe(
      'no_matching_signature',
    );
    expect(reasonOf(() => verify(headers, {}, BODY, newSecret()))).toBe('no_matching_signature');
    expect(reasonOf(() => verify(pick(signedHeaders([newSecret()]))))).toBe(
      'no_matching_signature',
    );
  });

  it('accepts a timestamp up to 5 minutes off either way, and no further', () => {
    const at = (seconds: number) =>
      pick(signedHeaders([secret], BODY, new Date(NOW.getTime() + seconds * 1000)));
    expect(verify(at(-300))).toEqual(JSON.parse(BODY));
    expect(verify(at(300))).toEqual(JSON.parse(BODY));
    expect(reasonOf(() => verify(at(-301)))).toBe('timestamp_too_old');
    expect(reasonOf(() => verify(at(301)))).toBe('timestamp_too_new');
    expect(reasonOf(() => verify(at(-60), { toleranceSeconds: 30 }))).toBe('timestamp_too_old');
  });

  it('accepts when any of the signatures of a rotation matches, with either secret', () => {
    const [newer, older] = [newSecret(), newSecret()];
    const headers = pick(signedHeaders([newer, older]));
    expect(verify(headers, {}, BODY, newer)).toEqual(JSON.parse(BODY));
    expect(verify(headers, {}, BODY, older)).toEqual(JSON.parse(BODY));
    expect(verify(pick(signedHeaders([older])), {}, BODY, [newer, older])).toEqual(
      JSON.parse(BODY),
    );
    expect(reasonOf(() => verify(headers, {}, BODY, newSecret()))).toBe('no_matching_signature');
  });

  it('names missing headers and a malformed timestamp', () => {
    expect(reasonOf(() => verify({}))).toBe('missing_headers');
    const headers = signedHeaders([secret]);
    const broken = pick({ ...headers, 'webhook-timestamp': '17e8', 'X-Service-Timestamp': '17e8' });
    expect(reasonOf(() => verify(broken))).toBe('invalid_timestamp');
  });
});

describe('verifyWebhook against the standardwebhooks package', () => {
  it('verifies what the package signs, and the package verifies what verifies here', () => {
    for (let i = 0; i < 50; i++) {
      const secret = newSecret();
      const body = JSON.stringify({
        event: 'listing.created',
        deliveryId: `d${i}`,
        data: { n: i, text: 'åäö €' },
      });
      const headers = standardOnly(signedHeaders([secret], body, new Date(), `msg-${i}`));
      expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    }
  });

  it('refuses what the package refuses: old, future, tampered, wrong secret', () => {
    const secret = newSecret();
    const now = Date.now();
    const cases: [string, Record<string, string>, string, string][] = [
      ['old', standardOnly(signedHeaders([secret], BODY, new Date(now - 600_000))), BODY, secret],
      [
        'future',
        standardOnly(signedHeaders([secret], BODY, new Date(now + 600_000))),
        BODY,
        secret,
      ],
      ['tampered', standardOnly(signedHeaders([secret], BODY, new Date(now))), `${BODY} `, secret],
      [
        'wrong secret',
        standardOnly(signedHeaders([secret], BODY, new Date(now))),
        BODY,
        newSecret(),
      ],
    ];
    for (const [, headers, body, key] of cases) {
      expect(() => new Webhook(key).verify(body, headers)).toThrow();
      expect(() => verifyWebhook(body, headers, key, { now })).toThrow(WebhookVerificationError);
    }
  });

  it('reads Node-style lower-case headers, fetch Headers and repeated values', () => {
    const secret = newSecret();
    const headers = signedHeaders([secret]);
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyWebhook(BODY, new Headers(lower), secret, { now: NOW })).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(BODY, { ...lower, 'webhook-id': ['d1'] }, secret, { now: NOW })).toEqual(
      JSON.parse(BODY),
    );
  });

  it('says so when a correctly signed body is not JSON', () => {
    const secret = newSecret();
    expect(
      reasonOf(() =>
        verifyWebhook('not json', signedHeaders([secret], 'not json'), secret, { now: NOW }),
      ),
    ).toBe('invalid_payload');
  });
});
