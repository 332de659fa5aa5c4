import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { lookup as dnsLookup } from 'node:dns';
import type { AllConfig } from '../../platform/config';
import { boundedLookup, LookupFunction, Resolver, resolverOf } from './dns-lookup';

/** System resolver (/etc/hosts applies), WEBHOOK_DNS_TIMEOUT_MS; one instance shares lookups. */
@Injectable()
export class WebhookDns {
  readonly lookup: LookupFunction;
  readonly resolve: Resolver;

  constructor(
    config: ConfigService<AllConfig, true>,
    // Never provided in the application; the sender's tests hand in a resolver that never answers.
    @Optional() systemLookup: LookupFunction = dnsLookup as LookupFunction,
  ) {
    this.lookup = boundedLookup(systemLookup, config.get('webhooks.dnsTimeoutMs', { infer: true }));
    this.resolve = resolverOf(this.lookup);
  }
}
