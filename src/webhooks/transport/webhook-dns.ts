import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { lookup as dnsLookup } from 'node:dns';
import type { AllConfig } from '../../platform/config';
import { boundedLookup, LookupFunction, Resolver, resolverOf } from './dns-lookup';

/**
 * How webhook hosts are resolved, at registration and for every delivery: the system resolver
 * (so /etc/hosts and the platform's DNS apply) with WEBHOOK_DNS_TIMEOUT_MS, one instance so that
 * all its callers share in-flight lookups.
 */
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
