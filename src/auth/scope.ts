import type { Principal } from './principal';

/** Whose records a key reaches (its account's, in its mode); not its permissions (`@Scopes`). */
export interface OwnerScope {
  accountId: string;
  livemode: boolean;
}

export const ownerScopeOf = (principal: Principal): OwnerScope => ({
  accountId: principal.accountId,
  livemode: principal.livemode,
});
