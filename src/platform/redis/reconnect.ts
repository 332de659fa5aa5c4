/**
 * ioredis' `retryStrategy` for every connection of the service: back within 2 s of Redis
 * returning (ioredis' own default and Bull's wait up to 20 s).
 */
export function reconnectWithin2s(attempt: number): number {
  return Math.min(attempt * 200, 2_000);
}
