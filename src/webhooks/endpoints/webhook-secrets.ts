/** The secrets an endpoint has stored: the current one and the one its last rotation replaced. */
export interface EndpointSecrets {
  secret: string;
  previousSecret: string | null;
  /** when the replaced secret stops signing; null when there is none */
  previousSecretExpiresAt: Date | null;
}

/**
 * The one definition of which secrets sign: the current one, then the replaced one until its
 * expiry (exclusive). SQL reads every stored secret and leaves the choice to this function.
 */
export function liveSecrets(endpoint: EndpointSecrets, now = new Date()): string[] {
  const previousLive =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now;
  return previousLive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}
