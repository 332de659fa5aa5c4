import { ConfigService } from '@nestjs/config';
import type { LookupAddress } from 'node:dns';
import { WebhookReceiver } from '../../../test/support/webhook-receiver';
import type { AllConfig } from '../../platform/config';
import type { WebhooksConfig } from '../../platform/config/webhooks.config';
import type { LookupFunction } from '../../platform/outbound/dns-lookup';
import { AddressPolicy, blockedRangeOf } from '../../platform/outbound/address-guard';
import { OutboundDns } from '../../platform/outbound/outbound-dns';
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

function senderWith(
  dns: LookupFunction,
  allowPrivateTargets: boolean,
  policy?: AddressPolicy,
): WebhookSender {
  const webhooks: WebhooksConfig = {
    retryDelaysMs: [],
    allowHttp: true,
    workerConcurrency: 1,
    timeoutMs: 10_000,
    dnsTimeoutMs: 200,
    jobLockMs: 30_000,
  };
  const config = new ConfigService<AllConfig, true>({
    webhooks,
    outbound: { allowPrivateTargets },
  });
  return new WebhookSender(config, new OutboundDns(webhooks.dnsTimeoutMs, dns), policy);
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

describe('webhook sender: kept-alive connections', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => (receiver = await WebhookReceiver.start()));
  afterAll(() => receiver.close());

  let deliveries = 0;
  const delivery = (url: string) => ({
    url,
    secrets: ['whsec_test'],
    event: 'listing.sold',
    deliveryId: `00000000-0000-4000-8000-${String(++deliveries).padStart(12, '0')}`,
    payload: '{}',
  });
  const ports = (path: string) => receiver.at(path).map((request) => request.remotePort);

  it('sends the deliveries to one host over one connection', async () => {
    const sender = senderWith(scriptedDns({}), true);
    for (let i = 0; i < 3; i++) {
      const result = await sender.send(delivery(receiver.url('/reused')));
      expect(result).toMatchObject({ ok: true, responseStatus: 200 });
    }
    expect(new Set(ports('/reused')).size).toBe(1);
  });

  it('a pooled connection the receiver dropped is not a failed attempt: the request goes again on a new one', async () => {
    const sender = senderWith(scriptedDns({}), true);
    // The second request arrives on the pooled connection, which the receiver closes unanswered.
    receiver.replyWith('/dropped', 200, { drop: true });
    expect(await sender.send(delivery(receiver.url('/dropped')))).toMatchObject({ ok: true });
    const result = await sender.send(delivery(receiver.url('/dropped')));
    expect(result).toMatchObject({ ok: true, responseStatus: 200, error: null });
    const [first, dropped, again] = ports('/dropped');
    expect(dropped).toBe(first);
    expect(again).not.toBe(first);
    expect(receiver.at('/dropped')[2].headers['webhook-id']).toBe(
      receiver.at('/dropped')[1].headers['webhook-id'],
    );
  });

  it('a new connection dropped unanswered is a failed attempt, not repeated', async () => {
    const sender = senderWith(scriptedDns({}), true);
    receiver.replyWith('/dropped-new', { drop: true });
    const result = await sender.send(delivery(receiver.url('/dropped-new')));
    expect(result).toMatchObject({ ok: false, responseStatus: null, error: 'socket hang up' });
    expect(receiver.at('/dropped-new')).toHaveLength(1);
  });

  it('pooling never skips the address check: a name that now resolves to a private address is refused on its next connection', async () => {
    // Under this policy the receiver's 127.0.0.1 stands in for a public address.
    const policy: AddressPolicy = (address) =>
      address === '127.0.0.1' ? undefined : blockedRangeOf(address);
    const answers: Record<string, string> = { 'rebinding.example': '127.0.0.1' };
    let lookups = 0;
    const sender = senderWith(
      (host, options, callback) => {
        lookups++;
        scriptedDns(answers)(host, options, callback);
      },
      false,
      policy,
    );
    const url = `http://rebinding.example:${receiver.port}/rebinding`;
    expect(await sender.send(delivery(url))).toMatchObject({ ok: true });
    // DNS rebinding: the name now points into the private network.
    answers['rebinding.example'] = '10.0.0.7';
    // The pooled connection is to the address checked when it was opened: still 127.0.0.1.
    expect(await sender.send(delivery(url))).toMatchObject({ ok: true });
    expect(lookups).toBe(1);
    expect(new Set(ports('/rebinding')).size).toBe(1);

    receiver.closeIdleConnections();
    const refused = await sender.send(delivery(url));
    expect(refused).toMatchObject({
      ok: false,
      error: 'Target rebinding.example does not resolve to a public address',
    });
    expect(lookups).toBe(2);
    expect(receiver.at('/rebinding')).toHaveLength(2);
    // A private IP literal is refused on every attempt, before any connection.
    expect(await sender.send(delivery(`http://10.0.0.7:${receiver.port}/rebinding`))).toMatchObject(
      { ok: false, error: 'Target 10.0.0.7 is not a public address' },
    );
  });
});
