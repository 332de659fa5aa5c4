/** How many replaced secrets keep signing at most: the most recently replaced ones. */
export const MAX_PREVIOUS_SECRETS = 3;

/** A secret a rotation replaced, signing until its own grace ends. */
export interface PreviousSecret {
  secret: string;
  /** ISO 8601: when it stops signing (exclusive) */
  expiresAt: string;
}

/** The secrets an endpoint has stored: the current one and those rotations replaced. */
export interface EndpointSecrets {
  secret: string;
  /** newest (most recently replaced) first */
  previousSecrets: PreviousSecret[];
}

/** The replaced secrets still in their grace, newest first, at most MAX_PREVIOUS_SECRETS. */
function inGrace(previous: PreviousSecret[], now: Date): PreviousSecret[] {
  return previous
    .filter((p) => Date.parse(p.expiresAt) > now.getTime())
    .slice(0, MAX_PREVIOUS_SECRETS);
}

/**
 * The one definition of which secrets sign: the current one, then the replaced ones whose grace
 * has not ended, newest first (at most 3). SQL reads every stored secret and leaves the choice
 * to this function.
 */
export function liveSecrets(endpoint: EndpointSecrets, now = new Date()): string[] {
  return [endpoint.secret, ...inGrace(endpoint.previousSecrets, now).map((p) => p.secret)];
}

/**
 * The stored secrets after `secret` replaces the current one, which keeps signing until
 * `keepCurrentUntil`. Every earlier secret keeps its own grace (the 3 newest), so repeated
 * rotations never end one early; null (0 hours, a leaked secret) drops them all: only `secret`
 * signs. Expired ones are dropped from storage here.
 */
export function secretsAfterRotation(
  endpoint: EndpointSecrets,
  secret: string,
  keepCurrentUntil: Date | null,
  now: Date,
): EndpointSecrets {
  if (keepCurrentUntil === null) return { secret, previousSecrets: [] };
  const replaced = { secret: endpoint.secret, expiresAt: keepCurrentUntil.toISOString() };
  return { secret, previousSecrets: inGrace([replaced, ...endpoint.previousSecrets], now) };
}
