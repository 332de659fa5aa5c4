import { signPayload, unixSeconds } from './webhook-signer';

/** A known answer for the X-Service scheme (the published vector, with both schemes, is in standard-webhooks-signer.spec.ts). */
const VECTOR = {
  secret: 'whsec_7kTq2WmZ9xVbN4cR8pLs3HdY6fJu1GeA',
  timestamp: '1763800000',
  body: '{"event":"listing.sold","deliveryId":"0b7c6f5e-3f1a-4d2b-9c8e-5a4b3c2d1e0f","timestamp":"2025-11-22T08:26:40.000Z","data":{"id":"8f14e45f-ceea-467f-a0e6-3a2c1b0d9e8f","externalId":"car-1042","livemode":true,"soldAt":"2025-11-22T08:26:40.000Z"}}',
  signature: 'sha256=c5437f84b0c58854d072f3ef575c151284b10ba64a1afb6a013be8343dfa2c77',
};

describe('webhook signer', () => {
  it('signs "<timestamp>.<raw body>" with HMAC-SHA256 of the secret, as the known answer says', () => {
    expect(signPayload(VECTOR.secret, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('gives another signature for any changed byte, timestamp or secret', () => {
    const { secret, timestamp, body, signature } = VECTOR;
    expect(signPayload(secret, timestamp, body.replace('1042', '1043'))).not.toBe(signature);
    expect(signPayload(secret, '1763800001', body)).not.toBe(signature);
    expect(signPayload(`${secret}x`, timestamp, body)).not.toBe(signature);
  });

  it('writes the timestamp as whole Unix seconds', () => {
    expect(unixSeconds(new Date('2025-11-22T08:26:40.999Z'))).toBe('1763800000');
  });
});
