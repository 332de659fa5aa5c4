import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { randomBase62 } from '../accounts/api-key-secret';
import type { Principal } from '../common/auth/principal';
import { NotFoundError, ValidationError } from '../common/errors/domain-error';
import type { AllConfig } from '../config';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { assertPublicHost, BlockedTargetError, hostOf } from './ssrf-guard';
import { WebhookDns } from './webhook-dns';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { MAX_ENDPOINTS_PER_ACCOUNT } from './webhook-limits';

/** An endpoint is reached through the account and mode of the key that created it. */
export type EndpointOwner = Pick<Principal, 'accountId' | 'livemode'>;

export function generateWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

@Injectable()
export class WebhookEndpointsService {
  private readonly allowHttp: boolean;
  private readonly allowPrivateTargets: boolean;

  constructor(
    @InjectRepository(WebhookEndpoint) private readonly endpoints: Repository<WebhookEndpoint>,
    private readonly dataSource: DataSource,
    private readonly dns: WebhookDns,
    config: ConfigService<AllConfig, true>,
  ) {
    const webhooks = config.get('webhooks', { infer: true });
    this.allowHttp = webhooks.allowHttp;
    this.allowPrivateTargets = webhooks.allowPrivateTargets;
  }

  list({ accountId, livemode }: EndpointOwner): Promise<WebhookEndpoint[]> {
    return this.endpoints.find({
      where: { accountId, livemode },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** Another account's endpoint, or the other mode's, is NOT_FOUND, like one that does not exist. */
  async get({ accountId, livemode }: EndpointOwner, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.findOneBy({ id, accountId, livemode });
    if (!endpoint) throw new NotFoundError('Webhook endpoint');
    return endpoint;
  }

  /** The limit of 5 counts the endpoints of both modes together. */
  async create(
    { accountId, livemode }: EndpointOwner,
    dto: CreateWebhookDto,
  ): Promise<WebhookEndpoint> {
    await this.assertAllowedUrl(dto.url);
    return this.dataSource.transaction(async (em) => {
      // Creates of one account take turns, so two at once cannot both be the 5th.
      await em.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const count = await em.countBy(WebhookEndpoint, { accountId });
      if (count >= MAX_ENDPOINTS_PER_ACCOUNT) {
        throw ValidationError.field(
          'url',
          `An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`,
        );
      }
      return em.save(
        em.create(WebhookEndpoint, {
          accountId,
          livemode,
          url: dto.url,
          description: dto.description ?? null,
          events: dto.events ?? [],
          secret: generateWebhookSecret(),
          isActive: true,
          consecutiveFailures: 0,
          disabledAt: null,
        }),
      );
    });
  }

  /**
   * One UPDATE of only the fields sent, so it never writes back a failure count the delivery
   * worker changed in the meantime. isActive true re-enables and starts the count afresh.
   */
  async update(owner: EndpointOwner, id: string, dto: UpdateWebhookDto): Promise<WebhookEndpoint> {
    if (dto.url !== undefined) await this.assertAllowedUrl(dto.url);
    const set: QueryDeepPartialEntity<WebhookEndpoint> = {};
    if (dto.url !== undefined) set.url = dto.url;
    if (dto.events !== undefined) set.events = dto.events;
    if (dto.description !== undefined) set.description = dto.description;
    if (dto.isActive === true)
      Object.assign(set, { isActive: true, consecutiveFailures: 0, disabledAt: null });
    if (dto.isActive === false)
      Object.assign(set, { isActive: false, disabledAt: () => 'COALESCE(disabled_at, now())' });
    if (Object.keys(set).length > 0) {
      const result = await this.endpoints
        .createQueryBuilder()
        .update()
        .set(set)
        .where('id = :id AND account_id = :accountId AND livemode = :livemode', { id, ...owner })
        .execute();
      if (result.affected === 0) throw new NotFoundError('Webhook endpoint');
    }
    return this.get(owner, id);
  }

  /** The active endpoints of an account and mode that subscribe to the event. */
  async activeSubscribers(accountId: string, livemode: boolean, event: string): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM webhook_endpoints
       WHERE account_id = $1 AND livemode = $3 AND is_active
         AND (cardinality(events) = 0 OR $2 = ANY(events))`,
      [accountId, event, livemode],
    );
    return rows.map((row) => row.id);
  }

  /**
   * One more failed attempt in the endpoint's streak, inside the caller's transaction; locks the
   * row so concurrent failures take turns. false (nothing counted) when it is paused or disabled.
   */
  async countFailure(em: EntityManager, endpointId: string): Promise<boolean> {
    const [rows] = await em.query(
      `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1
       WHERE id = $1 AND is_active RETURNING id`,
      [endpointId],
    );
    return rows.length > 0;
  }

  /**
   * A new secret; the current one becomes the previous one, signing beside it until it expires
   * (with 0 hours it is dropped at once). One UPDATE: a concurrent rotation cannot lose a secret
   * half-way. Only the latest replaced secret is kept.
   */
  async rotateSecret(
    owner: EndpointOwner,
    id: string,
    expireCurrentAfterHours: number,
  ): Promise<WebhookEndpoint> {
    const result = await this.endpoints
      .createQueryBuilder()
      .update()
      .set({
        previousSecret: () => (expireCurrentAfterHours > 0 ? 'secret' : 'NULL'),
        previousSecretExpiresAt: () =>
          expireCurrentAfterHours > 0 ? `now() + :hours * interval '1 hour'` : 'NULL',
        secret: generateWebhookSecret(),
      })
      .where('id = :id AND account_id = :accountId AND livemode = :livemode', {
        id,
        accountId: owner.accountId,
        livemode: owner.livemode,
        hours: expireCurrentAfterHours,
      })
      .execute();
    if (result.affected === 0) throw new NotFoundError('Webhook endpoint');
    return this.get(owner, id);
  }

  /** Its deliveries go with it; their queued jobs find nothing to send and end. */
  async remove(owner: EndpointOwner, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.get(owner, id);
    await this.endpoints.delete({ id, accountId: owner.accountId, livemode: owner.livemode });
    return endpoint;
  }

  /** https unless WEBHOOK_ALLOW_HTTP; a public target unless WEBHOOK_ALLOW_PRIVATE_TARGETS. */
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
