import type { ApiKeyKind, Scope } from '../accounts/api-key.entity';
import type { AccountStatus } from '../accounts/account.entity';

/** Who is calling: resolved from the API key by the guard, read by controllers. */
export interface Principal {
  accountId: string;
  accountStatus: AccountStatus;
  keyId: string;
  kind: ApiKeyKind;
  /** true for svc_live_ keys; a key sees and changes only records of its own mode */
  livemode: boolean;
  scopes: readonly Scope[];
}
