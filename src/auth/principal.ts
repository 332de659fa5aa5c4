export const ACCOUNT_STATUSES = ['PENDING', 'APPROVED', 'SUSPENDED'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const API_KEY_KINDS = ['live', 'test'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

export const SCOPES = [
  'listings:read',
  'listings:write',
  'webhooks:manage',
  'account:read',
] as const;
export type Scope = (typeof SCOPES)[number];

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
