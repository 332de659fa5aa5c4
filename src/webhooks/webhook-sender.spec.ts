import { ConfigService } from '@nestjs/config';
import type { LookupAddress } from 'node:dns';
import { WebhookReceiver } from '../../test/support/webhook-receiver';
import type { AllConfig } from '../config';
import type { WebhooksConfig } from '../config/webhooks.config';
import type { LookupFunction } from './dns-lookup';
import { WebhookDns } from './webhook-dns';
import { WebhookSender } from './webhook-sender';

/** The system resolver's place: `answers` per name; a name not listed never answers. */
const scriptedDns =
  (answers: Record<string, string>): LookupFunction =>
  (host, options, callback) => {
    const address = answers[host];
    if (address === undefined) return;
    const entry: LookupAddress = { address, family: address.includes(':') ? 6 : 4 };
    if (options.all) callback(null, [entry]);
    else callback(null, entry.address, entry.family);
  };

function senderWith(dns: LookupFunction, allowPrivateTargets: boolean): WebhookSender {
  const webhooks: WebhooksConfig = {
    retryDelaysMs: [],
    allowHttp: true,
    allowPrivateTargets,
    workerConcurrency: 1,
    timeoutMs: 10_000,
    dnsTimeoutMs: 200,
    jobLockMs: 30_000,
  };
  const config = new ConfigService<AllConfig, true>({ webhooks });
  return new WebhookSender(config, new WebhookDns(config, dns));
}

describe('webhook sender: DNS and what lastError may say', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => (receiver = await WebhookReceiver.start()));
  afterAll(() => receiver.close());

  const delivery = (url: string) => ({
    url,
    secrets: ['whsec_test'],
    event: 'listing.sold',
    deliveryId: '00000000-0000-4000-8000-000000000001',
    payload: '{}',
  });

  it('delivers through the lookup it was given', async () => {
    const sender = senderWith(scriptedDns({ 'hooks.example': '127.0.0.1' }), true);
    const result = await sender.send(delivery(`http://hooks.example:${receiver.port}/resolved`));
    expect(result).toMatchObject({ ok: true, responseStatus: 200, error: null });
    expect(receiver.at('/resolved')).toHaveLength(1);
  });

  it('a lookup that never answers is a failed attempt with a DNS time-out, not a stalled one', async () => {
    const sender = senderWith(scriptedDns({}), false);
    const result = await sender.send(delivery(`http://stalled.example:${receiver.port}/stalled`));
    expect(result).toMatchObject({
      ok: false,
      responseStatus: null,
      error: 'DNS lookup of stalled.example timed out after 200 ms',
    });
    expect(receiver.at('/stalled')).toHaveLength(0);
  });

  it('a name resolving to an internal address is refused without naming the address', async () => {
    const sender = senderWith(scriptedDns({ 'internal.example': '10.20.30.40' }), false);
    const result = await sender.send(delivery(`http://internal.example:${receiver.port}/x`));
    expect(result).toMatchObject({
      ok: false,
      error: 'Target internal.example does not resolve to a public address',
    });
    expect(result.error).not.toContain('10.20.30.40');
  });

  it('a refused connection is described without the address it tried', async () => {
    // Port 1 on the loopback refuses at once.
    const sender = senderWith(scriptedDns({ 'refusing.example': '127.0.0.1' }), true);
    const result = await sender.send(delivery('http://refusing.example:1/x'));
    expect(result).toMatchObject({ ok: false, error: 'connect ECONNREFUSED' });
  });
});
