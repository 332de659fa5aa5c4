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

/**
 * @deprecated the old names, kept only for src/events/events-feed.service.ts and
 * events.controller.ts, which another branch is changing now; switch them to OwnerScope and
 * ownerScopeOf when it has merged, then delete these two lines.
 */
export type RecordScope = OwnerScope;
export const scopeOf = ownerScopeOf;
