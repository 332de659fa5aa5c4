import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from '../endpoints/webhook-endpoints.service';
import { signatureHeaders, signStandardWebhook, unixSeconds } from './webhook-signer';

/** The published test vector (docs/api.md): a delivery body and both signature headers. */
const VECTOR = {
  secret: 'whsec_7kTq2WmZ9xVbN4cR8pLs3HdY6fJu1GeA',
  msgId: '0b7c6f5e-3f1a-4d2b-9c8e-5a4b3c2d1e0f',
  timestamp: '1763800000',
  body: '{"event":"listing.sold","eventId":"3d6f1c2a-7b4e-4f8a-9c1d-2e5b6a7c8d9e","deliveryId":"0b7c6f5e-3f1a-4d2b-9c8e-5a4b3c2d1e0f","timestamp":"2025-11-22T08:26:40.000Z","data":{"id":"8f14e45f-ceea-467f-a0e6-3a2c1b0d9e8f","externalId":"car-1042","livemode":true,"soldAt":"2025-11-22T08:26:40.000Z"}}',
  serviceSignature: 'sha256=a4ed635cecf5911b579e46dc91101d7b65f3033de1412dc0e20c23ab93b59912',
  webhookSignature: 'v1,uRXLu3bZSYi3pkxx3TMiXANh721VxaGM+d+yg8xlM/A=',
};

const BODY = '{"event":"listing.created","data":{"id":"x"}}';

describe('Standard Webhooks signing', () => {
  it('gives the published vector’s two signatures', () => {
    const { secret, msgId, timestamp, body } = VECTOR;
    expect(signatureHeaders([secret], msgId, timestamp, body)).toEqual({
      'X-Service-Signature': VECTOR.serviceSignature,
      'webhook-signature': VECTOR.webhookSignature,
    });
  });

  it('agrees with the standardwebhooks package on the vector', () => {
    const { secret, msgId, timestamp, body } = VECTOR;
    const theirs = new Webhook(secret).sign(msgId, new Date(Number(timestamp) * 1000), body);
    expect(theirs).toBe(VECTOR.webhookSignature);
  });

  it('publishes exactly this vector in the API guide', () => {
    const guide = readFileSync(join(__dirname, '../../../docs/api.md'), 'utf8');
    for (const value of Object.values(VECTOR)) expect(guide).toContain(value);
  });

  it('verifies with the package for secrets as this service issues them, given as shown', () => {
    for (let i = 0; i < 300; i++) {
      const secret = generateWebhookSecret();
      const msgId = `msg-${i}`;
      const timestamp = unixSeconds();
      const headers = {
        'webhook-id': msgId,
        'webhook-timestamp': timestamp,
        'webhook-signature': signStandardWebhook(secret, msgId, timestamp, BODY),
      };
      expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    }
  });

  it('signs with every live secret, newest first, and each verifies alone', () => {
    const [newer, older] = [generateWebhookSecret(), generateWebhookSecret()];
    const timestamp = unixSeconds();
    const headers = signatureHeaders([newer, older], 'msg-1', timestamp, BODY);
    const service = headers['X-Service-Signature'].split(',');
    const standard = headers['webhook-signature'].split(' ');
    expect(service).toHaveLength(2);
    expect(standard).toEqual([
      signStandardWebhook(newer, 'msg-1', timestamp, BODY),
      signStandardWebhook(older, 'msg-1', timestamp, BODY),
    ]);
    for (const secret of [newer, older]) {
      const verified = new Webhook(secret).verify(BODY, {
        'webhook-id': 'msg-1',
        'webhook-timestamp': timestamp,
        'webhook-signature': headers['webhook-signature'],
      });
      expect(verified).toEqual(JSON.parse(BODY));
    }
    const stranger = new Webhook(generateWebhookSecret());
    expect(() =>
      stranger.verify(BODY, {
        'webhook-id': 'msg-1',
        'webhook-timestamp': timestamp,
        'webhook-signature': headers['webhook-signature'],
      }),
    ).toThrow('No matching signature found');
  });
});
