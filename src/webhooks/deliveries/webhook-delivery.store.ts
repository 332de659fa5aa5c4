import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { isForeignKeyViolation } from '../../common/db/pg-errors';
import { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
import { EndpointSecrets, liveSecrets } from '../endpoints/webhook-secrets';
import type { OutgoingDelivery } from '../transport/webhook-request';
import type { AttemptResult } from '../transport/webhook-sender';

/** Which deliveries of an endpoint a history page holds. */
export interface DeliveryFilter {
  page: number;
  limit: number;
  status?: DeliveryStatus;
  event?: string;
}

/** A delivery still owed, with the attempts it has already had. */
export interface PendingDelivery {
  id: string;
  attempts: number;
}

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
  /** the start of the receiver's answer (none before the AttemptResponseExcerpt migration) */
  responseExcerpt: string | null;
}

export interface RedeliveryRequest {
  deliveryId: string;
  manual: boolean;
  status: DeliveryStatus;
  attempts: number;
}

/** A delivery to create, its body already fixed. */
export interface NewDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  event: string;
  payload: string;
}

/** An event the endpoint is owed: no delivery yet, or a failed one (`deliveryId`). */
export interface OwedEvent {
  id: string;
  event: string;
  data: unknown;
  createdAt: Date;
  deliveryId: string | null;
}

/** PostgreSQL's name for the request's reference to its delivery (declared inline). */
const REDELIVERY_DELIVERY_FK = 'webhook_redelivery_requests_delivery_id_fkey';

const DISABLED_ERROR = 'Endpoint disabled: a delivery failed all of its attempts';

/**
 * A TargetRow's columns, from `webhook_deliveries d` joined with `webhook_endpoints e`. Every
 * stored secret is read: which of them still sign is liveSecrets' decision alone.
 */
const TARGET_COLUMNS = `d.id AS "deliveryId", d.event, d.payload, e.id AS "endpointId", e.url,
  e.secret, e.previous_secrets AS "previousSecrets", e.is_active AS "endpointActive"`;

type TargetRow = Omit<DeliveryTarget, 'secrets'> & EndpointSecrets;

function toTarget({ secret, previousSecrets, ...target }: TargetRow): DeliveryTarget {
  return { ...target, secrets: liveSecrets({ secret, previousSecrets }) };
}

/** Counters change in single guarded UPDATEs, never read-modify-write: each failure counts once. */
/** Where a sweep's page ended: the row's id and its time, as PostgreSQL's text. */
export interface SweepCursor {
  id: string;
  at: string;
}

@Injectable()
export class WebhookDeliveryStore {
  constructor(
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    private readonly dataSource: DataSource,
  ) {}

  /** An endpoint's deliveries, newest first, optionally of one status or event. */
  page(endpointId: string, filter: DeliveryFilter): Promise<[WebhookDelivery[], number]> {
    const { page, limit, status, event } = filter;
    return this.deliveries.findAndCount({
      where: { endpointId, ...(status && { status }), ...(event && { event }) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    });
  }

  /**
   * Up to `limit` + 1 of an endpoint's deliveries, newest first, older than the delivery `before`
   * (cursor paging: one range of the history index, no count; the extra row says there is more).
   * A `before` that is not one of the endpoint's deliveries yields nothing.
   */
  pageBefore(
    endpointId: string,
    filter: { limit: number; status?: DeliveryStatus; event?: string; before?: string },
  ): Promise<WebhookDelivery[]> {
    const { limit, status, event, before } = filter;
    const q = this.deliveries
      .createQueryBuilder('d')
      .where('d.endpointId = :endpointId', { endpointId });
    if (status) q.andWhere('d.status = :status', { status });
    if (event) q.andWhere('d.event = :event', { event });
    if (before)
      q.andWhere(
        `(d.createdAt, d.id) < (SELECT c.created_at, c.id FROM webhook_deliveries c
           WHERE c.id = :before AND c.endpoint_id = :endpointId)`,
        { before },
      );
    return q
      .orderBy('d.createdAt', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .limit(limit + 1)
      .getMany();
  }

  findOfEndpoint(endpointId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    return this.deliveries.findOneBy({ id: deliveryId, endpointId });
  }

  attemptLog(deliveryId: string): Promise<DeliveryAttempt[]> {
    return this.dataSource.query(
      `SELECT attempted_at AS "attemptedAt", response_status AS "responseStatus", error,
              duration_ms AS "durationMs", manual, response_excerpt AS "responseExcerpt"
       FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id`,
      [deliveryId],
    );
  }

  async saveTest(
    delivery: Partial<WebhookDelivery>,
    result: AttemptResult,
    em: EntityManager = this.dataSource.manager,
  ): Promise<WebhookDelivery> {
    const saved = await em.save(WebhookDelivery, em.create(WebhookDelivery, delivery));
    await this.logAttempt(em, saved.id, result, false);
    return saved;
  }

  /** Creates deliveries; one per endpoint and event at most (a repeat creates nothing). Returns the ids created. */
  async insertMany(em: EntityManager, rows: NewDelivery[]): Promise<string[]> {
    if (rows.length === 0) return [];
    const inserted: { id: string }[] = await em.query(insertDeliveriesSql('$1'), [
      JSON.stringify(rows),
    ]);
    return inserted.map((row) => row.id);
  }

  /** The account's events of the mode since `from` (of the given names; none = all) that the endpoint has no succeeded or pending delivery of. */
  owedEvents(
    em: EntityManager,
    endpoint: { id: string; accountId: string; livemode: boolean; events: string[] },
    from: Date,
  ): Promise<OwedEvent[]> {
    return em.query(
      `SELECT o.id, o.event, o.data, o.created_at AS "createdAt", d.id AS "deliveryId"
       FROM outbox_events o
       LEFT JOIN webhook_deliveries d ON d.endpoint_id = $2 AND d.event_id = o.id
       WHERE o.account_id = $1 AND o.livemode = $5 AND o.created_at >= $3
         AND (cardinality($4::text[]) = 0 OR o.event = ANY($4))
         AND (d.id IS NULL OR d.status = 'failed')`,
      [endpoint.accountId, endpoint.id, from, endpoint.events, endpoint.livemode],
    );
  }

  /**
   * Failed deliveries start their schedule over (and the auto-disable judgement, with
   * first_attempt_at). Only rows still failed: a concurrent restart makes this wait, then skip.
   */
  async restartFailed(em: EntityManager, deliveryIds: string[]): Promise<string[]> {
    const [rows]: [{ id: string }[]] = await em.query(
      `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = now(),
         first_attempt_at = NULL
       WHERE id = ANY($1) AND status = 'failed' RETURNING id`,
      [deliveryIds],
    );
    return rows.map((row) => row.id);
  }

  /** Asks the worker to queue these deliveries again (see RedeliveryRelay). */
  async requestRedeliveries(em: EntityManager, deliveryIds: string[]): Promise<void> {
    await em.query(
      `INSERT INTO webhook_redelivery_requests (delivery_id, manual)
       SELECT unnest($1::uuid[]), false ON CONFLICT (delivery_id) DO NOTHING`,
      [deliveryIds],
    );
  }

  /**
   * Asks the worker for one manual attempt; false when the endpoint has no such delivery, also
   * when the retention purge, holding it, deleted it while the request waited.
   */
  async requestManualRetry(
    endpointId: string,
    deliveryId: string,
    em: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    try {
      const requested = await em.query(
        `INSERT INTO webhook_redelivery_requests (delivery_id, manual)
         SELECT id, true FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2
         ON CONFLICT (delivery_id) DO UPDATE SET manual = true
         RETURNING delivery_id`,
        [deliveryId, endpointId],
      );
      return requested.length > 0;
    } catch (error) {
      if (isForeignKeyViolation(error, REDELIVERY_DELIVERY_FK)) return false;
      throw error;
    }
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

  /** undefined if nothing is left: endpoint gone or delivery ended (manual retry: any status). */
  async loadTarget(deliveryId: string, anyStatus: boolean): Promise<DeliveryTarget | undefined> {
    const [row] = await this.dataSource.query<TargetRow[]>(
      `SELECT ${TARGET_COLUMNS}
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = $1 AND ($2 OR d.status = 'pending')`,
      [deliveryId, anyStatus],
    );
    return row && toTarget(row);
  }

  /** `loadTarget` of pending deliveries, many in one statement; in the order asked. */
  async loadPendingTargets(deliveryIds: string[]): Promise<(DeliveryTarget | undefined)[]> {
    const rows = await this.dataSource.query<TargetRow[]>(
      `SELECT ${TARGET_COLUMNS}
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = ANY($1::uuid[]) AND d.status = 'pending'`,
      [deliveryIds],
    );
    const byId = new Map(rows.map((row) => [row.deliveryId, toTarget(row)]));
    return deliveryIds.map((id) => byId.get(id));
  }

  /**
   * 2xx outcomes in one statement. An endpoint row is written only when its streak was on, locked
   * in id order so batches cannot deadlock; the one endpoint write outside WebhookEndpointStore.
   */
  async recordSuccesses(
    successes: { target: DeliveryTarget; result: AttemptResult }[],
  ): Promise<void> {
    // Also when an auto-disable just ended it: the receiver did get it, the record says so.
    await this.dataSource.query(
      `WITH attempt AS (
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::text[], $5::int[])
           AS a(id, at, status, excerpt, duration_ms)),
       delivered AS (
         UPDATE webhook_deliveries d SET status = 'succeeded', attempts = d.attempts + 1,
           first_attempt_at = COALESCE(d.first_attempt_at, a.at), last_attempt_at = a.at,
           succeeded_at = CASE WHEN d.event_id IS NOT NULL THEN a.at END,
           next_attempt_at = NULL, last_response_status = a.status,
           last_error = NULL, response_body_excerpt = a.excerpt
         FROM attempt a WHERE d.id = a.id
         RETURNING d.id, d.endpoint_id, a.at, a.status, a.duration_ms, a.excerpt),
       logged AS (
         INSERT INTO webhook_delivery_attempts
           (delivery_id, attempted_at, response_status, duration_ms, response_excerpt)
         SELECT id, at, status, duration_ms, excerpt FROM delivered),
       streak_over AS (
         SELECT e.id FROM webhook_endpoints e
         WHERE e.id IN (SELECT endpoint_id FROM delivered) AND e.consecutive_failures <> 0
         ORDER BY e.id FOR UPDATE)
       UPDATE webhook_endpoints e SET consecutive_failures = 0
       FROM streak_over WHERE e.id = streak_over.id`,
      [
        successes.map((s) => s.target.deliveryId),
        successes.map((s) => s.result.at),
        successes.map((s) => s.result.responseStatus),
        successes.map((s) => s.result.responseBodyExcerpt),
        successes.map((s) => s.result.durationMs),
      ],
    );
  }

  /**
   * Logs a failed scheduled attempt and schedules the next, or fails the delivery. The next is
   * due a retry delay after now, the attempt's end (a timed-out one ended its time-out after
   * it began), as the caller queues it.
   */
  async recordFailedAttempt(
    em: EntityManager,
    target: DeliveryTarget,
    result: AttemptResult,
    schedule: { endpointActive: boolean; maxAttempts: number; retryDelaysMs: number[] },
  ): Promise<{ status: DeliveryStatus; attempts: number; first_attempt_at: Date } | undefined> {
    const [[delivery]] = await em.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1,
         first_attempt_at = COALESCE(first_attempt_at, $2), last_attempt_at = $2,
         last_response_status = $3, last_error = $4, response_body_excerpt = $5,
         status = CASE WHEN NOT $6 OR attempts + 1 >= $7 THEN 'failed' ELSE 'pending' END,
         next_attempt_at = CASE WHEN NOT $6 OR attempts + 1 >= $7 THEN NULL
           ELSE now() + ($8::float8[])[attempts + 1] * interval '1 millisecond' END
       WHERE id = $1 RETURNING status, attempts, first_attempt_at`,
      [
        target.deliveryId,
        result.at,
        result.responseStatus,
        result.error,
        result.responseBodyExcerpt,
        schedule.endpointActive,
        schedule.maxAttempts,
        schedule.retryDelaysMs,
      ],
    );
    if (delivery) await this.logAttempt(em, target.deliveryId, result, false);
    return delivery;
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
       INSERT INTO webhook_delivery_attempts
         (delivery_id, attempted_at, response_status, error, duration_ms, manual, response_excerpt)
       SELECT id, $2, $3, $4, $7, true, $5 FROM tried`,
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

  /** A job for a paused or disabled endpoint: nothing is sent, the delivery ends. */
  async endWithoutAttempt(deliveryId: string, reason: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
         last_error = COALESCE(last_error || '; ', '') || $2
       WHERE id = $1 AND status = 'pending'`,
      [deliveryId, reason],
    );
  }

  /** The pending deliveries of an endpoint just disabled, in the disabling transaction: ended as failed. */
  async endPendingOfDisabledEndpoint(em: EntityManager, endpointId: string): Promise<void> {
    await em.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
         last_error = COALESCE(last_error || '; ', '') || $2
       WHERE endpoint_id = $1 AND status = 'pending'`,
      [endpointId, DISABLED_ERROR],
    );
  }

  /**
   * Deliveries owed for a while with no attempt made (their job may have been lost), a page
   * after `after`, the last of the previous page.
   */
  overdue(
    graceMs: number,
    limit: number,
    after?: SweepCursor,
  ): Promise<(PendingDelivery & SweepCursor & { bulk: boolean })[]> {
    // The event's lane: a purged event (it outlived nothing here) counts as interactive.
    return this.dataSource.query(
      `SELECT d.id, d.attempts, d.next_attempt_at::text AS at,
         COALESCE((SELECT e.bulk FROM outbox_events e WHERE e.id = d.event_id), false) AS bulk
       FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at < now() - $1 * interval '1 millisecond'
         AND ($3::timestamptz IS NULL OR (d.next_attempt_at, d.id) > ($3::timestamptz, $4::uuid))
       ORDER BY d.next_attempt_at, d.id LIMIT $2`,
      [graceMs, limit, after?.at ?? null, after?.id ?? null],
    );
  }

  /**
   * One batch of ended deliveries (and attempt logs) past the cut-off; never waits on a writer.
   * The rows are locked first and deleted in a second statement, whose snapshot sees every retry
   * or recover request committed before the locks (the first statement's may not): a delivery
   * asked for meanwhile is kept.
   */
  purgeBatch(olderThanMs: number, batchSize: number): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const due: { id: string }[] = await em.query(
        `SELECT id FROM webhook_deliveries d
         WHERE created_at < now() - $1 * interval '1 millisecond' AND status <> 'pending'
           AND NOT EXISTS (SELECT 1 FROM webhook_redelivery_requests r WHERE r.delivery_id = d.id)
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [olderThanMs, batchSize],
      );
      if (due.length === 0) return 0;
      const [, count] = await em.query(
        `DELETE FROM webhook_deliveries d WHERE d.id = ANY($1::uuid[])
           AND NOT EXISTS (SELECT 1 FROM webhook_redelivery_requests r WHERE r.delivery_id = d.id)`,
        [due.map((row) => row.id)],
      );
      return count as number;
    });
  }

  private async logAttempt(
    em: EntityManager,
    deliveryId: string,
    result: AttemptResult,
    manual: boolean,
  ): Promise<void> {
    await em.query(
      `INSERT INTO webhook_delivery_attempts
         (delivery_id, attempted_at, response_status, error, duration_ms, manual, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        deliveryId,
        result.at,
        result.responseStatus,
        result.error,
        result.durationMs,
        manual,
        result.responseBodyExcerpt,
      ],
    );
  }
}

/**
 * Inserts the deliveries of `rows`, a JSON array (parameter `rows`) of NewDelivery, each due now;
 * an endpoint's second delivery of an event is skipped. Answers the ids inserted. Fan-out runs
 * it inside its one statement (DispatchStore.recordFanout).
 */
export const insertDeliveriesSql = (rows: string) =>
  `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event, payload, next_attempt_at)
   SELECT x.id, x."endpointId", x."eventId", x.event, x.payload, now()
   FROM jsonb_to_recordset(${rows}::jsonb) AS x(id uuid, "endpointId" uuid, "eventId" uuid, event text, payload text)
   ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`;
