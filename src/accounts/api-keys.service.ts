import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import type { KeyAuthenticator } from '../auth/key-authenticator';
import type { Principal } from '../auth/principal';
import type { AllConfig } from '../platform/config';
import { NotFoundError } from '../common/errors/domain-error';
import { Account } from './account.entity';
import { ApiKeyKind, Scope, SCOPES } from '../auth/principal';
import { ApiKey } from './api-key.entity';
import { API_KEY_PATTERN, displayPrefix, generateApiKey, hashApiKey } from './api-key-secret';

/**
 * Revocation and suspension reach every instance within 5 s, so cached answers live less
 * (API_KEY_CACHE_TTL_MS, at most 4 s). Cache keys are hashes only.
 */
const CACHE_MAX_ENTRIES = 10_000;

interface CacheEntry {
  principal: Principal | null;
  expiresAt: number;
}

export interface CreateKeyInput {
  kind: ApiKeyKind;
  name?: string;
  scopes?: Scope[];
}

@Injectable()
export class ApiKeysService implements KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly cacheTtlMs: number;

  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    config: ConfigService<AllConfig, true>,
  ) {
    this.cacheTtlMs = config.get('app.apiKeyCacheTtlMs', { infer: true });
  }

  /** Returns the stored record and the key itself, which is never available again. */
  async create(accountId: string, input: CreateKeyInput): Promise<{ record: ApiKey; key: string }> {
    if (!(await this.accounts.existsBy({ id: accountId }))) throw new NotFoundError('Account');
    const key = generateApiKey(input.kind);
    const record = await this.keys.save(
      this.keys.create({
        accountId,
        kind: input.kind,
        name: input.name ?? `${input.kind} key`,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key),
        scopes: input.scopes?.length ? [...new Set(input.scopes)] : [...SCOPES],
        lastUsedAt: null,
        revokedAt: null,
      }),
    );
    return { record, key };
  }

  async revoke(keyId: string): Promise<ApiKey> {
    const record = await this.keys.findOneBy({ id: keyId, revokedAt: IsNull() });
    if (!record) throw new NotFoundError('API key');
    record.revokedAt = new Date();
    const saved = await this.keys.save(record);
    this.forget((p) => p.keyId === keyId);
    return saved;
  }

  async get(keyId: string): Promise<ApiKey> {
    const record = await this.keys.findOneBy({ id: keyId });
    if (!record) throw new NotFoundError('API key');
    return record;
  }

  /** The principal for a key, or null when the key is malformed, unknown or revoked. */
  async authenticate(key: string): Promise<Principal | null> {
    if (!API_KEY_PATTERN.test(key)) return null;
    const hash = hashApiKey(key);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.principal;
    const principal = await this.lookup(hash);
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hash, { principal, expiresAt: now + this.cacheTtlMs });
    return principal;
  }

  /**
   * Records each key's latest use (epoch ms) in one statement, in the caller's transaction;
   * GREATEST keeps the latest when several instances write.
   */
  async touchLastUsed(em: EntityManager, lastUsed: ReadonlyMap<string, number>): Promise<void> {
    const touches = [...lastUsed].map(([keyId, at]) => ({
      key_id: keyId,
      used_at: new Date(at).toISOString(),
    }));
    await em.query(
      `UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, x.used_at)
       FROM jsonb_to_recordset($1::jsonb) AS x(key_id uuid, used_at timestamptz)
       WHERE k.id = x.key_id`,
      [JSON.stringify(touches)],
    );
  }

  forgetAccount(accountId: string): void {
    this.forget((p) => p.accountId === accountId);
  }

  private forget(matches: (p: Principal) => boolean): void {
    for (const [hash, entry] of this.cache) {
      if (entry.principal && matches(entry.principal)) this.cache.delete(hash);
    }
  }

  private async lookup(hash: string): Promise<Principal | null> {
    const row = await this.keys
      .createQueryBuilder('k')
      .innerJoin(Account, 'a', 'a.id = k.account_id')
      .select([
        'k.id AS "keyId"',
        'k.kind AS kind',
        'k.scopes AS scopes',
        'a.id AS "accountId"',
        'a.status AS status',
      ])
      .where('k.key_hash = :hash AND k.revoked_at IS NULL', { hash })
      .getRawOne<{
        keyId: string;
        kind: ApiKeyKind;
        scopes: Scope[];
        accountId: string;
        status: Account['status'];
      }>();
    if (!row) return null;
    return {
      keyId: row.keyId,
      kind: row.kind,
      livemode: row.kind === 'live',
      scopes: row.scopes,
      accountId: row.accountId,
      accountStatus: row.status,
    };
  }
}
