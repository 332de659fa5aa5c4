import type { AccountStatus, ApiKeyKind, Scope } from '../../auth/principal';

export class AccountSummary {
  id: string;
  name: string;
  status: AccountStatus;
  createdAt: string;
}

export class ApiKeySummary {
  id: string;
  name: string;
  /** first 12 characters of the key; the key itself is never shown again */
  prefix: string;
  kind: ApiKeyKind;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  /** when a rolled key stops working; null for a key that was not rolled */
  expiresAt: string | null;
}

export class RateLimits {
  readPerMinute: number;
  writePerMinute: number;
  bulkItemsPerRequest: number;
  imagesPerListing: number;
  webhookEndpoints: number;
  pageSizeMax: number;
}

export class MeResponse {
  account: AccountSummary;
  key: ApiKeySummary;
  limits: RateLimits;
}
