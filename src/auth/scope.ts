import type { Principal } from './principal';

/**
 * Whose records a key reaches: its account's, in its own mode (live or test). Not to be confused
 * with a key's permissions (`@Scopes`).
 */
export interface OwnerScope {
  accountId: string;
  livemode: boolean;
}

export const ownerScopeOf = (principal: Principal): OwnerScope => ({
  accountId: principal.accountId,
  livemode: principal.livemode,
});

