/** The secrets an endpoint signs with now: the current one, then a rotated-out one still valid. */
export function liveSecrets(
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now = new Date(),
): string[] {
  const previousLive =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now;
  return previousLive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}
