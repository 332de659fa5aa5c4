import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import type { AuditOrigin } from '../../audit/audit-entry';
import { AuditService } from '../../audit/audit.service';
import { randomBase62 } from '../../accounts/api-key-secret';
import { NotFoundError, ValidationError } from '../../common/errors/domain-error';
import type { AllConfig } from '../../platform/config';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  assertPublicHost,
  BlockedTargetError,
  hostOf,
} from '../../platform/outbound/address-guard';
import { OutboundDns } from '../../platform/outbound/outbound-dns';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import type { OwnerScope } from '../../auth/scope';
import { WebhookEndpointStore } from './webhook-endpoint.store';
import { MAX_WEBHOOK_ENDPOINTS } from '../../common/api-limits';
import { requestFingerprint } from '../../idempotency/fingerprint';
import { IdempotencyService, IdempotentOutcome } from '../../idempotency/idempotency.service';
import type { CreatedWebhookEndpointResponse } from './dto/webhook-endpoint.response';
import { toCreatedEndpointResponse } from './webhook-endpoints.mapper';

export function generateWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

@Injectable()
export class WebhookEndpointsService {
  private readonly allowHttp: boolean;
  private readonly allowPrivateTargets: boolean;

  constructor(
    private readonly store: WebhookEndpointStore,
    private readonly idempotency: IdempotencyService,
    private readonly dns: OutboundDns,
    private readonly audit: AuditService,
    private readonly dataSource: DataSource,
    config: ConfigService<AllConfig, true>,
  ) {
    const webhooks = config.get('webhooks', { infer: true });
    this.allowHttp = webhooks.allowHttp;
    this.allowPrivateTargets = config.get('outbound.allowPrivateTargets', { infer: true });
  }

  list(owner: OwnerScope): Promise<WebhookEndpoint[]> {
    return this.store.list(owner);
  }

  /** Another account's endpoint, or the other mode's, is NOT_FOUND, like one that does not exist. */
  async get(owner: OwnerScope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.store.find(owner, id);
    if (!endpoint) throw new NotFoundError('Webhook endpoint');
    return endpoint;
  }

  /**
   * The limit of 5 holds per mode: test endpoints never use up the live ones' quota. The answer
   * carries the only copy of the secret a caller sees, so a retry after a lost answer needs the
   * key: the same key and body replay the endpoint and its secret; without one a retry registers
   * a second endpoint.
   */
  async create(
    owner: OwnerScope,
    dto: CreateWebhookDto,
    origin: AuditOrigin,
    idempotencyKey?: string,
  ): Promise<IdempotentOutcome<CreatedWebhookEndpointResponse>> {
    await this.assertAllowedUrl(dto.url);
    return this.idempotency.executeIfKeyed(
      owner,
      idempotencyKey,
      () => requestFingerprint('POST /webhooks', dto),
      201,
      async (em) => {
        const endpoint = await this.insert(em, owner, dto);
        await this.record(em, origin, owner, 'endpoint.created', endpoint, {
          url: endpoint.url,
          events: endpoint.events,
        });
        return toCreatedEndpointResponse(endpoint);
      },
    );
  }

  /** The audit row of a change to an endpoint, in the change's transaction; never a secret. */
  private record(
    em: EntityManager,
    origin: AuditOrigin,
    owner: OwnerScope,
    action:
      'endpoint.created' | 'endpoint.updated' | 'endpoint.deleted' | 'endpoint.secret_rotated',
    endpoint: WebhookEndpoint,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    return this.audit.record(em, {
      ...origin,
      accountId: owner.accountId,
      action,
      target: endpoint.id,
      details: { livemode: owner.livemode, ...details },
    });
  }

  private async insert(em: EntityManager, owner: OwnerScope, dto: CreateWebhookDto) {
    const endpoint = await this.store.insertWithinLimit(
      em,
      owner,
      {
        url: dto.url,
        description: dto.description ?? null,
        events: dto.events ?? [],
        secret: generateWebhookSecret(),
      },
      MAX_WEBHOOK_ENDPOINTS,
    );
    if (!endpoint) {
      throw ValidationError.field(
        'url',
        `An account can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per mode; delete one first.`,
      );
    }
    return endpoint;
  }

  /** Only the fields sent change; isActive true re-enables and starts the failure count afresh. */
  async update(
    owner: OwnerScope,
    id: string,
    dto: UpdateWebhookDto,
    origin: AuditOrigin,
  ): Promise<WebhookEndpoint> {
    if (dto.url !== undefined) await this.assertAllowedUrl(dto.url);
    const { url, events, description, isActive } = dto;
    return this.dataSource.transaction(async (em) => {
      if (!(await this.store.update(owner, id, { url, events, description, isActive }, em)))
        throw new NotFoundError('Webhook endpoint');
      const endpoint = await em.findOneByOrFail(WebhookEndpoint, { id });
      const changed = Object.fromEntries(
        Object.entries({ url, events, description, isActive }).filter(([, v]) => v !== undefined),
      );
      await this.record(em, origin, owner, 'endpoint.updated', endpoint, { changed });
      return endpoint;
    });
  }

  /**
   * The current secret keeps signing beside the new one until it expires (0 hours: it and every
   * earlier one stop now). Answers this rotation's secret even when others run at once.
   */
  async rotateSecret(
    owner: OwnerScope,
    id: string,
    expireCurrentAfterHours: number,
    origin: AuditOrigin,
  ): Promise<WebhookEndpoint> {
    return this.dataSource.transaction(async (em) => {
      const rotated = await this.store.rotateSecret(
        owner,
        id,
        generateWebhookSecret(),
        expireCurrentAfterHours,
        em,
      );
      if (!rotated) throw new NotFoundError('Webhook endpoint');
      await this.record(em, origin, owner, 'endpoint.secret_rotated', rotated, {
        expireCurrentAfterHours,
      });
      return rotated;
    });
  }

  /** Its deliveries go with it; their queued jobs find nothing to send and end. */
  async remove(owner: OwnerScope, id: string, origin: AuditOrigin): Promise<WebhookEndpoint> {
    const endpoint = await this.get(owner, id);
    await this.dataSource.transaction(async (em) => {
      if (!(await this.store.delete(owner, id, em))) throw new NotFoundError('Webhook endpoint');
      await this.record(em, origin, owner, 'endpoint.deleted', endpoint, { url: endpoint.url });
    });
    return endpoint;
  }

  /** https unless WEBHOOK_ALLOW_HTTP; a public target unless FETCH_ALLOW_PRIVATE_TARGETS. */
  private async assertAllowedUrl(url: string): Promise<void> {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && !this.allowHttp) {
      throw ValidationError.field('url', 'url must use https.');
    }
    if (this.allowPrivateTargets) return;
    const host = hostOf(parsed);
    try {
      await assertPublicHost(host, this.dns.resolve);
    } catch (error) {
      // Never the address it resolved to: a refusal must not tell what internal names point at.
      if (error instanceof BlockedTargetError) {
        throw ValidationError.field('url', 'url must resolve to a public address.');
      }
      throw ValidationError.field('url', `The host ${host} could not be resolved.`);
    }
  }
}
