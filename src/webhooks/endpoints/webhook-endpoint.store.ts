import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { OwnerScope } from '../../auth/scope';
import type { EventName } from '../../events/event-types';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { secretsAfterRotation } from './webhook-secrets';

export interface NewEndpoint {
  url: string;
  description: string | null;
  events: EventName[];
  secret: string;
}

/** The fields an owner may change; `isActive` true re-enables, false pauses. */
export interface EndpointChanges {
  url?: string;
  events?: EventName[];
  description?: string | null;
  isActive?: boolean;
}

/**
 * The one owner of `webhook_endpoints`' SQL, with four exceptions on purpose, each saving a
 * round trip or a write on a worker's path: the delivery worker's target lookup joins it
 * (WebhookDeliveryStore.loadTarget), the outbox relay's claim and the feed positioner ask whether
 * an account has an active endpoint (DispatchStore.claimUnrelayed,
 * OutboxStore.assignFeedPositions), and a successful attempt ends the endpoint's
 * failure streak in the statement that records it (WebhookDeliveryStore.recordSuccess: one
 * atomic statement, no transaction).
 */
@Injectable()
export class WebhookEndpointStore {
  constructor(
    @InjectRepository(WebhookEndpoint) private readonly endpoints: Repository<WebhookEndpoint>,
    private readonly dataSource: DataSource,
  ) {}

  list({ accountId, livemode }: OwnerScope): Promise<WebhookEndpoint[]> {
    return this.endpoints.find({
      where: { accountId, livemode },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  async find({ accountId, livemode }: OwnerScope, id: string): Promise<WebhookEndpoint | null> {
    return this.endpoints.findOneBy({ id, accountId, livemode });
  }

  /**
   * Inserts the endpoint unless the account already has `limit` in the endpoint's mode; undefined
   * when it has. Creates of one account take turns on the account row, so two at once cannot
   * both be the last one allowed.
   */
  async insertWithinLimit(
    em: EntityManager,
    { accountId, livemode }: OwnerScope,
    endpoint: NewEndpoint,
    limit: number,
  ): Promise<WebhookEndpoint | undefined> {
    await em.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    const count = await em.countBy(WebhookEndpoint, { accountId, livemode });
    if (count >= limit) return undefined;
    return em.save(
      em.create(WebhookEndpoint, {
        ...endpoint,
        accountId,
        livemode,
        isActive: true,
        consecutiveFailures: 0,
        disabledAt: null,
        previousSecrets: [],
      }),
    );
  }

  /**
   * One UPDATE of only the fields given, so it never writes back a failure count the delivery
   * worker changed in the meantime. Re-enabling starts the count afresh. False when not found.
   */
  async update(
    owner: OwnerScope,
    id: string,
    changes: EndpointChanges,
    em: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const set: QueryDeepPartialEntity<WebhookEndpoint> = {};
    if (changes.url !== undefined) set.url = changes.url;
    if (changes.events !== undefined) set.events = changes.events;
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.isActive === true)
      Object.assign(set, { isActive: true, consecutiveFailures: 0, disabledAt: null });
    if (changes.isActive === false)
      Object.assign(set, { isActive: false, disabledAt: () => 'COALESCE(disabled_at, now())' });
    if (Object.keys(set).length === 0)
      return (
        (await em.findOneBy(WebhookEndpoint, {
          id,
          accountId: owner.accountId,
          livemode: owner.livemode,
        })) !== null
      );
    const result = await em
      .createQueryBuilder()
      .update(WebhookEndpoint)
      .set(set)
      .where('id = :id AND account_id = :accountId AND livemode = :livemode', { id, ...owner })
      .execute();
    return result.affected !== 0;
  }

  /**
   * `secret` becomes the current one; the replaced one keeps signing for `keepCurrentHours`
   * (secretsAfterRotation decides the rest). Rotations of one endpoint take turns on its row, so
   * concurrent ones each keep the secret the one before them replaced. Answers the endpoint as
   * this rotation left it (its `secret` is this one's), undefined when not found. In the
   * caller's transaction, which holds the endpoint's row until it ends.
   */
  async rotateSecret(
    { accountId, livemode }: OwnerScope,
    id: string,
    secret: string,
    keepCurrentHours: number,
    em: EntityManager,
  ): Promise<WebhookEndpoint | undefined> {
    const endpoint = await em.findOne(WebhookEndpoint, {
      where: { id, accountId, livemode },
      lock: { mode: 'pessimistic_write' },
    });
    if (!endpoint) return undefined;
    const now = new Date();
    const keepCurrentUntil =
      keepCurrentHours > 0 ? new Date(now.getTime() + keepCurrentHours * 3_600_000) : null;
    const rotated = secretsAfterRotation(endpoint, secret, keepCurrentUntil, now);
    await em.update(WebhookEndpoint, { id }, rotated);
    return em.findOneByOrFail(WebhookEndpoint, { id });
  }

  /** False when there was none to delete. */
  async delete(
    owner: OwnerScope,
    id: string,
    em: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const result = await em.delete(WebhookEndpoint, {
      id,
      accountId: owner.accountId,
      livemode: owner.livemode,
    });
    return result.affected !== 0;
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
   * Disables the endpoint, in the caller's transaction, unless an event delivery to it succeeded
   * since `since` (test deliveries and manual retries are not part of the schedule and do not
   * count: only `succeeded_at`, which a scheduled success sets). True when
   * this call disabled it.
   */
  async disableUnlessDeliveredSince(
    em: EntityManager,
    endpointId: string,
    since: Date,
  ): Promise<boolean> {
    const [rows] = await em.query(
      `UPDATE webhook_endpoints SET is_active = false, disabled_at = now()
       WHERE id = $1 AND is_active AND NOT EXISTS (
         SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND succeeded_at >= $2)
       RETURNING id`,
      [endpointId, since],
    );
    return rows.length > 0;
  }
}

/**
 * The ids of the endpoints that hear the outbox row `event` (an alias): active, of its account
 * and mode, subscribed to its name, and created before it committed. One whose creation snapshot
 * saw the event committed never hears of it (older events are recover's); rows from before
 * snapshots were kept (NULL) always hear. Fan-out reads it beside the events
 * (DispatchStore.eventsToFanOut).
 */
export const subscribersSql = (event: string) => `ARRAY(SELECT e.id FROM webhook_endpoints e
    WHERE e.account_id = ${event}.account_id AND e.livemode = ${event}.livemode AND e.is_active
      AND (cardinality(e.events) = 0 OR ${event}.event = ANY(e.events))
      AND (${event}.xid IS NULL OR e.created_snapshot IS NULL
           OR NOT pg_visible_in_snapshot(${event}.xid, e.created_snapshot)))`;
