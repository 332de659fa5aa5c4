import createClient, { type Client } from 'openapi-fetch';
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
}

/** An openapi-fetch client typed by the service's OpenAPI document, with the key attached. */
export function createListingsClient({
  baseUrl,
  apiKey,
  fetch,
}: ListingsClientOptions): ListingsClient {
  return createClient<paths, 'application/json'>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${apiKey}` },
    ...(fetch ? { fetch } : {}),
  });
}
