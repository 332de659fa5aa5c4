import { lookup as dnsLookup } from 'node:dns';
import { boundedLookup, LookupFunction, Resolver, resolverOf } from './dns-lookup';

/**
 * The system resolver (/etc/hosts applies) with a time-out; one instance shares concurrent
 * lookups. The feature that provides it passes its time-out in (webhooks: WEBHOOK_DNS_TIMEOUT_MS).
 */
export class OutboundDns {
  readonly lookup: LookupFunction;
  readonly resolve: Resolver;

  constructor(
    timeoutMs: number,
    // Only tests pass one: the sender's tests hand in a resolver that never answers.
    systemLookup: LookupFunction = dnsLookup as LookupFunction,
  ) {
    this.lookup = boundedLookup(systemLookup, timeoutMs);
    this.resolve = resolverOf(this.lookup);
  }
}
