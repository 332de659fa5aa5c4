import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { PageQueryDto } from '../common/pagination/page-query.dto';
import { Paginated } from '../common/pagination/paginated';
import type { AllConfig } from '../config';
import { WebhookDelivery } from './webhook-delivery.entity';
import { EndpointOwner, WebhookEndpointsService } from './webhook-endpoints.service';
import { AttemptResult, OutgoingDelivery, WebhookSender } from './webhook-sender';

export const TEST_EVENT = 'webhook.test';

/** A delivery still owed, with the attempts it has already had. */
export interface PendingDelivery {
  id: string;
  attempts: number;
}

/** What the delivery worker needs for one attempt. */
export interface DeliveryTarget extends OutgoingDelivery {
  endpointId: string;
  endpointActive: boolean;
}

export interface FailureOutcome {
  /** no further attempt: the schedule is used up or the endpoint is paused or disabled */
  final: boolean;
  retryDelayMs?: number;
  /** this failure was the one that disabled the endpoint */
  endpointDisabled?: boolean;
}

const DISABLED_ERROR = 'Endpoint disabled: a delivery failed all of its attempts';

/**
 * The delivery records: created by fan-out, updated by each attempt, listed as history.
 * Counters change in single guarded UPDATEs, never read-modify-write, so concurrent attempts
 * against one endpoint count every failure exactly once.
 */
@Injectable()
export class WebhookDeliveriesService {
  private readonly retryDelaysMs: number[];

  constructor(
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    private readonly dataSource: DataSource,
    private readonly endpoints: WebhookEndpointsService,
    private readonly sender: WebhookSender,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retryDelaysMs = config.get('webhooks.retryDelaysMs', { infer: true });
  }

  get maxAttempts(): number {
    return this.retryDelaysMs.length + 1;
  }

  async history(
    owner: EndpointOwner,
    endpointId: string,
    page: PageQueryDto,
  ): Promise<Paginated<WebhookDelivery>> {
    await this.endpoints.get(owner, endpointId);
    const [items, total] = await this.deliveries.findAndCount({
      where: { endpointId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page.page - 1) * page.limit,
      take: page.limit,
    });
    return new Paginated(items, page.page, page.limit, total);
  }

  /**
   * One signed `webhook.test` delivery, made now and recorded in the history. It is never
   * retried and does not touch the failure count: it exists to debug a receiver.
   */
  async sendTest(owner: EndpointOwner, endpointId: string): Promise<WebhookDelivery> {
    const endpoint = await this.endpoints.get(owner, endpointId);
    const id = randomUUID();
    const payload = JSON.stringify({
      event: TEST_EVENT,
      deliveryId: id,
      timestamp: new Date().toISOString(),
      data: { id: endpoint.id, externalId: null, livemode: endpoint.livemode },
    });
    const result = await this.sender.send({
      url: endpoint.url,
      secret: endpoint.secret,
      event: TEST_EVENT,
      deliveryId: id,
      payload,
    });
    return this.deliveries.save(
      this.deliveries.create({
        id,
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
      }),
    );
  }

  /**
   * Fan-out: one delivery per active endpoint of the event's account and mode (its data's
   * `livemode`) subscribed to the event, its body
   * fixed now. Idempotent: a repeat creates nothing new and returns the deliveries still pending,
   * so a retried fan-out re-enqueues (deduplicated by job id) what a failed one may have missed.
   */
  async createForEvent(eventId: string): Promise<PendingDelivery[]> {
    const [event] = await this.dataSource.query<
      { account_id: string; event: string; data: { livemode: boolean }; created_at: Date }[]
    >('SELECT account_id, event, data, created_at FROM outbox_events WHERE id = $1', [eventId]);
    if (!event) return [];
    const endpoints = await this.dataSource.query<{ id: string }[]>(
      `SELECT id FROM webhook_endpoints
       WHERE account_id = $1 AND livemode = $3 AND is_active
         AND (cardinality(events) = 0 OR $2 = ANY(events))`,
      [event.account_id, event.event, event.data.livemode],
    );
    if (endpoints.length > 0) {
      const rows = endpoints.map(({ id: endpointId }) => {
        const id = randomUUID();
        const payload = JSON.stringify({
          event: event.event,
          deliveryId: id,
          timestamp: event.created_at.toISOString(),
          data: event.data,
        });
        return { id, endpointId, payload };
      });
      await this.dataSource.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event, payload, next_attempt_at)
         SELECT x.id, x."endpointId", $2, $3, x.payload, now()
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, "endpointId" uuid, payload text)
         ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
        [JSON.stringify(rows), eventId, event.event],
      );
    }
    await this.dataSource.query(
      'UPDATE outbox_events SET fanned_out_at = now() WHERE id = $1 AND fanned_out_at IS NULL',
      [eventId],
    );
    return this.dataSource.query(
      `SELECT id, attempts FROM webhook_deliveries WHERE event_id = $1 AND status = 'pending'`,
      [eventId],
    );
  }

  /** undefined when there is nothing left to attempt: endpoint deleted, or delivery already ended. */
  async loadTarget(deliveryId: string): Promise<DeliveryTarget | undefined> {
    const [row] = await this.dataSource.query<
      (OutgoingDelivery & { endpointId: string; endpointActive: boolean })[]
    >(
      `SELECT d.id AS "deliveryId", d.event, d.payload, e.id AS "endpointId",
              e.url, e.secret, e.is_active AS "endpointActive"
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = $1 AND d.status = 'pending'`,
      [deliveryId],
    );
    return row;
  }

  /**
   * A 2xx: the delivery is done and the endpoint's failure streak is over. One statement, so it
   * is atomic without a transaction's extra round trips. The endpoint row is written only when
   * its streak was on, so steady successes do not queue up on it.
   */
  async recordSuccess(target: DeliveryTarget, result: AttemptResult): Promise<void> {
    // Also when an auto-disable just ended it: the receiver did get it, the record says so.
    await this.dataSource.query(
      `WITH delivered AS (
         UPDATE webhook_deliveries SET status = 'succeeded', attempts = attempts + 1,
           first_attempt_at = COALESCE(first_attempt_at, $2), last_attempt_at = $2, next_attempt_at = NULL, last_response_status = $3,
           last_error = NULL, response_body_excerpt = $4
         WHERE id = $1 RETURNING endpoint_id)
       UPDATE webhook_endpoints e SET consecutive_failures = 0
       FROM delivered WHERE e.id = delivered.endpoint_id AND e.consecutive_failures <> 0`,
      [target.deliveryId, result.at, result.responseStatus, result.responseBodyExcerpt],
    );
  }

  /**
   * A failed attempt: adds to the endpoint's failure streak (a health signal, reset by any
   * success), and schedules the next attempt or ends the delivery as failed. Single attempts
   * never disable an endpoint, however many fail at once: only a delivery that used up its whole
   * schedule does, and only with no successful delivery to the endpoint since its first attempt.
   */
  async recordFailure(target: DeliveryTarget, result: AttemptResult): Promise<FailureOutcome> {
    return this.dataSource.transaction(async (em) => {
      // Locks the endpoint row: concurrent failures against it take turns, each counted once.
      const [[counted]] = await em.query(
        `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1
         WHERE id = $1 AND is_active RETURNING id`,
        [target.endpointId],
      );
      // No row: someone paused or it was disabled meanwhile; either way nothing more is sent.
      const endpointActive = Boolean(counted);
      const [[delivery]] = await em.query<
        [{ status: string; attempts: number; first_attempt_at: Date }[]]
      >(
        `UPDATE webhook_deliveries SET attempts = attempts + 1,
           first_attempt_at = COALESCE(first_attempt_at, $2), last_attempt_at = $2,
           last_response_status = $3, last_error = $4, response_body_excerpt = $5,
           status = CASE WHEN NOT $6 OR attempts + 1 >= $7 THEN 'failed' ELSE 'pending' END,
           next_attempt_at = CASE WHEN NOT $6 OR attempts + 1 >= $7 THEN NULL
             ELSE $2::timestamptz + ($8::float8[])[attempts + 1] * interval '1 millisecond' END
         WHERE id = $1 RETURNING status, attempts, first_attempt_at`,
        [
          target.deliveryId,
          result.at,
          result.responseStatus,
          result.error,
          result.responseBodyExcerpt,
          endpointActive,
          this.maxAttempts,
          this.retryDelaysMs,
        ],
      );
      if (!delivery) return { final: true };
      if (delivery.status === 'pending') {
        return { final: false, retryDelayMs: this.retryDelaysMs[delivery.attempts - 1] };
      }
      const endpointDisabled =
        endpointActive &&
        delivery.attempts >= this.maxAttempts &&
        (await this.disableUnlessDeliveredSince(em, target.endpointId, delivery.first_attempt_at));
      return { final: true, endpointDisabled };
    });
  }

  /** A job for a paused or disabled endpoint: nothing is sent, the delivery ends. */
  async endWithoutAttempt(deliveryId: string, reason: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
         last_error = COALESCE(last_error || '; ', '') || $2
       WHERE id = $1 AND status = 'pending'`,
      [deliveryId, reason],
    );
  }

  /** Deliveries owed for a while with no attempt made: their job may have been lost. */
  /** Events relayed more than `graceMs` ago whose fan-out never ran: their job was lost. */
  async unfannedEvents(graceMs: number, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM outbox_events
       WHERE fanned_out_at IS NULL AND relayed_at < now() - $1 * interval '1 millisecond'
       ORDER BY relayed_at LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => row.id);
  }

  overdue(graceMs: number, limit: number): Promise<PendingDelivery[]> {
    return this.dataSource.query(
      `SELECT id, attempts FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at < now() - $1 * interval '1 millisecond'
       ORDER BY next_attempt_at LIMIT $2`,
      [graceMs, limit],
    );
  }

  /**
   * Disables the endpoint and ends its pending deliveries as failed, unless an event delivery to
   * it succeeded since `since` (test deliveries prove nothing about the schedule and do not count).
   */
  /** True when this call disabled the endpoint. */
  private async disableUnlessDeliveredSince(
    em: EntityManager,
    endpointId: string,
    since: Date,
  ): Promise<boolean> {
    const [{ disabled }] = await em.query<{ disabled: boolean }[]>(
      `WITH disabled AS (
         UPDATE webhook_endpoints SET is_active = false, disabled_at = now()
         WHERE id = $1 AND is_active AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries
           WHERE endpoint_id = $1 AND status = 'succeeded' AND event_id IS NOT NULL
             AND last_attempt_at >= $2)
         RETURNING id),
       ended AS (
         UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
           last_error = COALESCE(last_error || '; ', '') || $3
         WHERE endpoint_id IN (SELECT id FROM disabled) AND status = 'pending')
       SELECT EXISTS (SELECT 1 FROM disabled) AS disabled`,
      [endpointId, since, DISABLED_ERROR],
    );
    return disabled;
  }
}
