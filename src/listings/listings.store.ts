import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { RawJson } from '../common/http/raw-json';
import { PreparedReads } from '../platform/database/prepared-reads';
import { OutboxWake } from '../events/outbox-wake';
import { LISTING_STATUSES, ListingSort, ListingStatus } from './listing.constants';
import type { ImagePriority } from './gallery/image-priority';
import { insertCreatedQuery, inInputOrder, NewListing } from './listing-insert-rows';
import { CONTENT_COLUMNS, ListingContent, ListingRow } from './listing-row';
import { imageJsonSql } from './listing-json.sql';
import { listingTotalSql } from './listing-total.sql';

/**
 * Named columns, not `l.*`: a prepared statement's result shape must survive a migration
 * adding a column while instances run. The Record makes the compiler check the list.
 */
const COLUMNS: Record<Exclude<keyof ListingRow, 'images'>, true> = {
  id: true,
  account_id: true,
  livemode: true,
  external_id: true,
  title: true,
  description: true,
  price: true,
  currency: true,
  condition: true,
  category_slug: true,
  location_lan: true,
  location_kommun: true,
  phone: true,
  attributes: true,
  status: true,
  created_at: true,
  updated_at: true,
  published_at: true,
  expires_at: true,
  sold_at: true,
  expired_at: true,
  removed_at: true,
  removal_reason: true,
};

/** The columns of ListingRow but its gallery (not `rendered`, which only list pages read). */
const ROW_COLUMNS = Object.keys(COLUMNS).join(', ');

/** The row plus its gallery, as one JSON array sorted by position. */
const SELECT_LISTING = `
  ${Object.keys(COLUMNS)
    .map((column) => `l.${column}`)
    .join(', ')}, COALESCE((
    SELECT json_agg(${imageJsonSql('i')} ORDER BY i.position)
    FROM listing_images i WHERE i.listing_id = l.id), '[]') AS images`;

/** A listing of the scope (`$1`, `$2`) that is not REMOVED and whose externalId `= match`. */
const liveWithExternalId = (match: string) =>
  `account_id = $1 AND livemode = $2 AND external_id = ${match} AND status <> 'REMOVED'`;

/**
 * A listing existed when an import was accepted if the transaction that created it had committed
 * by then: visible in the import's snapshot (`snapshot`, pg_snapshot as text). A null creator is a
 * listing older than the snapshots. Creation time cannot say it: a create in flight then began
 * before it.
 */
const EXISTED_WHEN_ACCEPTED = (snapshot: string) =>
  `(created_xid IS NULL OR pg_visible_in_snapshot(created_xid, ${snapshot}::pg_snapshot))`;

const ORDER_BY: Record<ListingSort | 'updated', string> = {
  newest: 'l.created_at DESC, l.id DESC',
  oldest: 'l.created_at ASC, l.id ASC',
  price_asc: 'l.price ASC, l.id ASC',
  price_desc: 'l.price DESC, l.id DESC',
  updated: 'l.updated_at ASC, l.id ASC',
};

/** A listing after a state change, with the state it left. */
export type TransitionedRow = ListingRow & { previous_status: ListingStatus };

export interface ListFilter {
  status?: ListingStatus;
  externalId?: string;
  updatedSince?: Date;
  /** with updatedSince: only rows after (updatedSince, afterId) */
  afterId?: string;
  /** only listings with an image in this processing status */
  imageStatus?: 'pending' | 'failed';
  sort: ListingSort;
  limit: number;
  offset: number;
}

/** SQL for listings: writes are single guarded statements, so the database decides races. */
@Injectable()
export class ListingsStore {
  constructor(
    private readonly reads: PreparedReads,
    private readonly wake: OutboxWake,
  ) {}

  /**
   * Inserts listings, galleries and listing.created events in one atomic statement, so a create
   * needs no transaction. Ids are made here to match images to listings by id, not RETURNING order.
   */
  async insertCreated(
    em: EntityManager,
    listings: NewListing[],
    priority: ImagePriority,
  ): Promise<ListingRow[]> {
    const withIds = listings.map((listing) => ({ id: randomUUID(), ...listing }));
    const { sql, params } = insertCreatedQuery(withIds, ROW_COLUMNS, priority);
    const rows: ListingRow[] = await em.query(sql, params);
    this.wake.written(em);
    return inInputOrder(withIds, rows);
  }

  /** With `lock`, the row stays locked for the rest of the transaction: concurrent edits take turns. */
  async find(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
    lock = false,
  ): Promise<ListingRow | undefined> {
    const where = 'id = $1 AND account_id = $2 AND livemode = $3';
    return lock
      ? this.lockThenRead(em, where, [id, scope.accountId, scope.livemode])
      : this.read(em, where, [id, scope.accountId, scope.livemode]);
  }

  /** The listing holding this externalId (not REMOVED), locked. */
  findByExternalIdForUpdate(
    em: EntityManager,
    scope: OwnerScope,
    externalId: string,
  ): Promise<ListingRow | undefined> {
    return this.lockThenRead(em, liveWithExternalId('$3'), [
      scope.accountId,
      scope.livemode,
      externalId,
    ]);
  }

  /**
   * The listings holding these externalIds (not REMOVED), locked in id order, with their
   * galleries; read, as in lockThenRead, by a second statement once the locks are held, their
   * conditions checked again on what it read. Each scan of `listings` is one probe of a unique
   * index whatever the planner's statistics say: a LATERAL subquery with a LIMIT is neither
   * flattened into a join nor given the outer conditions, and `id = ANY(ARRAY(…))` leaves the
   * primary key as the only index to scan by.
   */
  async findByExternalIdsForUpdate(
    em: EntityManager,
    scope: OwnerScope,
    externalIds: string[],
  ): Promise<ListingRow[]> {
    if (externalIds.length === 0) return [];
    const locked: { id: string }[] = await em.query(
      `SELECT id FROM listings
       WHERE id = ANY(ARRAY(
         SELECT f.id FROM unnest($3::text[]) AS x(external_id)
         CROSS JOIN LATERAL (
           SELECT id FROM listings WHERE ${liveWithExternalId('x.external_id')} LIMIT 1) f))
       ORDER BY id FOR UPDATE`,
      [scope.accountId, scope.livemode, externalIds],
    );
    if (locked.length === 0) return [];
    return em.query(
      `SELECT ${SELECT_LISTING}
       FROM unnest($4::uuid[]) AS x(id)
       CROSS JOIN LATERAL (SELECT ${ROW_COLUMNS} FROM listings WHERE id = x.id LIMIT 1) l
       WHERE ${liveWithExternalId('ANY($3)')}`,
      [scope.accountId, scope.livemode, externalIds, locked.map((row) => row.id)],
    );
  }

  /**
   * Locks the scope's listings named by id or externalId, in id order, as an import's chunk locks
   * its own: writers that take their rows in one order cannot deadlock on them. Names that match
   * nothing lock nothing.
   */
  async lockInIdOrder(
    em: EntityManager,
    scope: OwnerScope,
    names: { ids: string[]; externalIds: string[] },
  ): Promise<void> {
    if (names.ids.length === 0 && names.externalIds.length === 0) return;
    await em.query(
      `SELECT id FROM listings
       WHERE account_id = $1 AND livemode = $2
         AND (id = ANY($3::uuid[]) OR external_id = ANY($4::text[]))
       ORDER BY id FOR UPDATE`,
      [scope.accountId, scope.livemode, names.ids, names.externalIds],
    );
  }

  /**
   * What a mirror import removes: listings of the scope that existed when it was accepted (their
   * creator is visible in `accepted`, the import's snapshot; see EXISTED_WHEN_ACCEPTED), have an
   * externalId that is not in `keep` (a text[] in binary: FirstLines.externalIdsParam), and are
   * DRAFT, ACTIVE or EXPIRED (never SOLD). Locked, in id order after `afterId`, so their state
   * cannot change before the caller removes them.
   */
  async lockMirrorRemovals(
    em: EntityManager,
    scope: OwnerScope,
    q: { accepted: string; keep: Buffer; afterId: string | null; limit: number; lock: boolean },
  ): Promise<{ id: string; external_id: string }[]> {
    return em.query(
      `SELECT id, external_id FROM listings
       WHERE account_id = $1 AND livemode = $2 AND external_id IS NOT NULL
         AND status IN ('DRAFT', 'ACTIVE', 'EXPIRED') AND ${EXISTED_WHEN_ACCEPTED('$3')}
         AND NOT (external_id = ANY($4::text[])) AND ($5::uuid IS NULL OR id > $5)
       ORDER BY id LIMIT $6 ${q.lock ? 'FOR UPDATE' : ''}`,
      [scope.accountId, scope.livemode, q.accepted, q.keep, q.afterId, q.limit],
    );
  }

  /**
   * How many listings a mirror import could remove, and how many it would with `keep` kept (a
   * text[] in binary, as in lockMirrorRemovals).
   */
  async countMirrorRemovals(
    em: EntityManager,
    scope: OwnerScope,
    accepted: string,
    keep: Buffer,
  ): Promise<{ removable: number; removals: number }> {
    const [counts] = await em.query(
      `SELECT count(*)::int AS removable,
              (count(*) FILTER (WHERE NOT (external_id = ANY($4::text[]))))::int AS removals
       FROM listings
       WHERE account_id = $1 AND livemode = $2 AND external_id IS NOT NULL
         AND status IN ('DRAFT', 'ACTIVE', 'EXPIRED') AND ${EXISTED_WHEN_ACCEPTED('$3')}`,
      [scope.accountId, scope.livemode, accepted, keep],
    );
    return counts;
  }

  /** Any account's listing, locked, for the admin API. */
  findAnyForUpdate(em: EntityManager, id: string): Promise<ListingRow | undefined> {
    return this.lockThenRead(em, 'id = $1', [id]);
  }

  private async read(
    em: EntityManager,
    where: string,
    params: unknown[],
  ): Promise<ListingRow | undefined> {
    const [row] = await this.reads.query<ListingRow>(
      em,
      `SELECT ${SELECT_LISTING} FROM listings l WHERE ${where}`,
      params,
    );
    return row;
  }

  /**
   * Locks, then reads in a second statement: one that waited for the lock would still see the
   * gallery as it was, and positions must not be computed from a stale gallery.
   */
  private async lockThenRead(
    em: EntityManager,
    where: string,
    params: unknown[],
  ): Promise<ListingRow | undefined> {
    const [locked] = await em.query(`SELECT id FROM listings WHERE ${where} FOR UPDATE`, params);
    return locked ? this.read(em, 'id = $1', [locked.id]) : undefined;
  }

  async updateContent(
    em: EntityManager,
    id: string,
    changes: Partial<ListingContent>,
  ): Promise<ListingRow> {
    const entries = Object.entries(changes) as [keyof ListingContent, unknown][];
    const sets = entries.map(([field], i) => `${CONTENT_COLUMNS[field]} = $${i + 2}`);
    const values = entries.map(([field, value]) =>
      field === 'attributes' ? JSON.stringify(value) : value,
    );
    const [[row]] = await em.query(
      `UPDATE listings SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING ${ROW_COLUMNS}`,
      [id, ...values],
    );
    return row;
  }

  /**
   * Soft-deletes the owner's listing from any state but REMOVED; a mirror import's removal is
   * marked with the import (`byImport`), which makes the listing restorable.
   */
  remove(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
    byImport: string | null = null,
  ): Promise<TransitionedRow | undefined> {
    return this.transition(
      em,
      { id, scope },
      'not-removed',
      `status = 'REMOVED', removed_at = now(), removed_by_import = $2`,
      [byImport],
    );
  }

  /**
   * For each externalId, the latest listing of the scope a mirror import removed less than
   * `withinMs` ago, locked, with its gallery. Only taken when no live listing holds the
   * externalId (the caller looked first), so a restore never collides with a newer listing.
   */
  async findRestorableForUpdate(
    em: EntityManager,
    scope: OwnerScope,
    externalIds: string[],
    withinMs: number,
  ): Promise<ListingRow[]> {
    if (externalIds.length === 0) return [];
    const locked: { id: string }[] = await em.query(
      `SELECT id FROM listings WHERE id = ANY(ARRAY(
         SELECT f.id FROM unnest($3::text[]) AS x(external_id)
         CROSS JOIN LATERAL (
           SELECT id FROM listings
           WHERE account_id = $1 AND livemode = $2 AND external_id = x.external_id
             AND removed_by_import IS NOT NULL
             AND removed_at > now() - $4 * interval '1 millisecond'
           ORDER BY removed_at DESC LIMIT 1) f))
       ORDER BY id FOR UPDATE`,
      [scope.accountId, scope.livemode, externalIds, withinMs],
    );
    if (locked.length === 0) return [];
    // Read again under the lock: a concurrent restore or purge may have changed the row.
    return em.query(
      `SELECT ${SELECT_LISTING} FROM listings l
       WHERE l.id = ANY($1) AND l.status = 'REMOVED' AND l.removed_by_import IS NOT NULL`,
      [locked.map((row) => row.id)],
    );
  }

  /**
   * REMOVED by a mirror import → ACTIVE (live, valid `validityMs` from now) or DRAFT (test), with
   * the content given; its removal forgotten. Undefined when the row is no longer restorable.
   */
  async restore(
    em: EntityManager,
    id: string,
    changes: Partial<ListingContent>,
    validityMs: number,
  ): Promise<ListingRow | undefined> {
    const entries = Object.entries(changes) as [keyof ListingContent, unknown][];
    const sets = entries.map(([field], i) => `${CONTENT_COLUMNS[field]} = $${i + 3}`);
    const values = entries.map(([field, value]) =>
      field === 'attributes' ? JSON.stringify(value) : value,
    );
    const [rows] = await em.query(
      `UPDATE listings SET ${[
        ...sets,
        `status = CASE WHEN livemode THEN 'ACTIVE' ELSE 'DRAFT' END`,
        `removed_at = NULL, removed_by_import = NULL, removal_reason = NULL, expired_at = NULL`,
        `published_at = CASE WHEN livemode THEN COALESCE(published_at, now()) END`,
        `expires_at = CASE WHEN livemode THEN now() + make_interval(secs => $2::double precision / 1000) END`,
        'updated_at = now()',
      ].join(', ')}
       WHERE id = $1 AND status = 'REMOVED' AND removed_by_import IS NOT NULL
       RETURNING ${ROW_COLUMNS}`,
      [id, validityMs, ...values],
    );
    return rows[0];
  }

  /** Soft-deletes any account's listing (admin), keeping the reason the owner is told. */
  removeWithReason(
    em: EntityManager,
    id: string,
    reason: string | null,
  ): Promise<TransitionedRow | undefined> {
    return this.transition(
      em,
      { id },
      'not-removed',
      `status = 'REMOVED', removed_at = now(), removal_reason = $2`,
      [reason],
    );
  }

  /** ACTIVE → SOLD. */
  markSold(em: EntityManager, scope: OwnerScope, id: string): Promise<TransitionedRow | undefined> {
    return this.transition(em, { id, scope }, ['ACTIVE'], `status = 'SOLD', sold_at = now()`);
  }

  /** ACTIVE or EXPIRED → ACTIVE, valid `validityMs` past the later of now and its expiry. */
  renew(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
    validityMs: number,
  ): Promise<TransitionedRow | undefined> {
    return this.transition(
      em,
      { id, scope },
      ['ACTIVE', 'EXPIRED'],
      `status = 'ACTIVE', expired_at = NULL,
         expires_at = GREATEST(u.expires_at, now()) + make_interval(secs => $2::double precision / 1000)`,
      [validityMs],
    );
  }

  /**
   * `renew` for many listings of the scope at once (a renewing import's chunk), with each one's
   * `listing.updated`, in one statement (renewalCtes). Those no longer ACTIVE or EXPIRED are left
   * out. Rows without their gallery.
   */
  async renewMany(
    em: EntityManager,
    scope: OwnerScope,
    ids: string[],
    validityMs: number,
    changedFields: Record<'ACTIVE' | 'EXPIRED', string[]>,
  ): Promise<(ListingRow & { previous_status: ListingStatus })[]> {
    if (ids.length === 0) return [];
    const params: unknown[] = [];
    const ctes = this.renewalCtes(params, { scope, ids, validityMs, changedFields });
    const rows: (ListingRow & { previous_status: ListingStatus })[] = await em.query(
      `WITH ${ctes} SELECT * FROM renewed`,
      params,
    );
    if (rows.length > 0) this.wake.written(em);
    return rows;
  }

  /**
   * renewMany's writes as the CTEs `renewal_locked`, `renewed` and `renewal_events` of a
   * statement, their parameters appended to `params`: `renewed` holds the renewed rows (with
   * `previous_status`), and each one's `listing.updated` (as listingUpdated builds it,
   * `changedFields` by the previous status) is inserted in id order, the order they are locked
   * in. With `gate`, the name of an earlier CTE, nothing is renewed unless it yields a row (a
   * statement that renews only while it holds something, ImportsStore.saveRenewingChunk).
   * A statement of them wakes the relays once it has committed (OutboxWake.written).
   * Each listing is locked by one probe of the primary key whatever the planner's statistics say
   * (a LATERAL subquery with a LIMIT is neither flattened nor given the outer conditions): with
   * the account's conditions beside `id = ANY(…)`, a freshly loaded account's stale statistics
   * had it scan the account's whole index as a bitmap.
   */
  renewalCtes(
    params: unknown[],
    renewal: {
      scope: OwnerScope;
      ids: string[];
      validityMs: number;
      changedFields: Record<'ACTIVE' | 'EXPIRED', string[]>;
      gate?: string;
    },
  ): string {
    const { scope, ids, validityMs, changedFields, gate } = renewal;
    const $ = (value: unknown) => `$${params.push(value)}`;
    return `renewal_locked AS (
         SELECT l.id, l.status
         FROM (SELECT DISTINCT id FROM unnest(${$(ids)}::uuid[]) AS x(id)
               ${gate ? `WHERE EXISTS (SELECT FROM ${gate})` : ''} ORDER BY id) x
         CROSS JOIN LATERAL (
           SELECT id, status FROM listings
           WHERE id = x.id AND account_id = ${$(scope.accountId)} AND livemode = ${$(scope.livemode)}
             AND status IN ('ACTIVE', 'EXPIRED')
           LIMIT 1 FOR UPDATE) l),
       renewed AS (
         UPDATE listings u SET status = 'ACTIVE', expired_at = NULL, updated_at = now(),
           expires_at = GREATEST(u.expires_at, now())
             + make_interval(secs => ${$(validityMs)}::double precision / 1000)
         FROM renewal_locked old WHERE u.id = old.id
         RETURNING ${Object.keys(COLUMNS)
           .map((column) => `u.${column}`)
           .join(', ')}, old.status AS previous_status),
       renewal_events AS (
         INSERT INTO outbox_events (account_id, event, data)
         SELECT account_id, 'listing.updated', jsonb_build_object('id', id,
           'externalId', external_id, 'livemode', livemode, 'status', status,
           'updatedAt', api_timestamp(updated_at),
           'changedFields', CASE previous_status
             WHEN 'ACTIVE' THEN ${$(JSON.stringify(changedFields.ACTIVE))}::jsonb
             ELSE ${$(JSON.stringify(changedFields.EXPIRED))}::jsonb END)
         FROM renewed ORDER BY id)`;
  }

  /**
   * Test mode only (the sandbox's publish): DRAFT → ACTIVE, published now and valid `validityMs`
   * from now, as a live create is. The scope keeps it to the caller's test-mode listings.
   */
  publishDraft(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
    validityMs: number,
  ): Promise<TransitionedRow | undefined> {
    assertTestMode(scope, 'publishDraft');
    return this.transition(
      em,
      { id, scope },
      ['DRAFT'],
      `status = 'ACTIVE', published_at = now(),
         expires_at = now() + make_interval(secs => $2::double precision / 1000)`,
      [validityMs],
    );
  }

  /**
   * Test mode only (the sandbox's expire): ACTIVE → EXPIRED now, as the expiry sweep would once
   * `expiresAt` had passed; `expiresAt` becomes now if it was later, so a renew counts from now.
   */
  expireNow(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
  ): Promise<TransitionedRow | undefined> {
    assertTestMode(scope, 'expireNow');
    return this.transition(
      em,
      { id, scope },
      ['ACTIVE'],
      `status = 'EXPIRED', expired_at = now(), expires_at = LEAST(u.expires_at, now())`,
    );
  }

  /**
   * Expires up to `limit` due listings with their events in one statement; SKIP LOCKED and the
   * status recheck expire each row once, however many instances sweep. Returns how many.
   */
  async expireDue(em: EntityManager, limit: number): Promise<number> {
    const [{ n }] = await em.query(
      `WITH due AS (
         SELECT id FROM listings WHERE status = 'ACTIVE' AND expires_at <= now()
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED),
       expired AS (
         UPDATE listings l SET status = 'EXPIRED', expired_at = now(), updated_at = now()
         FROM due WHERE l.id = due.id
         RETURNING l.id, l.account_id, l.external_id, l.livemode, l.expired_at),
       events AS (
         INSERT INTO outbox_events (account_id, event, data)
         SELECT account_id, 'listing.expired', jsonb_build_object(
           'id', id, 'externalId', external_id, 'livemode', livemode,
           'expiredAt', api_timestamp(expired_at))
         FROM expired RETURNING 1)
       SELECT count(*)::int AS n FROM events`,
      [limit],
    );
    if (n > 0) this.wake.written(em);
    return n;
  }

  /** Bumps updatedAt for a change made to what the row aggregates (its gallery); returns it. */
  async touch(em: EntityManager, id: string): Promise<Date> {
    const [[touched]] = await em.query(
      'UPDATE listings SET updated_at = now() WHERE id = $1 RETURNING updated_at',
      [id],
    );
    return touched.updated_at;
  }

  /**
   * Applies `set` only from one of the `from` states: the new row and its previous status, or
   * undefined when no row matched.
   */
  private async transition(
    em: EntityManager,
    where: { id: string; scope?: OwnerScope },
    from: readonly ListingStatus[] | 'not-removed',
    set: string,
    params: unknown[] = [],
  ): Promise<TransitionedRow | undefined> {
    const values: unknown[] = [where.id, ...params];
    const conditions = ['l.id = $1'];
    if (where.scope) {
      values.push(where.scope.accountId, where.scope.livemode);
      conditions.push(`l.account_id = $${values.length - 1}`, `l.livemode = $${values.length}`);
    }
    if (from === 'not-removed') {
      conditions.push(`l.status <> 'REMOVED'`);
    } else {
      values.push(from);
      conditions.push(`l.status = ANY($${values.length})`);
    }
    const [[changed]] = await em.query(
      `UPDATE listings u SET ${set}, updated_at = now()
       FROM (SELECT l.id, l.status FROM listings l WHERE ${conditions.join(' AND ')} FOR UPDATE) old
       WHERE u.id = old.id
       RETURNING u.id, old.status AS previous_status`,
      values,
    );
    if (!changed) return undefined;
    // Read back in a new statement: one that waited for the lock would return a stale gallery.
    const row = (await this.read(em, 'id = $1', [changed.id]))!;
    return { ...row, previous_status: changed.previous_status };
  }

  /**
   * A page as the JSON array the API sends, and its filter's exact total, in one statement;
   * plain and status-filtered totals come from the maintained counts.
   */
  async page(
    em: EntityManager,
    scope: OwnerScope,
    filter: ListFilter,
  ): Promise<{ items: RawJson; total: number }> {
    const statement = pageStatement(scope, filter);
    const rows: { rendered: string; total: string }[] = statement.generic
      ? await this.reads.query(em, statement.text, statement.params)
      : await em.query(statement.text, statement.params);
    if (rows.length > 0) {
      let text = rows[0].rendered;
      for (let i = 1; i < rows.length; i++) text += ',' + rows[i].rendered;
      return { items: new RawJson(`[${text}]`), total: Number(rows[0].total) };
    }
    // Past the last page (or nothing at all): the total still answers.
    const [row] = await em.query(`SELECT ${statement.total} AS total`, statement.filterParams);
    return { items: new RawJson('[]'), total: Number(row.total) };
  }
}

export interface PageStatement {
  text: string;
  params: unknown[];
  /** the total's scalar subquery, and the parameters it and the filter use */
  total: string;
  filterParams: unknown[];
  /** planned once and generically on the read pool (see PreparedReads) */
  generic: boolean;
}

/**
 * GET /listings: the rows' trigger-kept `rendered` JSON in page order, and the total. Plain and
 * status pages are planned once, generically (an index serves each); externalId, updatedSince
 * and imageStatus pages per call. Why: docs/performance.md, History.
 */
export function pageStatement(scope: OwnerScope, filter: ListFilter): PageStatement {
  const filterParams: unknown[] = [scope.accountId, scope.livemode];
  const where = ['l.account_id = $1', 'l.livemode = $2'];
  const statusCondition = (row: string) =>
    filter.status ? `${row}status = ${statusLiteral(filter.status)}` : `${row}status <> 'REMOVED'`;
  where.push(statusCondition('l.'));
  if (filter.externalId !== undefined) {
    filterParams.push(filter.externalId);
    where.push(`l.external_id = $${filterParams.length}`);
  }
  if (filter.updatedSince && filter.afterId) {
    // A row comparison, so the (updated_at, id) index serves it as one range.
    filterParams.push(filter.updatedSince, filter.afterId);
    const n = filterParams.length;
    where.push(`(l.updated_at, l.id) > ($${n - 1}, $${n})`);
  } else if (filter.updatedSince) {
    filterParams.push(filter.updatedSince);
    where.push(`l.updated_at >= $${filterParams.length}`);
  }
  if (filter.imageStatus !== undefined) {
    // listing_images_unfinished_idx holds only the images not ready: a few rows to probe.
    filterParams.push(filter.imageStatus);
    where.push(`EXISTS (SELECT 1 FROM listing_images i
      WHERE i.listing_id = l.id AND i.status = $${filterParams.length} AND i.status <> 'ready')`);
  }
  const generic =
    filter.externalId === undefined &&
    filter.updatedSince === undefined &&
    filter.imageStatus === undefined;
  const filterSql = where.join(' AND ');
  // A scalar subquery, so the total is computed once per statement, not once per row.
  const total = generic
    ? listingTotalSql('$1', '$2', statusCondition(''))
    : `(SELECT count(*) FROM listings l WHERE ${filterSql})`;
  const order = filter.updatedSince ? ORDER_BY.updated : ORDER_BY[filter.sort];
  const n = filterParams.length;
  return {
    text: `SELECT l.rendered, ${total} AS total FROM listings l WHERE ${filterSql}
       ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
    params: [...filterParams, filter.limit, filter.offset],
    total,
    filterParams,
    generic,
  };
}

/** The sandbox's transitions never touch a live listing, whatever a caller passes. */
function assertTestMode(scope: OwnerScope, operation: string): void {
  if (scope.livemode) throw new Error(`${operation} is for test-mode listings only`);
}

/** Only the known states reach SQL text; the DTO already refused anything else. */
function statusLiteral(status: ListingStatus): string {
  if (!LISTING_STATUSES.includes(status)) throw new Error(`unknown listing status ${status}`);
  return `'${status}'`;
}
