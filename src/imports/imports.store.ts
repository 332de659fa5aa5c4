import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import type { ErrorCode } from '../common/errors/error-code';
import type { FieldError } from '../common/errors/domain-error';
import type { ImportCounts } from '../events/event-types';
import { LINE_HASH_BYTES } from './import-line-hash';
import { RENEW_WHEN_LEFT_MS } from '../listings/listing-renewal';
import { storableJson } from '../common/db/storable-json';
import type { FetchFailure } from '../platform/outbound/guarded-fetch';

export const IMPORT_STATUSES = [
  'queued',
  'running',
  'held',
  'succeeded',
  'succeeded_with_errors',
  'failed',
  'cancelled',
] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const UNFINISHED: readonly ImportStatus[] = ['queued', 'running', 'held'];

export const IMPORT_OUTCOMES = [
  'created',
  'updated',
  'unchanged',
  'renewed',
  'restored',
  'skipped',
  'failed',
  'removed',
] as const;
export type ImportOutcome = (typeof IMPORT_OUTCOMES)[number];

export type ImportMode = 'upsert' | 'mirror';
export type ImportFormat = 'ndjson' | 'csv';

/** Why an import failed as a whole; `reason` only when its sourceUrl could not be fetched. */
export interface ImportFailure {
  code: string;
  message: string;
  reason?: FetchFailure;
}

/** An `imports` row; its counts are columns of their own. */
export interface ImportRow extends Omit<ImportCounts, 'plannedRemovals'> {
  id: string;
  renew: boolean;
  planned_removals: number | null;
  account_id: string;
  livemode: boolean;
  status: ImportStatus;
  mode: ImportMode;
  dry_run: boolean;
  format: ImportFormat;
  source: 'upload' | 'url';
  source_url: string | null;
  gzip: boolean;
  file_key: string | null;
  max_removals: number | null;
  removal_limit_exceeded: boolean;
  confirmed: boolean;
  cancel_requested: boolean;
  /** taken when the import was accepted (pg_snapshot as text): a mirror removes what it shows */
  planned_snapshot: string | null;
  next_line: number;
  error: ImportFailure | null;
  /** claims in a row without a committed chunk, this one included (a commit makes it 1 again) */
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface NewImport {
  mode: ImportMode;
  dryRun: boolean;
  renew: boolean;
  format: ImportFormat;
  source: 'upload' | 'url';
  sourceUrl: string | null;
  gzip: boolean;
  fileKey: string | null;
  maxRemovals: number | null;
}

export interface ImportResultRow {
  seq: number;
  line: number | null;
  external_id: string | null;
  outcome: ImportOutcome;
  listing_id: string | null;
  error: { code: ErrorCode; message: string; details?: FieldError[] } | null;
  /** why a line was skipped */
  reason?: 'SOLD' | null;
}

export type NewResult = ImportResultRow;

/** A line whose hash matches the one that last wrote a listing: its listing, and whether due. */
export interface KnownLine {
  externalId: string;
  listingId: string;
  /** ACTIVE with 7 days or less left: a renewing import applies the line */
  renewalDue: boolean;
}

/** A runner's claim: its writes count only while the token is still the import's. */
export interface Claim {
  id: string;
  token: string;
}

export type OutcomeTally = Record<ImportOutcome, number>;

export function countsOf(row: ImportRow): ImportCounts {
  return {
    lines: row.lines,
    processed: row.processed,
    created: row.created,
    updated: row.updated,
    unchanged: row.unchanged,
    renewed: row.renewed,
    restored: row.restored,
    skipped: row.skipped,
    removed: row.removed,
    failed: row.failed,
    plannedRemovals: row.planned_removals,
  };
}

/**
 * A result keeps this much of a line's externalId: a valid one is at most 128 characters, and a
 * failed line's may be anything up to the line's size (256 KB), kept in every results page.
 */
const RESULT_EXTERNAL_ID_CHARS = 128;

/** The imports and their results: every statement on `imports` and `import_results`. */
@Injectable()
export class ImportsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts a queued import unless the scope already has `limit` unfinished ones. Creates of one
   * account and mode take turns on an advisory lock, so concurrent requests cannot pass the limit.
   */
  async insertWithinLimit(
    em: EntityManager,
    scope: OwnerScope,
    draft: NewImport,
    limit: number,
  ): Promise<ImportRow | undefined> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `imports:${scope.accountId}:${scope.livemode}`,
    ]);
    const [row] = await em.query(
      `INSERT INTO imports (account_id, livemode, mode, dry_run, format, source, source_url, gzip,
                            file_key, max_removals, renew)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12
       WHERE (SELECT count(*) FROM imports WHERE account_id = $1 AND livemode = $2
                AND status IN ('queued', 'running', 'held')) < $11
       RETURNING *`,
      [
        scope.accountId,
        scope.livemode,
        draft.mode,
        draft.dryRun,
        draft.format,
        draft.source,
        draft.sourceUrl,
        draft.gzip,
        draft.fileKey,
        draft.maxRemovals,
        limit,
        draft.renew,
      ],
    );
    return row;
  }

  async find(scope: OwnerScope, id: string): Promise<ImportRow | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT * FROM imports WHERE id = $1 AND account_id = $2 AND livemode = $3`,
      [id, scope.accountId, scope.livemode],
    );
    return row;
  }

  async findById(id: string): Promise<ImportRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT * FROM imports WHERE id = $1`, [id]);
    return row;
  }

  /** Newest first. */
  async page(
    scope: OwnerScope,
    filter: { page: number; limit: number; status?: ImportStatus },
  ): Promise<[ImportRow[], number]> {
    const params = [scope.accountId, scope.livemode, filter.status ?? null];
    const where = `account_id = $1 AND livemode = $2 AND ($3::text IS NULL OR status = $3)`;
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT * FROM imports WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
        [...params, filter.limit, (filter.page - 1) * filter.limit],
      ),
      this.dataSource.query(`SELECT count(*)::int AS total FROM imports WHERE ${where}`, params),
    ]);
    return [rows, total];
  }

  /** Results in line order (removals last), after `afterSeq`; one more row than asked tells hasMore. */
  results(
    importId: string,
    filter: { afterSeq: number; limit: number; outcome?: ImportOutcome },
  ): Promise<ImportResultRow[]> {
    return this.dataSource.query(
      `SELECT seq, line, external_id, outcome, listing_id, error, reason FROM import_results
       WHERE import_id = $1 AND seq > $2 AND ($3::text IS NULL OR outcome = $3)
       ORDER BY seq LIMIT $4`,
      [importId, filter.afterSeq, filter.outcome ?? null, filter.limit],
    );
  }

  /**
   * Claims the next runnable import for a runner: a queued one that is the oldest unfinished
   * import of its account and mode, or a running one whose runner's lease ran out; so one import
   * of an account and mode runs at a time, in order of arrival. Among them, fairness decides:
   * accounts running fewer imports first, then live before test, then the oldest. `only` limits
   * the claim to that import (a test runs a given one).
   * A claim locks its row (SKIP LOCKED: runners never wait on each other) and rechecks its status
   * there; an import only becomes runnable once the one ahead of it has ended, which no claim on
   * another row can undo, so two runners never both start one account and mode.
   */
  async claimNext(
    leaseMs: number,
    only?: string,
  ): Promise<{ row: ImportRow; claim: Claim } | undefined> {
    const [[row]] = await this.dataSource.query(
      `WITH next AS (
         SELECT i.id FROM imports i
         WHERE ($2::uuid IS NULL OR i.id = $2) AND (
           (i.status = 'queued' AND NOT EXISTS (
              SELECT 1 FROM imports o WHERE o.account_id = i.account_id AND o.livemode = i.livemode
                AND o.status IN ('queued', 'running', 'held') AND o.id <> i.id
                AND (o.status <> 'queued' OR (o.created_at, o.id) < (i.created_at, i.id))))
           OR (i.status = 'running' AND i.lease_until < now()))
         ORDER BY (SELECT count(*) FROM imports r
                   WHERE r.account_id = i.account_id AND r.status = 'running' AND r.id <> i.id),
           NOT i.livemode, i.created_at, i.id
         LIMIT 1
         FOR UPDATE OF i SKIP LOCKED)
       UPDATE imports SET status = 'running', claim_token = gen_random_uuid(),
         lease_until = now() + $1 * interval '1 millisecond', attempts = attempts + 1,
         started_at = COALESCE(started_at, now())
       FROM next WHERE imports.id = next.id
       RETURNING imports.*`,
      [leaseMs, only ?? null],
    );
    return row ? { row, claim: { id: row.id, token: row.claim_token } } : undefined;
  }

  /** False when the claim was lost (the lease ran out and another runner took the import). */
  async renew(claim: Claim, leaseMs: number): Promise<boolean> {
    const [, count] = await this.dataSource.query(
      `UPDATE imports SET lease_until = now() + $3 * interval '1 millisecond'
       WHERE id = $1 AND claim_token = $2 AND status = 'running'`,
      [claim.id, claim.token, leaseMs],
    );
    return count > 0;
  }

  /** The read pass is done: the file's line count. */
  async markPlanned(claim: Claim, lines: number): Promise<ImportRow | undefined> {
    const [rows] = await this.dataSource.query(
      `UPDATE imports SET lines = $3 WHERE id = $1 AND claim_token = $2 RETURNING *`,
      [claim.id, claim.token, lines],
    );
    return rows[0];
  }

  /** A fetched feed's stored file. Throws when the claim was lost. */
  async setFile(claim: Claim, fileKey: string, gzip: boolean): Promise<ImportRow> {
    const [rows] = await this.dataSource.query(
      `UPDATE imports SET file_key = $3, gzip = $4 WHERE id = $1 AND claim_token = $2 RETURNING *`,
      [claim.id, claim.token, fileKey, gzip],
    );
    if (!rows[0]) throw new LostClaimError(claim.id);
    return rows[0];
  }

  /** A dry run that a real run's removal limit would have held says so. */
  /** A mirror import's plan: how many listings it removes, and whether that passes its limit. */
  async recordPlan(
    claim: Claim,
    plan: { plannedRemovals: number; limitExceeded: boolean },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE imports SET planned_removals = $3, removal_limit_exceeded = $4
       WHERE id = $1 AND claim_token = $2`,
      [claim.id, claim.token, plan.plannedRemovals, plan.limitExceeded],
    );
  }

  /**
   * Records one chunk's results with the import's progress in one statement, in the caller's
   * transaction (which holds the chunk's listing writes) or alone when the chunk wrote nothing.
   * The results are inserted only if the claim still holds; a lost claim throws, so the
   * caller's transaction rolls back. The same statement stores `lineHashes`, the hash of the line
   * that wrote or matched each listing, for the import's account and mode: it runs after the
   * chunk's listing and gallery writes, whose triggers drop the listing's previous hash.
   */
  async saveChunk(
    em: EntityManager,
    claim: Claim,
    progress: ChunkProgress,
    leaseMs: number,
    lineHashes: LineHash[] = [],
  ): Promise<ImportRow> {
    const [saved] = await em.query(...chunkStatement(claim, progress, leaseMs, lineHashes));
    if (!saved) throw new LostClaimError(claim.id);
    return saved;
  }

  /**
   * A chunk whose only listing writes renew known lines' listings, saved by one statement, atomic
   * by itself, as saveChunk saves one that wrote nothing: the renewals (`renewalCtes`, with their
   * events: ListingsService.renewalCtes) run only while the claim holds, the import's row locked
   * first, and their events go in the bulk lane (the statement sets it, as useBulkLane does).
   * `progress` counts every renewal `renewed`; one whose listing is no longer ACTIVE or EXPIRED
   * becomes `unchanged`, in its result and the tallies. The renewed listings' lines keep their
   * hashes (`renewals`). The ids renewed with the import.
   */
  async saveRenewingChunk(
    claim: Claim,
    progress: ChunkProgress,
    leaseMs: number,
    renewalCtes: (params: unknown[], gate: string) => string,
  ): Promise<{ saved: ImportRow; renewed: Set<string> }> {
    // No line hash is stored: a renewal keeps the listing's (LineHashKeptOnRenewal), and one an
    // edit dropped since the read pass must stay dropped, so the next import applies the line.
    const [row] = await this.dataSource.query(
      ...chunkStatement(claim, progress, leaseMs, [], renewalCtes),
    );
    if (!row) throw new LostClaimError(claim.id);
    // Its events are in the bulk lane: no wake, the relay finds them on its poll (OutboxWake).
    const { renewed_ids: ids, ...saved } = row as ImportRow & { renewed_ids: string[] };
    return { saved: saved as ImportRow, renewed: new Set(ids) };
  }

  /**
   * The scope's listings whose stored hash is one of `hashes` (see the ImportLineHashes
   * migration), by the hash's index in `hashes`, each with its externalId. A listing written
   * since by anything but an import's line or a renewal has no hash, nor has a removed one
   * (LineHashKeptOnRenewal migration).
   * One index probe per hash whatever the planner's statistics say: a LATERAL subquery with a
   * LIMIT is never flattened into a join (such as a scan of the account's hashes). The hashes go
   * as one bytea and the answer comes as one JSON array: a row or array element each would cost
   * the worker more than the database's probes.
   */
  async linesByHash(
    em: EntityManager,
    scope: OwnerScope,
    hashes: Buffer[],
  ): Promise<Map<number, KnownLine>> {
    if (hashes.length === 0) return new Map();
    // renewalDue as listing-renewal.ts decides it (a hashed listing is never EXPIRED: the expiry
    // dropped its hash), read only for the rows found.
    const [{ found }]: { found: [number, string, string, boolean][] | null }[] = await em.query(
      `SELECT json_agg(json_build_array(x.i, h.external_id, h.listing_id,
         (SELECT l.status = 'ACTIVE' AND l.expires_at <= now() + $4 * interval '1 millisecond'
          FROM listings l WHERE l.id = h.listing_id))) AS found
       FROM generate_series(0, length($3::bytea) / ${LINE_HASH_BYTES} - 1) AS x(i)
       CROSS JOIN LATERAL (
         SELECT external_id, listing_id FROM listing_line_hashes
         WHERE account_id = $1 AND livemode = $2
           AND hash = substring($3::bytea FROM x.i * ${LINE_HASH_BYTES} + 1 FOR ${LINE_HASH_BYTES})
         LIMIT 1) h`,
      [scope.accountId, scope.livemode, Buffer.concat(hashes), RENEW_WHEN_LEFT_MS],
    );
    return new Map(
      (found ?? []).map(([i, externalId, listingId, renewalDue]) => [
        i,
        { externalId, listingId, renewalDue: renewalDue === true },
      ]),
    );
  }

  /** The last removal recorded: where a resumed removal pass continues. */
  async lastRemoval(importId: string): Promise<string | null> {
    const [row] = await this.dataSource.query(
      `SELECT listing_id FROM import_results WHERE import_id = $1 AND outcome = 'removed'
       ORDER BY seq DESC LIMIT 1`,
      [importId],
    );
    return row?.listing_id ?? null;
  }

  /** Ends the runner's work in `status` (held, a final state, or queued again after a hold). */
  async settle(
    em: EntityManager,
    claim: Claim,
    change: {
      status: ImportStatus;
      error?: ImportFailure | null;
      removalLimitExceeded?: boolean;
      /** Not if a cancel was asked for: a cancel committed first wins over a hold. */
      unlessCancelled?: boolean;
    },
  ): Promise<ImportRow | undefined> {
    const final = !UNFINISHED.includes(change.status);
    const [rows] = await em.query(
      `UPDATE imports SET status = $3, error = $4, claim_token = NULL, lease_until = NULL,
         removal_limit_exceeded = COALESCE($5, removal_limit_exceeded),
         finished_at = CASE WHEN $6 THEN now() ELSE NULL END
       WHERE id = $1 AND claim_token = $2 AND NOT ($7 AND cancel_requested) RETURNING *`,
      [
        claim.id,
        claim.token,
        change.status,
        change.error ? storableJson(change.error) : null,
        change.removalLimitExceeded ?? null,
        final,
        change.unlessCancelled ?? false,
      ],
    );
    return rows[0];
  }

  /**
   * Cancel: a queued or held import ends at once; a running one is asked to stop at its next
   * commit. Returns the row after the call, or undefined when it was already finished.
   */
  async cancel(em: EntityManager, scope: OwnerScope, id: string): Promise<ImportRow | undefined> {
    const [row] = await em.query(
      `WITH before AS (
         SELECT id, status FROM imports WHERE id = $1 AND account_id = $2 AND livemode = $3
         FOR UPDATE),
       cancelled AS (
         UPDATE imports i SET
           status = CASE WHEN i.status = 'running' THEN i.status ELSE 'cancelled' END,
           cancel_requested = true,
           finished_at = CASE WHEN i.status = 'running' THEN NULL ELSE now() END
         FROM before WHERE i.id = before.id AND before.status IN ('queued', 'running', 'held')
         RETURNING i.*),
       -- A held import's planned removals never happen: they are not its results.
       unplanned AS (
         DELETE FROM import_results r USING before
         WHERE r.import_id = before.id AND before.status = 'held' AND r.outcome = 'removed')
       SELECT * FROM cancelled`,
      [id, scope.accountId, scope.livemode],
    );
    return row;
  }

  /**
   * A held import is queued again, confirmed: it then runs in full, and its planned removals
   * give way to the removals it makes.
   */
  async confirm(
    scope: OwnerScope,
    id: string,
    em: EntityManager = this.dataSource.manager,
  ): Promise<ImportRow | undefined> {
    const [row] = await em.query(
      `WITH confirmed AS (
         UPDATE imports SET status = 'queued', confirmed = true, attempts = 0
         WHERE id = $1 AND account_id = $2 AND livemode = $3 AND status = 'held'
         RETURNING *),
       unplanned AS (
         DELETE FROM import_results r USING confirmed
         WHERE r.import_id = confirmed.id AND r.outcome = 'removed')
       SELECT * FROM confirmed`,
      [id, scope.accountId, scope.livemode],
    );
    return row;
  }

  /**
   * A held import's planned removals as its results (outcome `removed`, `line` null), numbered
   * after `firstSeq`, in the caller's transaction: what `?outcome=removed` lists while it waits.
   */
  async recordPlannedRemovals(
    em: EntityManager,
    importId: string,
    firstSeq: number,
    listings: { id: string; external_id: string }[],
  ): Promise<void> {
    await em.query(
      `INSERT INTO import_results (import_id, seq, line, external_id, outcome, listing_id)
       SELECT $1, $2 + x.n - 1, NULL, x.external_id, 'removed', x.id
       FROM unnest($3::uuid[], $4::text[]) WITH ORDINALITY AS x(id, external_id, n)`,
      [importId, firstSeq, listings.map((l) => l.id), listings.map((l) => l.external_id)],
    );
  }

  /** Whether a cancel asked the running import to stop. */
  async cancelRequested(importId: string): Promise<boolean> {
    const [row] = await this.dataSource.query(
      `SELECT cancel_requested FROM imports WHERE id = $1`,
      [importId],
    );
    return row?.cancel_requested ?? true;
  }

  /**
   * What should be running and may have lost its job: per account and mode, the oldest queued
   * import when nothing runs or is held ahead of it, and running imports whose lease ran out.
   */
  async runnable(limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM imports i
       WHERE (i.status = 'running' AND i.lease_until < now())
          OR (i.status = 'queued' AND NOT EXISTS (
                SELECT 1 FROM imports o WHERE o.account_id = i.account_id AND o.livemode = i.livemode
                  AND o.status IN ('queued', 'running', 'held') AND o.id <> i.id
                  AND (o.status <> 'queued' OR (o.created_at, o.id) < (i.created_at, i.id))))
       ORDER BY created_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  /** The next queued import of the same account and mode, to start when one ends. */
  async nextQueued(accountId: string, livemode: boolean): Promise<string | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT id FROM imports WHERE account_id = $1 AND livemode = $2 AND status = 'queued'
       ORDER BY created_at, id LIMIT 1`,
      [accountId, livemode],
    );
    return row?.id;
  }

  /** One batch of the imports finished before the cut-off, oldest first, with their files. */
  async finishedBefore(
    olderThanMs: number,
    batchSize: number,
  ): Promise<{ id: string; file_key: string | null }[]> {
    return this.dataSource.query(
      `SELECT id, file_key FROM imports
       WHERE finished_at < now() - $1 * interval '1 millisecond'
       ORDER BY finished_at LIMIT $2`,
      [olderThanMs, batchSize],
    );
  }

  /** Deletes these imports and their results; returns how many imports were still there. */
  async deleteImports(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const [{ deleted }]: { deleted: number }[] = await this.dataSource.query(
      `WITH results AS (DELETE FROM import_results WHERE import_id = ANY($1::uuid[])),
         deleted AS (DELETE FROM imports WHERE id = ANY($1::uuid[]) RETURNING 1)
       SELECT count(*)::int AS deleted FROM deleted`,
      [ids],
    );
    return deleted;
  }

  /** Imports per status, for the metrics gauge. */
  async countByStatus(): Promise<{ status: ImportStatus; count: number }[]> {
    return this.dataSource.query(
      `SELECT status, count(*)::int AS count FROM imports GROUP BY status`,
    );
  }
}

/** The runner's lease ran out and another runner holds the import now. */
export class LostClaimError extends Error {
  constructor(importId: string) {
    super(`The claim on import ${importId} was lost`);
    this.name = 'LostClaimError';
  }
}

type ChunkProgress = {
  nextLine: number;
  processed: number;
  tally: OutcomeTally;
  results: NewResult[];
};
type LineHash = { listingId: string; externalId: string; hash: Buffer };

/**
 * saveChunk's statement, or saveRenewingChunk's with `renewalCtes`: then the claim is locked
 * first (`claim`, which also puts the statement's events in the bulk lane), the renewals run
 * only if it holds, `renewed` counts and results follow what they renewed, and the row carries
 * `renewed_ids`.
 */
function chunkStatement(
  claim: Claim,
  progress: ChunkProgress,
  leaseMs: number,
  lineHashes: LineHash[],
  renewalCtes?: (params: unknown[], gate: string) => string,
): [string, unknown[]] {
  const { results, tally } = progress;
  const params: unknown[] = [
    claim.id,
    claim.token,
    progress.nextLine,
    progress.processed,
    tally.created,
    tally.updated,
    tally.unchanged,
    tally.failed,
    tally.removed,
    leaseMs,
    storableJson(results),
    tally.renewed,
    tally.restored,
    tally.skipped,
  ];
  const $ = (value: unknown) => `$${params.push(value)}`;
  const renewedCount = '(SELECT count(*) FROM renewed)::int';
  const renewing = renewalCtes
    ? `claim AS (
         SELECT id, set_config('listings.event_lane', 'bulk', true) FROM imports
         WHERE id = $1 AND claim_token = $2 AND status = 'running' FOR UPDATE),
       ${renewalCtes(params, 'claim')},
       `
    : '';
  const hashes =
    lineHashes.length === 0
      ? ''
      : `,
       hashes AS (
         INSERT INTO listing_line_hashes (listing_id, account_id, livemode, external_id, hash)
         SELECT x.listing_id, saved.account_id, saved.livemode, x.external_id, x.hash
         FROM saved, unnest(${$(lineHashes.map((h) => h.listingId))}::uuid[],
           ${$(lineHashes.map((h) => h.externalId))}::text[],
           ${$(lineHashes.map((h) => h.hash))}::bytea[]) AS x(listing_id, external_id, hash)
         ON CONFLICT (listing_id) DO UPDATE SET hash = EXCLUDED.hash
           WHERE listing_line_hashes.hash IS DISTINCT FROM EXCLUDED.hash)`;
  const text = `WITH ${renewing}saved AS (
         UPDATE imports SET next_line = $3, processed = processed + $4, created = created + $5,
           updated = updated + $6, failed = failed + $8,
           removed = removed + $9, lease_until = now() + $10 * interval '1 millisecond',
           ${
             renewalCtes
               ? `unchanged = unchanged + $7 + $12 - ${renewedCount},
           renewed = renewed + ${renewedCount},`
               : `unchanged = unchanged + $7, renewed = renewed + $12,`
           }
           restored = restored + $13, skipped = skipped + $14, attempts = 1
         WHERE id = $1 AND claim_token = $2 AND status = 'running' RETURNING *),
       results AS (
         INSERT INTO import_results (import_id, seq, line, external_id, outcome, listing_id, error, reason)
         SELECT saved.id, r.seq, r.line, left(r.external_id, ${RESULT_EXTERNAL_ID_CHARS}),
           ${
             renewalCtes
               ? `CASE WHEN r.outcome = 'renewed'
             AND NOT EXISTS (SELECT FROM renewed WHERE renewed.id = r.listing_id)
             THEN 'unchanged' ELSE r.outcome END`
               : 'r.outcome'
           }, r.listing_id, r.error, r.reason
         FROM saved, jsonb_to_recordset($11::jsonb) AS r(seq int, line int, external_id text,
           outcome text, listing_id uuid, error jsonb, reason text))${hashes}
       SELECT saved.*${renewalCtes ? ', ARRAY(SELECT id::text FROM renewed) AS renewed_ids' : ''} FROM saved`;
  return [text, params];
}
