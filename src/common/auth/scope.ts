import type { Principal } from './principal';

/** What a key may see: its account's records of its own mode (live or test). */
export interface RecordScope {
  accountId: string;
  livemode: boolean;
}

export const scopeOf = (principal: Principal): RecordScope => ({
  accountId: principal.accountId,
  livemode: principal.livemode,
});
