import createClient, { type Client } from 'openapi-fetch';
import { DEFAULT_RETRY, type RetryOptions, type RetryPolicy, retryingFetch } from './retry';
import type { paths } from './schema';

/**
 * Typed by the documented JSON bodies, which openapi-fetch parses unless told otherwise (the
 * NDJSON download of import results: `parseAs: 'text'` with `Accept: application/x-ndjson`).
 */
export type ListingsClient = Client<paths, 'application/json'>;

export interface ListingsClientOptions {
  /** the service's origin, e.g. `https://api.example.se` (paths start with `/v1`) */
  baseUrl: string;
  /** `svc_live_…` or `svc_test_…` */
  apiKey: string;
  /** a fetch of your own (a proxy, a test double); default: the global fetch */
  fetch?: (request: Request) => Promise<Response>;
  /** waiting out 429 and 503 with `Retry-After` (default 5 retries, 60 s at most each); false: never */
  retry?: RetryOptions | false;
}

/** Each client's retry policy, for the helpers that resend what fetch cannot (a feed upload). */
const POLICIES = new WeakMap<object, RetryPolicy>();

/** The policy `client` was made with; a client made elsewhere gets the default one. */
export function retryPolicyOf(client: ListingsClient): RetryPolicy {
  return POLICIES.get(client) ?? DEFAULT_RETRY;
}

/**
 * An openapi-fetch client typed by the service's OpenAPI document, with the key attached. Every
 * call waits out a 429 or 503 that carries `Retry-After`, within `retry`'s bounds.
 */
export function createListingsClient({
  baseUrl,
  apiKey,
  fetch,
  retry,
}: ListingsClientOptions): ListingsClient {
  const options: RetryOptions = retry === false ? { maxRetries: 0 } : (retry ?? {});
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries,
    maxWaitMs: options.maxWaitMs ?? DEFAULT_RETRY.maxWaitMs,
  };
  // the global fetch is looked up per call, so a fetch replaced after creation is the one used
  const send = fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths, 'application/json'>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${apiKey}` },
    fetch: retryingFetch(send, policy),
  });
  POLICIES.set(client, policy);
  return client;
}
