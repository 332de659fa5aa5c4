import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AuditOrigin } from '../../audit/audit-entry';
import { AuditService } from '../../audit/audit.service';
import { NotFoundError, ValidationError } from '../../common/errors/domain-error';
import { CursorPage } from '../../common/pagination/cursor-page';
import { Paginated } from '../../common/pagination/paginated';
import type { AllConfig } from '../../platform/config';
import { Every } from '../../platform/scheduling/every.decorator';
import { inBatches } from '../../platform/scheduling/in-batches';
import { deliveryPayload, newEventDelivery, TEST_EVENT } from './delivery-payload';
import type { ListDeliveriesQueryDto } from './dto/list-deliveries.query.dto';
import type { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
import { DeliveryAttempt, WebhookDeliveryStore } from './webhook-delivery.store';
import type { WebhookEndpoint } from '../endpoints/webhook-endpoint.entity';
import type { OwnerScope } from '../../auth/scope';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { liveSecrets } from '../endpoints/webhook-secrets';
import { WebhookSender } from '../transport/webhook-sender';

/** Retry and recover need the endpoint switched on: while it is off nothing is delivered. */
function assertActive(endpoint: WebhookEndpoint): void {
  if (!endpoint.isActive) {
    throw ValidationError.field(
      'isActive',
      'The endpoint is disabled; re-enable it first (PATCH isActive: true).',
    );
  }
}

/** Recover's `since`: within the events feed's retention of `now`, not in the future (both inclusive). */
export function recoverableSince(iso: string, eventRetentionMs: number, now = Date.now()): Date {
  const since = new Date(iso);
  if (since.getTime() > now)
    throw ValidationError.field('since', 'since must not be in the future.');
  if (since.getTime() < now - eventRetentionMs) {
    throw ValidationError.field(
      'since',
      'since lies beyond the event retention; events that old are no longer kept.',
    );
  }
  return since;
}

/** Retry and recover only write requests for the worker, so they work with Redis down. */
@Injectable()
export class WebhookDeliveriesService {
  private readonly eventRetentionMs: number;
  private readonly deliveryRetentionMs: number;

  constructor(
    private readonly store: WebhookDeliveryStore,
    private readonly dataSource: DataSource,
    private readonly endpoints: WebhookEndpointsService,
    private readonly sender: WebhookSender,
    private readonly audit: AuditService,
    config: ConfigService<AllConfig, true>,
  ) {
    this.eventRetentionMs = config.get('events.eventRetentionMs', { infer: true });
    this.deliveryRetentionMs = config.get('events.deliveryRetentionMs', { infer: true });
  }

  /** Ended deliveries past DELIVERY_RETENTION go, with their attempt logs (the worker's job). */
  @Every('delivery-purge', (config) => config.get('events.purgeEveryMs', { infer: true }))
  purgeOld(stopping?: () => boolean): Promise<number> {
    return inBatches((n) => this.store.purgeBatch(this.deliveryRetentionMs, n), stopping);
  }

  async history(
    owner: OwnerScope,
    endpointId: string,
    query: ListDeliveriesQueryDto,
  ): Promise<Paginated<WebhookDelivery>> {
    await this.endpoints.get(owner, endpointId);
    const [items, total] = await this.store.page(endpointId, query);
    return new Paginated(items, query.page, query.limit, total);
  }

  /**
   * The dashboard's history page of an endpoint its caller already read in the owner's scope:
   * up to `limit` deliveries older than the delivery `before`, newest first (a cursor: no count of
   * a million rows per page); `nextCursor` continues it.
   */
  async historyBefore(
    endpoint: WebhookEndpoint,
    filter: { limit: number; status?: DeliveryStatus; event?: string; before?: string },
  ): Promise<CursorPage<WebhookDelivery>> {
    const rows = await this.store.pageBefore(endpoint.id, filter);
    const items = rows.slice(0, filter.limit);
    const hasMore = rows.length > filter.limit;
    return new CursorPage(items, {
      limit: filter.limit,
      hasMore,
      nextCursor: hasMore ? items[items.length - 1].id : null,
    });
  }

  /** One delivery of the endpoint with its attempt log, oldest attempt first. */
  async detail(
    owner: OwnerScope,
    endpointId: string,
    deliveryId: string,
  ): Promise<{ delivery: WebhookDelivery; attempts: DeliveryAttempt[] }> {
    await this.endpoints.get(owner, endpointId);
    const delivery = await this.store.findOfEndpoint(endpointId, deliveryId);
    if (!delivery) throw new NotFoundError('Webhook delivery');
    return { delivery, attempts: await this.store.attemptLog(deliveryId) };
  }

  /**
   * A signed `webhook.test`, recorded; never retried, never touches the failure count. With an
   * origin (the dashboard) the record and its `endpoint.test_sent` audit row commit together.
   */
  async sendTest(
    owner: OwnerScope,
    endpointId: string,
    origin: AuditOrigin,
  ): Promise<WebhookDelivery> {
    const endpoint = await this.endpoints.get(owner, endpointId);
    const id = randomUUID();
    // The record dates from the request, before its attempt, as a scheduled delivery's does.
    const createdAt = new Date();
    const payload = deliveryPayload({
      event: TEST_EVENT,
      eventId: null,
      deliveryId: id,
      timestamp: createdAt.toISOString(),
      data: { id: endpoint.id, externalId: null, livemode: endpoint.livemode },
    });
    const result = await this.sender.send({
      url: endpoint.url,
      secrets: liveSecrets(endpoint),
      event: TEST_EVENT,
      deliveryId: id,
      payload,
    });
    const record = {
      id,
      createdAt,
      endpointId,
      eventId: null,
      event: TEST_EVENT,
      payload,
      status: result.ok ? 'succeeded' : 'failed',
      attempts: 1,
      firstAttemptAt: result.at,
      lastAttemptAt: result.at,
      nextAttemptAt: null,
      lastResponseStatus: result.responseStatus,
      lastError: result.error,
      responseBodyExcerpt: result.responseBodyExcerpt,
    } satisfies Partial<WebhookDelivery>;
    return this.dataSource.transaction(async (em) => {
      const saved = await this.store.saveTest(record, result, em);
      await this.audit.record(em, {
        ...origin,
        accountId: owner.accountId,
        action: 'endpoint.test_sent',
        target: endpointId,
        details: { deliveryId: id, ok: result.ok, livemode: owner.livemode },
      });
      return saved;
    });
  }

  /** Manual retry: asks the worker for one attempt now, outside the schedule, in any status. */
  async requestRetry(
    owner: OwnerScope,
    endpointId: string,
    deliveryId: string,
    origin: AuditOrigin,
  ): Promise<WebhookDelivery> {
    assertActive(await this.endpoints.get(owner, endpointId));
    await this.dataSource.transaction(async (em) => {
      if (!(await this.store.requestManualRetry(endpointId, deliveryId, em))) {
        throw new NotFoundError('Webhook delivery');
      }
      await this.audit.record(em, {
        ...origin,
        accountId: owner.accountId,
        action: 'delivery.retried',
        target: deliveryId,
        details: { endpointId, livemode: owner.livemode },
      });
    });
    return (await this.store.findOfEndpoint(endpointId, deliveryId))!;
  }

  /**
   * Redelivers every subscribed event since `since` without a succeeded or pending delivery;
   * overlapping calls queue each once (restart takes only failed rows, insert yields to the key).
   */
  async recover(
    owner: OwnerScope,
    endpointId: string,
    sinceIso: string,
    origin: AuditOrigin,
  ): Promise<number> {
    const endpoint = await this.endpoints.get(owner, endpointId);
    assertActive(endpoint);
    const since = recoverableSince(sinceIso, this.eventRetentionMs);
    const from = since > endpoint.createdAt ? since : endpoint.createdAt;
    return this.dataSource.transaction(async (em) => {
      const owed = await this.store.owedEvents(em, endpoint, from);
      const restarted = await this.store.restartFailed(
        em,
        owed.flatMap((event) => (event.deliveryId ? [event.deliveryId] : [])),
      );
      const created = await this.store.insertMany(
        em,
        owed
          .filter((event) => !event.deliveryId)
          .map((event) => newEventDelivery(endpointId, event)),
      );
      const queued = [...restarted, ...created];
      await this.store.requestRedeliveries(em, queued);
      await this.audit.record(em, {
        ...origin,
        accountId: owner.accountId,
        action: 'deliveries.recovered',
        target: endpointId,
        details: { since: since.toISOString(), queued: queued.length, livemode: owner.livemode },
      });
      return queued.length;
    });
  }
}
