import { wait } from './wait';

/** How the client waits out a 429 or 503 that carries `Retry-After`. */
export interface RetryOptions {
  /** retries of one call before its answer is returned as it is (default 5) */
  maxRetries?: number;
  /** the longest wait; an answer asking for more is returned at once (default 60,000 ms) */
  maxWaitMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 5, maxWaitMs: 60_000 };

type Fetch = (request: Request) => Promise<Response>;

/**
 * The wait a 429 or 503 asks for (`Retry-After` in seconds or as an HTTP date), or undefined when
 * the answer is not one to wait out: another status, no or an unreadable `Retry-After`, or a wait
 * longer than the policy allows (retrying sooner than asked would only be refused again).
 */
export function retryDelayMs(
  response: Response,
  policy: RetryPolicy,
  now = Date.now(),
): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const header = response.headers.get('retry-after')?.trim();
  if (!header) return undefined;
  let ms: number;
  if (/^\d+$/.test(header)) ms = Number(header) * 1000;
  else {
    // all three HTTP-date forms start with the day's name; Date.parse alone takes `-1` as a year
    const at = /^[A-Za-z]{3}/.test(header) ? Date.parse(header) : NaN;
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return ms <= policy.maxWaitMs ? ms : undefined;
}

/**
 * Whether a refusal may be sent again. A 429 of this service is always given before any work
 * (the rate limits, the unfinished-imports limit): any request may be repeated. The service
 * answers 503 only on readiness; on another route it comes from something in front of it, which
 * may have passed the request on, so a POST or PATCH is repeated only with an Idempotency-Key.
 */
export function mayRepeat(method: string, idempotencyKey: boolean, status: number): boolean {
  if (status === 429) return true;
  return (method !== 'POST' && method !== 'PATCH') || idempotencyKey;
}

/**
 * A body the client may keep for a second try: none, or JSON (at most 2 MB, the service's
 * limit). A feed or image upload streams and is never kept whole: its refusal is returned.
 */
function replayable(request: Request): boolean {
  if (request.body === null) return true;
  const type = request.headers.get('content-type') ?? '';
  return type.split(';')[0].trim().toLowerCase() === 'application/json';
}

/**
 * `fetch` that waits out a 429 or 503 with `Retry-After` and sends the request again, at most
 * `maxRetries` times; then, or for any other answer, the answer is returned as it came. An abort
 * of the request's signal during a wait rejects as fetch does.
 */
export function retryingFetch(fetch: Fetch, policy: RetryPolicy): Fetch {
  return async (request) => {
    if (policy.maxRetries <= 0 || !replayable(request)) return fetch(request);
    for (let retries = 0; ; retries++) {
      const response = await fetch(request.clone());
      const delay = retryDelayMs(response, policy);
      if (
        delay === undefined ||
        retries >= policy.maxRetries ||
        !mayRepeat(request.method, request.headers.has('idempotency-key'), response.status)
      )
        return response;
      await response.body?.cancel();
      await wait(delay, request.signal);
      request.signal.throwIfAborted();
    }
  };
}
