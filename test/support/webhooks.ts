import { as } from './factories';
import type { TestApp } from './test-app';
import type { WebhookReceiver } from './webhook-receiver';

/** Nine retries 200 ms apart: a delivery's whole schedule fits in a test. */
export const FAST_RETRIES = { WEBHOOK_RETRY_SCHEDULE: '200,200,200,200,200,200,200,200,200' };

export interface RegisteredEndpoint {
  id: string;
  secret: string;
  /** the receiver path it delivers to */
  path: string;
}

/** Registers an endpoint, in the mode of `key`, that delivers to `path` on the receiver. */
export async function registerEndpoint(
  t: TestApp,
  key: string,
  receiver: WebhookReceiver,
  path: string,
  events?: string[],
): Promise<RegisteredEndpoint> {
  const res = await as(t, key)
    .post('/v1/webhooks')
    .send({ url: receiver.url(path), events })
    .expect(201);
  return { id: res.body.data.id, secret: res.body.data.secret, path };
}
