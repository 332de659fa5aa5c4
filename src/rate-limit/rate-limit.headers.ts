export interface RateLimitState {
  /** requests allowed per window for this method class */
  limit: number;
  /** requests left in the window after this one */
  remaining: number;
  /** seconds until the window frees a slot */
  resetSeconds: number;
  windowSeconds: number;
}

/** X-RateLimit-* and draft-ietf-httpapi-ratelimit-headers-07 (last draft with this syntax). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  const { limit, remaining, resetSeconds, windowSeconds } = state;
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(resetSeconds),
    'RateLimit-Policy': `${limit};w=${windowSeconds}`,
    RateLimit: `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}`,
  };
}
