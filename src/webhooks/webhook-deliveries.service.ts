import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { NotFoundError, ValidationError } from '../common/errors/domain-error';
import { Paginated } from '../common/pagination/paginated';
import type { AllConfig } from '../config';
import { deliveryPayload, TEST_EVENT } from './delivery-payload';
import type { ListDeliveriesQueryDto } from './dto/list-deliveries.query.dto';
import { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { EndpointOwner, WebhookEndpointsService } from './webhook-endpoints.service';
import { liveSecrets } from './webhook-secrets';
import { AttemptResult, OutgoingDelivery, WebhookSender } from './webhook-sender';

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

export interface DeliveryAttempt {
  attemptedAt: Date;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  manual: boolean;
}

export interface RedeliveryRequest {
  deliveryId: string;
  manual: boolean;
  status: DeliveryStatus;
  attempts: number;
}

/** Retry and recover need the endpoint switched on: while it is off nothing is delivered. */
function assertActive(endpoint: WebhookEndpoint): void {
  if (!endpoint.isActive) {
    throw ValidationError.field(
      'isActive',
      'The endpoint is disabled; re-enable it first (PATCH isActive: true).',
    );
  }
}

export interface FailureOutcome {
  /** no further attempt: the schedule is used up or the endpoint is paused or disabled */
  final: boolean;
  retryDelayMs?: number;
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
  private readonly eventRetentionMs: number;

  constructor(
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    private readonly dataSource: DataSource,
    private readonly endpoints: WebhookEndpointsService,
    private readonly sender: WebhookSender,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retryDelaysMs = config.get('webhooks.retryDelaysMs', { infer: true });
    this.eventRetentionMs = config.get('events.eventRetentionMs', { infer: true });
  }

  get maxAttempts(): number {
    return this.retryDelaysMs.length + 1;
  }

  async history(
    owner: EndpointOwner,
    endpointId: string,
    query: ListDeliveriesQueryDto,
  ): Promise<Paginated<WebhookDelivery>> {
    await this.endpoints.get(owner, endpointId);
    const { page, limit, status, event } = query;
    const [items, total] = await this.deliveries.findAndCount({
      where: { endpointId, ...(status && { status }), ...(event && { event }) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return new Paginated(items, page, limit, total);
  }

  /** One delivery of the endpoint with its attempt log, oldest attempt first. */
  async detail(
    owner: EndpointOwner,
    endpointId: string,
    deliveryId: string,
  ): Promise<{ delivery: WebhookDelivery; attempts: DeliveryAttempt[] }> {
    await this.endpoints.get(owner, endpointId);
    const delivery = await this.deliveries.findOneBy({ id: deliveryId, endpointId });
    if (!delivery) throw new NotFoundError('Webhook delivery');
    const attempts: DeliveryAttempt[] = await this.dataSource.query(
      `SELECT attempted_at AS "attemptedAt", response_status AS "responseStatus", error,
              duration_ms AS "durationMs", manual
       FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id`,
      [deliveryId],
    );
    return { delivery, attempts };
  }

  /**
   * Manual retry: asks the worker for one attempt now, outside the schedule, in any status. The
   * request row commits here and the worker queues it, so it survives Redis being down.
   */
  async requestRetry(
    owner: EndpointOwner,
    endpointId: string,
    deliveryId: string,
  ): Promise<WebhookDelivery> {
    assertActive(await this.endpoints.get(owner, endpointId));
    const requested = await this.dataSource.query(
      `INSERT INTO webhook_redelivery_requests (delivery_id, manual)
       SELECT id, true FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2
       ON CONFLICT (delivery_id) DO UPDATE SET manual = true
       RETURNING delivery_id`,
      [deliveryId, endpointId],
    );
    if (requested.length === 0) throw new NotFoundError('Webhook delivery');
    return this.deliveries.findOneByOrFail({ id: deliveryId });
  }

  /**
   * Recover: every event since `since` (not before the endpoint existed) that the endpoint
   * subscribes to and has no succeeded or pending delivery to it is delivered again on the normal
   * schedule: a failed delivery starts over (same deliveryId and body), an event that never got
   * one (the endpoint was disabled) gets one. Overlapping calls queue each delivery once: the
   * reset only takes rows still failed (a concurrent call's reset makes it wait, then skip), and
   * the insert yields to the (endpoint, event) unique key. Returns how many were queued.
   */
  async recover(owner: EndpointOwner, endpointId: string, sinceIso: string): Promise<number> {
    const endpoint = await this.endpoints.get(owner, endpointId);
    assertActive(endpoint);
    const since = this.recoverableSince(sinceIso);
    const from = since > endpoint.createdAt ? since : endpoint.createdAt;
    return this.dataSource.transaction(async (em) => {
      const due: {
        id: string;
        event: string;
        data: unknown;
        createdAt: Date;
        deliveryId: string | null;
      }[] = await em.query(
        `SELECT o.id, o.event, o.data, o.created_at AS "createdAt", d.id AS "deliveryId"
           FROM outbox_events o
           LEFT JOIN webhook_deliveries d ON d.endpoint_id = $2 AND d.event_id = o.id
           WHERE o.account_id = $1 AND o.livemode = $5 AND o.created_at >= $3
             AND (cardinality($4::text[]) = 0 OR o.event = ANY($4))
             AND (d.id IS NULL OR d.status = 'failed')`,
        [endpoint.accountId, endpointId, from, endpoint.events, endpoint.livemode],
      );
      const reset: { id: string }[] = await em
        .query(
          // The schedule starts over, and so does the auto-disable judgement (first_attempt_at).
          `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = now(),
             first_attempt_at = NULL
           WHERE id = ANY($1) AND status = 'failed' RETURNING id`,
          [due.flatMap((row) => (row.deliveryId ? [row.deliveryId] : []))],
        )
        .then(([rows]: [{ id: string }[]]) => rows);
      const fresh = due
        .filter((row) => !row.deliveryId)
        .map((row) => {
          const id = randomUUID();
          const payload = deliveryPayload({
            event: row.event,
            eventId: row.id,
            deliveryId: id,
            timestamp: row.createdAt.toISOString(),
            data: row.data,
          });
          return { id, eventId: row.id, event: row.event, payload };
        });
      const inserted: { id: string }[] = await em.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event, payload, next_attempt_at)
         SELECT x.id, $2, x."eventId", x.event, x.payload, now()
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, "eventId" uuid, event text, payload text)
         ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`,
        [JSON.stringify(fresh), endpointId],
      );
      const queued = [...reset, ...inserted].map((row) => row.id);
      await em.query(
        `INSERT INTO webhook_redelivery_requests (delivery_id, manual)
         SELECT unnest($1::uuid[]), false ON CONFLICT (delivery_id) DO NOTHING`,
        [queued],
      );
      return queued.length;
    });
  }

  /** `since` names a moment the events feed still holds, and not one in the future. */
  private recoverableSince(iso: string): Date {
    const since = new Date(iso);
    const now = Date.now();
    if (since.getTime() > now)
      throw ValidationError.field('since', 'since must not be in the future.');
    if (since.getTime() < now - this.eventRetentionMs) {
      throw ValidationError.field(
        'since',
        'since lies beyond the event retention; events that old are no longer kept.',
      );
    }
    return since;
  }

  /** A manual retry's attempt: logged and shown, but neither the schedule nor the failure count moves. */
  async recordManualAttempt(target: DeliveryTarget, result: AttemptResult): Promise<void> {
    await this.dataSource.query(
      `WITH tried AS (
         UPDATE webhook_deliveries SET last_attempt_at = $2, last_response_status = $3,
           last_error = $4, response_body_excerpt = $5,
           status = CASE WHEN $6 THEN 'succeeded' ELSE status END,
           next_attempt_at = CASE WHEN $6 THEN NULL ELSE next_attempt_at END
         WHERE id = $1 RETURNING id)
       INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, response_status, error, duration_ms, manual)
       SELECT id, $2, $3, $4, $7, true FROM tried`,
      [
        target.deliveryId,
        result.at,
        result.responseStatus,
        result.error,
        result.responseBodyExcerpt,
        result.ok,
        result.durationMs,
      ],
    );
  }

  /** The worker's side of retry and recover: a batch of requests, locked until settled. */
  claimRedeliveries(em: EntityManager, limit: number): Promise<RedeliveryRequest[]> {
    return em.query(
      `SELECT r.delivery_id AS "deliveryId", r.manual, d.status, d.attempts
       FROM webhook_redelivery_requests r JOIN webhook_deliveries d ON d.id = r.delivery_id
       ORDER BY r.requested_at LIMIT $1 FOR UPDATE OF r SKIP LOCKED`,
      [limit],
    );
  }

  async settleRedeliveries(em: EntityManager, deliveryIds: string[]): Promise<void> {
    await em.query(`DELETE FROM webhook_redelivery_requests WHERE delivery_id = ANY($1)`, [
      deliveryIds,
    ]);
  }

  /**
   * Deletes one batch of ended deliveries older than the cut-off (their attempt logs go with
   * them); returns how many. SKIP LOCKED and the pending-request check keep it from waiting on
   * any writer: rows in use are left for a later batch.
   */
  async purgeBatch(olderThanMs: number, batchSize: number): Promise<number> {
    const [, count] = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM webhook_deliveries d
         WHERE created_at < now() - $1 * interval '1 millisecond' AND status <> 'pending'
           AND NOT EXISTS (SELECT 1 FROM webhook_redelivery_requests r WHERE r.delivery_id = d.id)
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       DELETE FROM webhook_deliveries d USING due WHERE d.id = due.id`,
      [olderThanMs, batchSize],
    );
    return count as number;
  }

  /**
   * One signed `webhook.test` delivery, made now and recorded in the history. It is never
   * retried and does not touch the failure count: it exists to debug a receiver.
   */
  async sendTest(owner: EndpointOwner, endpointId: string): Promise<WebhookDelivery> {
    const endpoint = await this.endpoints.get(owner, endpointId);
    const id = randomUUID();
    const payload = deliveryPayload({
      event: TEST_EVENT,
      eventId: null,
      deliveryId: id,
      timestamp: new Date().toISOString(),
      data: { id: endpoint.id, externalId: null, livemode: endpoint.livemode },
    });
    const result = await this.sender.send({
      url: endpoint.url,
      secrets: liveSecrets(endpoint),
      event: TEST_EVENT,
      deliveryId: id,
      payload,
    });
    const saved = await this.deliveries.save(
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
    await this.logAttempt(this.dataSource.manager, id, result, false);
    return saved;
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
        const payload = deliveryPayload({
          event: event.event,
          eventId,
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

  /**
   * undefined when there is nothing left to attempt: endpoint deleted, or delivery already ended
   * (a manual retry attempts a delivery in any status).
   */
  async loadTarget(deliveryId: string, anyStatus = false): Promise<DeliveryTarget | undefined> {
    const [row] = await this.dataSource.query<
      (OutgoingDelivery & { endpointId: string; endpointActive: boolean })[]
    >(
      `SELECT d.id AS "deliveryId", d.event, d.payload, e.id AS "endpointId", e.url,
              array_remove(ARRAY[e.secret, CASE WHEN e.previous_secret_expires_at > now()
                THEN e.previous_secret END], NULL) AS secrets,
              e.is_active AS "endpointActive"
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = $1 AND ($2 OR d.status = 'pending')`,
      [deliveryId, anyStatus],
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
         WHERE id = $1 RETURNING id, endpoint_id),
       logged AS (
         INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, response_status, duration_ms)
         SELECT id, $2, $3, $5 FROM delivered)
       UPDATE webhook_endpoints e SET consecutive_failures = 0
       FROM delivered WHERE e.id = delivered.endpoint_id AND e.consecutive_failures <> 0`,
      [
        target.deliveryId,
        result.at,
        result.responseStatus,
        result.responseBodyExcerpt,
        result.durationMs,
      ],
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
      await this.logAttempt(em, target.deliveryId, result, false);
      if (delivery.status === 'pending') {
        return { final: false, retryDelayMs: this.retryDelaysMs[delivery.attempts - 1] };
      }
      if (endpointActive && delivery.attempts >= this.maxAttempts) {
        await this.disableUnlessDeliveredSince(em, target.endpointId, delivery.first_attempt_at);
      }
      return { final: true };
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
  private async disableUnlessDeliveredSince(
    em: EntityManager,
    endpointId: string,
    since: Date,
  ): Promise<void> {
    await em.query(
      `WITH disabled AS (
         UPDATE webhook_endpoints SET is_active = false, disabled_at = now()
         WHERE id = $1 AND is_active AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries
           WHERE endpoint_id = $1 AND status = 'succeeded' AND event_id IS NOT NULL
             AND last_attempt_at >= $2)
         RETURNING id)
       UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
         last_error = COALESCE(last_error || '; ', '') || $3
       WHERE endpoint_id IN (SELECT id FROM disabled) AND status = 'pending'`,
      [endpointId, since, DISABLED_ERROR],
    );
  }

  private async logAttempt(
    em: EntityManager,
    deliveryId: string,
    result: AttemptResult,
    manual: boolean,
  ): Promise<void> {
    await em.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, response_status, error, duration_ms, manual)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [deliveryId, result.at, result.responseStatus, result.error, result.durationMs, manual],
    );
  }
}
