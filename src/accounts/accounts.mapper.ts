import type { Account } from './account.entity';
import type { ApiKey } from './api-key.entity';
import type { AccountSummary, ApiKeySummary } from './dto/me.response';

export function toAccountSummary(account: Account): AccountSummary {
  return {
    id: account.id,
    name: account.name,
    status: account.status,
    createdAt: account.createdAt.toISOString(),
  };
}

/** Never includes the hash: nothing derived from the key leaves the service but its prefix. */
export function toApiKeySummary(key: ApiKey): ApiKeySummary {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    kind: key.kind,
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
  };
}
