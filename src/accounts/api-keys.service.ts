import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import type { AuditOrigin } from '../audit/audit-entry';
import { AuditService } from '../audit/audit.service';
import type { KeyAuthenticator } from '../auth/key-authenticator';
import type { Principal } from '../auth/principal';
import type { AllConfig } from '../platform/config';
import { ForbiddenError, NotFoundError, ValidationError } from '../common/errors/domain-error';
import { Account } from './account.entity';
import { ApiKeyKind, Scope, SCOPES } from '../auth/principal';
import { ApiKey } from './api-key.entity';
import { API_KEY_PATTERN, displayPrefix, generateApiKey, hashApiKey } from './api-key-secret';
import { assertKeyRollGraceMs } from './key-roll-grace';
import { LiveKeyNotifier } from './live-key-notifier';

/**
 * Revocation and suspension reach every instance within 5 s, so cached answers live less
 * (API_KEY_CACHE_TTL_MS, at most 4 s). Cache keys are hashes only.
 */
const CACHE_MAX_ENTRIES = 10_000;

interface CacheEntry {
  principal: Principal | null;
  /** when this cached answer must be read again (epoch ms) */
  expiresAt: number;
  /** when the key itself stops working (a rolled key's expires_at), epoch ms; null: never */
  keyExpiresAt: number | null;
}

export interface CreateKeyInput {
  kind: ApiKeyKind;
  name?: string;
  scopes?: Scope[];
  /** the dashboard user making it; none from the CLI or the admin API */
  createdByUserId?: string | null;
}

@Injectable()
export class ApiKeysService implements KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly cacheTtlMs: number;

  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    private readonly audit: AuditService,
    config: ConfigService<AllConfig, true>,
    @Optional() private readonly liveKeys?: LiveKeyNotifier,
  ) {
    this.cacheTtlMs = config.get('app.apiKeyCacheTtlMs', { infer: true });
  }

  /**
   * Returns the stored record and the key itself, which is never available again. Only an
   * APPROVED account gets keys, of either kind (the spec: access is requested and approved first).
   */
  async create(
    accountId: string,
    input: CreateKeyInput,
    origin: AuditOrigin,
  ): Promise<{ record: ApiKey; key: string }> {
    return this.keys.manager.transaction(async (em) => {
      await this.assertApproved(em, accountId);
      const created = await this.insert(em, accountId, input);
      await this.audit.record(em, {
        ...origin,
        accountId,
        action: 'key.created',
        target: created.record.id,
        details: {
          kind: created.record.kind,
          name: created.record.name,
          scopes: created.record.scopes,
        },
      });
      await this.notifyLive(em, created.record, 'created');
      return created;
    });
  }

  /**
   * A new key with the old one's account, kind, name and scopes; the old one keeps working for
   * `graceMs` (0, 1 h, 24 h or 7 days) and is refused by authentication from then on. One
   * transaction: the new key, the old one's expiry and the audit row. A revoked, expired or
   * already rolled key cannot be rolled.
   */
  async roll(
    accountId: string,
    keyId: string,
    graceMs: number,
    origin: AuditOrigin,
    createdByUserId: string | null = null,
  ): Promise<{ record: ApiKey; key: string; rolled: ApiKey }> {
    assertKeyRollGraceMs(graceMs);
    const result = await this.keys.manager.transaction(async (em) => {
      const old = await em.findOne(ApiKey, {
        where: { id: keyId, accountId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!old) throw new NotFoundError('API key');
      if (old.revokedAt)
        throw ValidationError.field('status', 'The key is revoked; it cannot be rolled.');
      if (old.expiresAt) {
        throw ValidationError.field(
          'status',
          old.expiresAt.getTime() <= Date.now()
            ? 'The key has expired; it cannot be rolled.'
            : `The key was already rolled and expires at ${old.expiresAt.toISOString()}; revoke it to end it sooner.`,
        );
      }
      await this.assertApproved(em, accountId);
      const created = await this.insert(em, accountId, {
        kind: old.kind,
        name: old.name,
        scopes: old.scopes,
        createdByUserId,
      });
      // The database's clock, as authentication compares with it.
      const [[{ at }]]: [{ at: Date }[], number] = await em.query(
        `UPDATE api_keys SET expires_at = now() + $2 * interval '1 millisecond' WHERE id = $1
         RETURNING expires_at AS at`,
        [old.id, graceMs],
      );
      old.expiresAt = at;
      await this.audit.record(em, {
        ...origin,
        accountId,
        action: 'key.rolled',
        target: old.id,
        details: {
          newKeyId: created.record.id,
          kind: old.kind,
          graceSeconds: graceMs / 1000,
          expiresAt: at.toISOString(),
        },
      });
      await this.notifyLive(em, created.record, 'rolled');
      return { ...created, rolled: old };
    });
    this.forget((p) => p.keyId === keyId);
    return result;
  }

  /** Revokes a key at once (every instance within 5 s); `accountId` confines it to that account. */
  async revoke(keyId: string, origin: AuditOrigin, accountId?: string): Promise<ApiKey> {
    const saved = await this.keys.manager.transaction(async (em) => {
      const record = await em.findOne(ApiKey, {
        where: { id: keyId, revokedAt: IsNull(), ...(accountId ? { accountId } : {}) },
        lock: { mode: 'pessimistic_write' },
      });
      if (!record) throw new NotFoundError('API key');
      record.revokedAt = new Date();
      const revoked = await em.save(record);
      await this.audit.record(em, {
        ...origin,
        accountId: record.accountId,
        action: 'key.revoked',
        target: record.id,
        details: { kind: record.kind, name: record.name },
      });
      return revoked;
    });
    this.forget((p) => p.keyId === keyId);
    return saved;
  }

  /** An account's keys, newest first, revoked and expired ones included. */
  list(accountId: string): Promise<ApiKey[]> {
    return this.keys.find({ where: { accountId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  private async notifyLive(
    em: EntityManager,
    key: ApiKey,
    how: 'created' | 'rolled',
  ): Promise<void> {
    if (key.kind !== 'live' || !this.liveKeys) return;
    await this.liveKeys.liveKeyCreated(em, {
      accountId: key.accountId,
      keyId: key.id,
      name: key.name,
      createdAt: key.createdAt,
      how,
    });
  }

  private async assertApproved(em: EntityManager, accountId: string): Promise<void> {
    const account = await em.findOne(Account, {
      where: { id: accountId },
      lock: { mode: 'pessimistic_read' },
    });
    if (!account) throw new NotFoundError('Account');
    if (account.status !== 'APPROVED') {
      throw new ForbiddenError(
        `API keys are issued to approved accounts only; this account is ${account.status.toLowerCase()}.`,
      );
    }
  }

  private async insert(
    em: EntityManager,
    accountId: string,
    input: CreateKeyInput,
  ): Promise<{ record: ApiKey; key: string }> {
    const key = generateApiKey(input.kind);
    const record = await em.save(
      em.create(ApiKey, {
        accountId,
        kind: input.kind,
        name: input.name ?? `${input.kind} key`,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key),
        scopes: input.scopes?.length ? [...new Set(input.scopes)] : [...SCOPES],
        lastUsedAt: null,
        revokedAt: null,
        expiresAt: null,
        createdByUserId: input.createdByUserId ?? null,
      }),
    );
    return { record, key };
  }

  async get(keyId: string): Promise<ApiKey> {
    const record = await this.keys.findOneBy({ id: keyId });
    if (!record) throw new NotFoundError('API key');
    return record;
  }

  /**
   * The principal for a key, or null when the key is malformed, unknown, revoked or past its
   * expiry. A cached answer never outlives the key's own expiry: it is checked on every hit.
   */
  async authenticate(key: string): Promise<Principal | null> {
    if (!API_KEY_PATTERN.test(key)) return null;
    const hash = hashApiKey(key);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) {
      return cached.keyExpiresAt !== null && cached.keyExpiresAt <= now ? null : cached.principal;
    }
    const found = await this.lookup(hash);
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hash, {
      principal: found?.principal ?? null,
      expiresAt: now + this.cacheTtlMs,
      keyExpiresAt: found?.keyExpiresAt ?? null,
    });
    return found?.principal ?? null;
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

  private async lookup(
    hash: string,
  ): Promise<{ principal: Principal; keyExpiresAt: number | null } | null> {
    const row = await this.keys
      .createQueryBuilder('k')
      .innerJoin(Account, 'a', 'a.id = k.account_id')
      .select([
        'k.id AS "keyId"',
        'k.kind AS kind',
        'k.scopes AS scopes',
        'a.id AS "accountId"',
        'a.status AS status',
        'k.expires_at AS "expiresAt"',
      ])
      .where('k.key_hash = :hash AND k.revoked_at IS NULL', { hash })
      .andWhere('(k.expires_at IS NULL OR k.expires_at > now())')
      .getRawOne<{
        keyId: string;
        kind: ApiKeyKind;
        scopes: Scope[];
        accountId: string;
        status: Account['status'];
        expiresAt: Date | null;
      }>();
    if (!row) return null;
    return {
      principal: {
        keyId: row.keyId,
        kind: row.kind,
        livemode: row.kind === 'live',
        scopes: row.scopes,
        accountId: row.accountId,
        accountStatus: row.status,
      },
      keyExpiresAt: row.expiresAt ? new Date(row.expiresAt).getTime() : null,
    };
  }
}
