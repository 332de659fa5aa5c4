import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { DomainError, FieldError, ValidationError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { isDataError } from '../common/db/pg-errors';
import { retryingConflicts } from '../common/db/retry-conflicts';
import { checkDto, normalizeText } from '../common/http/validation.pipe';
import { OutboxService } from '../events/outbox.service';
import {
  CreateListingDto,
  EXTERNAL_ID_PATTERN,
  EXTERNAL_ID_RULE,
} from '../listings/dto/create-listing.dto';
import { ListingsService, UpsertOutcome } from '../listings/listings.service';
import { ListingsStore } from '../listings/listings.store';
import { ApiLoad } from '../platform/api-load/api-load';
import type { AllConfig } from '../platform/config';
import type { ImportsConfig } from '../platform/config/imports.config';
import { Metrics } from '../platform/metrics/metrics';
import { EventLoopTurns } from '../platform/scheduling/event-loop-turns';
import { ReferenceService } from '../reference/reference.service';
import { STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import { ImportFeedSource } from './import-feed-source';
import { importEvent } from './imports.mapper';
import { ChunkFill } from './chunk-fill';
import { ChunkPacer } from './chunk-pacer';
import { lineHash } from './import-line-hash';
import {
  emptyTally,
  finalStatus,
  FirstLines,
  KnownLines,
  lineError,
  removalLimit,
} from './import-plan';
import {
  Claim,
  ImportFailure,
  ImportRow,
  ImportStatus,
  ImportsStore,
  LostClaimError,
  NewResult,
  OutcomeTally,
} from './imports.store';
import { FeedError } from './feed/feed-error';
import { FetchError } from '../platform/outbound/guarded-fetch';
import type { FeedLine, FeedRecord } from './feed/feed.types';

/**
 * Claims in a row that ended in an unexpected error without committing a chunk (one that made
 * progress counts as the first) before the import is failed instead of resumed.
 */
const MAX_ATTEMPTS = 3;
/** Work that commits nothing renews its lease at this share of it, as chunks do when they commit. */
const RENEW_AT_LEASE_SHARE = 1 / 3;
/** The read pass's hash lookups running while it reads on: the database probes, the worker reads. */
const LOOKUPS_IN_FLIGHT = 3;
/** Planned removals written per statement while an import is held. */
const PLANNED_REMOVALS_PAGE = 5_000;
/**
 * Lines are read and validated in turns of this long (a turn ends after the line that passes it),
 * then the event loop has one.
 */
const TURN_MS = 10;
/** How often reading a feed asks whether the import was cancelled: one lookup by id. */
const CANCEL_CHECK_MS = 250;

class Cancelled extends Error {}

type Admitted = { line: number; externalId: string; dto: CreateListingDto; hash: Buffer };
/** A known line whose listing a renewing import renews: nothing to validate, one write. */
type Renewal = { line: number; externalId: string; listingId: string; hash: Buffer };
type ChunkProgress = Parameters<ImportsStore['saveChunk']>[2];
/** What a chunk's transaction wrote: the admitted lines' outcomes, the renewed listings' ids. */
type ChunkWrites = { applied: UpsertOutcome[]; renewed: Set<string> };
type PreparedChunk = {
  scope: OwnerScope;
  lines: number;
  nextLine: number;
  results: NewResult[];
  admitted: Admitted[];
  renewals: Renewal[];
};

/**
 * Works one import: reads the whole file first (a file that cannot be read to its end applies
 * nothing), holds a mirror import over its removal limit, then applies the lines in chunks, each
 * chunk's listing writes, results and progress in one transaction, so a resumed import continues
 * after its last commit and never applies a line twice.
 */
@Injectable()
export class ImportRunner {
  private readonly logger = new Logger(ImportRunner.name);
  private readonly config: ImportsConfig;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ImportsStore,
    private readonly listings: ListingsService,
    private readonly listingsStore: ListingsStore,
    private readonly outbox: OutboxService,
    private readonly feeds: ImportFeedSource,
    private readonly metrics: Metrics,
    private readonly reference: ReferenceService,
    private readonly apiLoad: ApiLoad,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    config: ConfigService<AllConfig, true>,
  ) {
    this.config = config.get('imports', { infer: true });
  }

  /**
   * Runs the next import by the claim's fairness order (or only `only`, if it is runnable now);
   * returns its id once it has ended or been held, or undefined when there was none to run.
   */
  async run(only?: string): Promise<string | undefined> {
    const claimed = await this.store.claimNext(this.config.leaseMs, only);
    if (!claimed) return undefined;
    const { claim } = claimed;
    let row = claimed.row;
    try {
      if (row.cancel_requested) throw new Cancelled();
      if (row.source === 'url' && !row.file_key)
        row = await this.keepingLease(claim, () => this.feeds.download(row, claim, this.store));
      const { lines, lastLine, firstLines, known } = await this.readAll(row, claim);
      const planned = await this.store.markPlanned(claim, lines);
      if (!planned) throw new LostClaimError(claim.id);
      // A cancel sent during the read pass ends the import here: it must not be held instead.
      if (planned.cancel_requested) throw new Cancelled();
      if (await this.holdsForRemovals(planned, claim, firstLines, lastLine)) return claim.id;
      let current = await this.applyLines(planned, claim, firstLines, known);
      if (current.mode === 'mirror')
        // Built again rather than kept from the count: held, ~13 MB a million ids would stay
        // through the apply pass, the import's height of memory.
        current = await this.applyRemovals(current, claim, lastLine, firstLines.externalIdsParam());
      await this.settle(claim, current, finalStatus(current));
    } catch (error) {
      await this.ended(error, row, claim);
    }
    return claim.id;
  }

  private async ended(error: unknown, row: ImportRow, claim: Claim): Promise<void> {
    if (error instanceof LostClaimError) return;
    if (error instanceof Cancelled) return void (await this.settle(claim, row, 'cancelled'));
    if (error instanceof FeedError || error instanceof FetchError) {
      const message =
        error instanceof FetchError ? `The feed at sourceUrl: ${error.message}` : error.message;
      const failure: ImportFailure = {
        code: ErrorCode.VALIDATION_ERROR,
        message,
        ...(error instanceof FetchError ? { reason: error.reason } : {}),
      };
      return void (await this.settle(claim, row, 'failed', failure));
    }
    this.logger.error({ err: error, importId: row.id }, 'Import run failed');
    // Claims in a row that committed nothing: a run that made progress starts the count again.
    const attempts = (await this.store.findById(row.id))?.attempts ?? row.attempts;
    if (attempts >= MAX_ATTEMPTS) {
      const failure = {
        code: ErrorCode.SERVER_ERROR,
        message: 'The import stopped on an internal error; what was committed stays applied.',
      };
      return void (await this.settle(claim, row, 'failed', failure));
    }
    throw error; // resumed from its last commit once the lease runs out
  }

  /**
   * The read pass: every line read, the file's externalIds noted, nothing written. Each line's
   * hash is looked up first (a chunk's lookup runs while the next chunk is read): a line found
   * is the one that last wrote or matched its listing, read the same, so it was valid then and
   * is unchanged now, and is never parsed. The others are parsed for their externalId.
   * Known here, a line's no-op takes effect here: a write to its listing after this pass leaves
   * the listing as that write made it, as if the line had been applied before it.
   */
  private async readAll(row: ImportRow, claim: Claim) {
    const scope = this.scopeOf(row);
    const digest = this.reference.digest();
    const firstLines = new FirstLines();
    const known = new KnownLines(firstLines);
    const lookups: { records: FeedRecord[]; found: ReturnType<ImportsStore['linesByHash']> }[] = [];
    // Hashed as each record is read: a chunk of long lines hashed at once would hold the loop.
    const lookUp = (records: FeedRecord[], hashes: Buffer[]) => {
      const found = this.store.linesByHash(this.dataSource.manager, scope, hashes);
      found.catch(() => undefined); // awaited in `noteFirst`; a read error surfaces first
      lookups.push({ records, found });
    };
    const turns = new EventLoopTurns(TURN_MS);
    // Lines are noted in file order: the first line of an externalId is the one that counts.
    const noteFirst = async () => {
      const { records, found } = lookups.shift()!;
      const hits = await found;
      for (const [i, record] of records.entries()) {
        const hit = hits.get(i);
        const externalId = hit ? hit.externalId : externalIdOf(record.read());
        firstLines.note(externalId, record.line);
        // Lines a resumed run has applied already are noted, not kept. Kept after the note:
        // KnownLines keeps the externalId as FirstLines' entry.
        if (hit && record.line > row.next_line) known.set(record.line, hit);
        await turns.maybeYield();
      }
    };
    let lines = 0;
    let lastLine = 0;
    let batch: FeedRecord[] = [];
    let hashes: Buffer[] = [];
    return this.keepingLease(claim, async (stillHeld) => {
      for await (const record of await this.feeds.open(row, this.cancelCheck(row.id))) {
        stillHeld();
        lines++;
        lastLine = record.line;
        batch.push(record);
        hashes.push(lineHash(digest, record.content));
        if (batch.length >= this.config.chunkLines) {
          if (lookups.length >= LOOKUPS_IN_FLIGHT) await noteFirst();
          lookUp(batch, hashes);
          batch = [];
          hashes = [];
        }
      }
      if (batch.length > 0) lookUp(batch, hashes);
      while (lookups.length > 0) await noteFirst();
      // Kept for the rest of the import: without the room left for lines that will not come.
      firstLines.trim();
      known.trim();
      stillHeld();
      return { lines, lastLine, firstLines, known };
    });
  }

  /**
   * A check the feed's reader awaits between its chunks: a cancel ends the import within about
   * CANCEL_CHECK_MS of reading, however long the file or its lines, not only at a commit.
   */
  private cancelCheck(importId: string): () => Promise<void> {
    let checked = performance.now();
    return async () => {
      if (performance.now() - checked < CANCEL_CHECK_MS) return;
      checked = performance.now();
      if (await this.store.cancelRequested(importId)) throw new Cancelled();
    };
  }

  /**
   * Runs work that commits nothing for a while (the download, the read pass) while a timer renews
   * the claim's lease every third of it: no await within the work, however long, lets the lease
   * lapse. `stillHeld` throws once a renewal found the claim lost.
   */
  private async keepingLease<T>(
    claim: Claim,
    work: (stillHeld: () => void) => Promise<T>,
  ): Promise<T> {
    let lost = false;
    const renewal = setInterval(() => {
      this.store.renew(claim, this.config.leaseMs).then(
        (held) => (lost ||= !held),
        () => undefined, // the database is away: the next tick tries again, the lease still runs
      );
    }, this.config.leaseMs * RENEW_AT_LEASE_SHARE);
    try {
      return await work(() => {
        if (lost) throw new LostClaimError(claim.id);
      });
    } finally {
      clearInterval(renewal);
    }
  }

  /** A mirror import that would remove more than its limit waits, held, for confirm or cancel. */
  private async holdsForRemovals(
    row: ImportRow,
    claim: Claim,
    firstLines: FirstLines,
    lastLine: number,
  ): Promise<boolean> {
    if (row.mode !== 'mirror' || row.confirmed || row.next_line > 0) return false;
    const keep = firstLines.externalIdsParam();
    const { removable, removals } = await this.listingsStore.countMirrorRemovals(
      this.dataSource.manager,
      this.scopeOf(row),
      row.planned_snapshot!,
      keep,
    );
    const limitExceeded = removals > removalLimit(row.max_removals, removable);
    await this.store.recordPlan(claim, { plannedRemovals: removals, limitExceeded });
    // A dry run reports what a real run would do, the hold included, and runs on.
    if (!limitExceeded || row.dry_run) return false;
    await this.dataSource.transaction(async (em) => {
      await this.recordPlannedRemovals(em, row, keep, lastLine);
      const held = await this.store.settle(em, claim, {
        status: 'held',
        removalLimitExceeded: true,
        unlessCancelled: true,
      });
      if (held) return this.emit(em, 'import.held', held);
      // A cancel sent while the removals were counted ends the import instead.
      if (await this.store.cancelRequested(row.id)) throw new Cancelled();
      throw new LostClaimError(claim.id);
    });
    return true;
  }

  /** The removals a held import would make, as its results, numbered after its lines. */
  private async recordPlannedRemovals(
    em: EntityManager,
    row: ImportRow,
    keep: Buffer,
    lastLine: number,
  ): Promise<void> {
    const scope = this.scopeOf(row);
    let afterId: string | null = null;
    for (let recorded = 0; ;) {
      const page = await this.listingsStore.lockMirrorRemovals(em, scope, {
        accepted: row.planned_snapshot!,
        keep,
        afterId,
        limit: PLANNED_REMOVALS_PAGE,
        lock: false,
      });
      if (page.length === 0) return;
      await this.store.recordPlannedRemovals(em, row.id, lastLine + 1 + recorded, page);
      recorded += page.length;
      afterId = page[page.length - 1].id;
    }
  }

  /**
   * Applies the lines after the last commit, chunk by chunk. The next chunk is read and
   * validated while the previous one's transaction runs (the worker's CPU and the database's at
   * once); chunks still commit one after another, in order, and at most two are held. A busy
   * database makes the commits wait (ChunkPacer).
   */
  private async applyLines(
    row: ImportRow,
    claim: Claim,
    firstLines: FirstLines,
    known: KnownLines,
  ): Promise<ImportRow> {
    const pacer = this.newPacer();
    let current = row;
    let committing: Promise<ImportRow> | undefined;
    const apply = async (chunk: FeedRecord[]) => {
      const prepared = await this.prepareChunk(row, chunk, firstLines, known);
      if (committing) current = await committing;
      committing = this.commitChunk(current, claim, prepared, pacer);
      // Awaited with the next chunk or at the end; a failure surfaces there, not as unhandled.
      committing.catch(() => undefined);
    };
    try {
      let chunk: FeedRecord[] = [];
      const fill = new ChunkFill(this.config.chunkLines);
      for await (const record of await this.feeds.open(row, this.cancelCheck(row.id))) {
        if (record.line <= row.next_line) continue;
        chunk.push(record);
        const writes = !known.writesNothing(record.line, row.renew);
        if (fill.add(record.content.length, writes)) {
          await apply(chunk);
          chunk = [];
          fill.reset();
        }
      }
      if (chunk.length > 0) await apply(chunk);
    } catch (error) {
      // Nothing is settled while a chunk's transaction is still open.
      await committing?.catch(() => undefined);
      throw error;
    }
    return committing ? await committing : current;
  }

  /**
   * A chunk's outcomes as far as they are known before writing: lines known unchanged in the
   * read pass, failed lines, and the admitted ones (validated as the PUT validates its body).
   */
  private async prepareChunk(
    row: ImportRow,
    chunk: FeedRecord[],
    firstLines: FirstLines,
    known: KnownLines,
  ): Promise<PreparedChunk> {
    const digest = this.reference.digest();
    const results: NewResult[] = [];
    const admitted: Admitted[] = [];
    const renewals: Renewal[] = [];
    const turns = new EventLoopTurns(TURN_MS);
    for (const record of chunk) {
      const hit = known.get(record.line);
      known.delete(record.line); // each line is prepared once
      // A repeated line is found too, and fails in `admit` as the repeat it is.
      if (hit && firstLines.duplicateOf(hit.externalId, record.line) === undefined) {
        // The line matches its listing: a due one is renewed without validating it again.
        if (row.renew && hit.renewalDue)
          renewals.push({ line: record.line, ...hit, hash: lineHash(digest, record.content) });
        else results.push(unchangedResult(record.line, hit.externalId, hit.listingId));
        continue;
      }
      const line = record.read();
      const outcome = await this.admit(line, firstLines);
      if (outcome instanceof DomainError) results.push(failedResult(line, outcome));
      // Hashed again rather than kept from the read pass: a hash a line would cost more memory.
      else admitted.push({ ...outcome, hash: lineHash(digest, record.content) });
      await turns.maybeYield();
    }
    return {
      scope: this.scopeOf(row),
      lines: chunk.length,
      nextLine: chunk[chunk.length - 1].line,
      results,
      admitted,
      renewals,
    };
  }

  /**
   * The chunk's listing writes, results and progress in one transaction. A chunk the database
   * refuses for its data is committed in halves, down to the line it refuses, which fails alone.
   */
  private async commitChunk(
    row: ImportRow,
    claim: Claim,
    prepared: PreparedChunk,
    pacer: ChunkPacer,
  ): Promise<ImportRow> {
    try {
      return await this.commitWhole(row, claim, prepared, pacer);
    } catch (error) {
      if (!isDataError(error) || prepared.admitted.length === 0) throw error;
      if (prepared.admitted.length > 1) {
        const [first, second] = halves(prepared);
        const saved = await this.commitChunk(row, claim, first, pacer);
        return this.commitChunk(saved, claim, second, pacer);
      }
      const [item] = prepared.admitted;
      this.logger.error(
        { err: error, importId: row.id, line: item.line },
        'Import line refused by the database',
      );
      const results = [...prepared.results, refusedResult(item)].sort((a, b) => a.seq - b.seq);
      return this.commitWhole(row, claim, { ...prepared, results, admitted: [] }, pacer);
    }
  }

  private async commitWhole(
    row: ImportRow,
    claim: Claim,
    { scope, lines, nextLine, results, admitted, renewals }: PreparedChunk,
    pacer: ChunkPacer,
  ): Promise<ImportRow> {
    const { leaseMs } = this.config;
    // Built anew by each run of the chunk's transaction: a run PostgreSQL aborted is run again.
    let chunk: ChunkProgress | undefined;
    const progress = ({ applied, renewed }: ChunkWrites) => {
      const all = [
        ...results,
        ...applied.map((outcome, i) => appliedResult(admitted[i], outcome)),
        ...renewals.map((item) => renewalResult(item, renewed)),
      ];
      all.sort((a, b) => a.seq - b.seq);
      return (chunk = { nextLine, processed: lines, tally: tallyOf(all), results: all });
    };
    // The chunk's listing writes: its admitted lines as PUTs, its due known lines renewed.
    const write = async (em: EntityManager): Promise<ChunkWrites> => {
      const applied = await this.listings.upsertBatch(em, scope, admitted, { renew: row.renew });
      const renewed = await this.listings.renewMany(
        em,
        scope,
        renewals.map((item) => item.listingId),
      );
      return { applied, renewed };
    };
    let saved: ImportRow;
    if (admitted.length === 0 && renewals.length === 0) {
      // Nothing to write but the outcomes: one statement, atomic by itself.
      const none = { applied: [], renewed: new Set<string>() };
      saved = await this.store.saveChunk(this.dataSource.manager, claim, progress(none), leaseMs);
    } else if (admitted.length === 0 && !row.dry_run) {
      // Renewals only (a nightly feed's due lines): one statement too, with the renewals' writes
      // and events; it counts each renewed, and tells which were.
      const ids = renewals.map((item) => item.listingId);
      const all = { applied: [], renewed: new Set(ids) };
      const renewing = await this.paced(
        pacer,
        () =>
          retryingConflicts(() =>
            this.store.saveRenewingChunk(claim, progress(all), leaseMs, (params, gate) =>
              this.listings.renewalCtes(params, scope, ids, gate),
            ),
          ),
        () => renewals.length,
      );
      progress({ applied: [], renewed: renewing.renewed }); // the chunk's tally as saved
      saved = renewing.saved;
    } else {
      saved = await this.paced(
        pacer,
        () =>
          retryingConflicts(() =>
            row.dry_run
              ? this.saveDryRun(claim, write, progress)
              : this.dataSource.transaction(async (em) => {
                  await this.outbox.useBulkLane(em);
                  const writes = await write(em);
                  // A renewed listing keeps its hash (LineHashKeptOnRenewal): none stored for it.
                  return this.store.saveChunk(
                    em,
                    claim,
                    progress(writes),
                    leaseMs,
                    matchingHashes(admitted, writes.applied),
                  );
                }),
          ),
        () => admitted.length + renewals.length,
      );
    }
    this.count(chunk!.tally, row.dry_run);
    // A cancel committed before the chunk's progress shows in it; a later one, with the next.
    if (saved.cancel_requested) throw new Cancelled();
    return saved;
  }

  /**
   * Waits as long as the pacer asks while the API is busy, then runs a chunk's writes and times
   * them by the lines they wrote. The wait comes before the next writes, so neither a cancel nor
   * the import's end waits.
   */
  private async paced<T>(
    pacer: ChunkPacer,
    write: () => Promise<T>,
    linesWritten: (result: T) => number,
  ): Promise<T> {
    const wait = pacer.waitMs(performance.now());
    if (wait > 0 && (await this.apiBusy())) {
      this.metrics.importYield.inc(wait / 1000);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const started = performance.now();
    const result = await write();
    const ended = performance.now();
    pacer.record(ended - started, linesWritten(result), ended);
    return result;
  }

  /**
   * Whether a slowed import should give way: only to an API serving requests. The pacer cannot
   * tell the API's load from other work (the relay of the import's own events, another import),
   * and waiting for those helps no request. Unknown (Redis away) counts as busy.
   */
  private async apiBusy(): Promise<boolean> {
    const rate = await this.apiLoad.requestsPerSecond().catch(() => Infinity);
    return rate >= this.config.yieldMinApiRps;
  }

  /** Half-empty chunks go untimed; the longest wait leaves most of the lease to the writes. */
  private newPacer(): ChunkPacer {
    return new ChunkPacer({
      slowdown: this.config.yieldSlowdown,
      minLines: Math.ceil(this.config.chunkLines / 2),
      maxWaitMs: this.config.leaseMs / 4,
    });
  }

  /** A dry run applies the chunk in a transaction it rolls back, then records the outcomes. */
  private async saveDryRun(
    claim: Claim,
    write: (em: EntityManager) => Promise<ChunkWrites>,
    progress: (writes: ChunkWrites) => ChunkProgress,
  ): Promise<ImportRow> {
    const runner = this.dataSource.createQueryRunner();
    let writes: ChunkWrites;
    await runner.connect();
    try {
      await runner.startTransaction();
      writes = await write(runner.manager);
    } finally {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
    const chunk = progress(writes);
    // The ids of listings it would create were rolled back with them: they will never exist.
    for (const result of chunk.results) if (result.outcome === 'created') result.listing_id = null;
    return this.store.saveChunk(this.dataSource.manager, claim, chunk, this.config.leaseMs);
  }

  /**
   * The PUT's own validation of its body, plus the line's own externalId rules: every field error
   * of the line at once (a line repeating an earlier externalId fails for that alone).
   */
  private async admit(
    line: FeedLine,
    firstLines: FirstLines,
  ): Promise<Omit<Admitted, 'hash'> | DomainError> {
    if ('error' in line) return ValidationError.field(line.field ?? 'body', line.error);
    const externalId = externalIdOf(line);
    const idErrors: FieldError[] = [];
    // One present but invalid gets the PUT's own error, from the body's validation below.
    if (line.body.externalId === undefined || line.body.externalId === null) {
      idErrors.push({
        field: 'externalId',
        message: `externalId is required: ${EXTERNAL_ID_RULE}`,
      });
    } else if (typeof externalId === 'string' && EXTERNAL_ID_PATTERN.test(externalId)) {
      const first = firstLines.duplicateOf(externalId, line.line);
      if (first !== undefined)
        return ValidationError.field(
          'externalId',
          `externalId '${externalId}' is a duplicate of line ${first}`,
        );
    }
    try {
      const checked = await checkDto(CreateListingDto, line.body);
      if (idErrors.length === 0 && checked.errors.length === 0)
        return { line: line.line, externalId: externalId!, dto: checked.dto };
      return ValidationError.merged(idErrors, this.listings.bodyErrors(checked))!;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }

  /**
   * Removes what a mirror import's feed no longer lists, in chunks, as the owner's DELETE does
   * (a dry run only records them). Results follow the lines, numbered after `lastLine`, the
   * number of the file's last data line (a line's result is numbered by its line, and blank
   * lines and a CSV header count, so the count of data lines may be lower).
   */
  private async applyRemovals(
    row: ImportRow,
    claim: Claim,
    lastLine: number,
    keep: Buffer,
  ): Promise<ImportRow> {
    const scope = this.scopeOf(row);
    const pacer = this.newPacer();
    let current = row;
    let afterId = await this.store.lastRemoval(row.id);
    for (;;) {
      const chunk = await this.paced(
        pacer,
        () =>
          retryingConflicts(() =>
            this.dataSource.transaction(async (em) => {
              await this.outbox.useBulkLane(em);
              const targets = await this.listingsStore.lockMirrorRemovals(em, scope, {
                accepted: row.planned_snapshot!,
                keep,
                afterId,
                limit: this.config.chunkLines,
                lock: !row.dry_run,
              });
              if (targets.length === 0) return undefined;
              const results: NewResult[] = [];
              for (const [k, target] of targets.entries()) {
                if (!row.dry_run) await this.listings.remove(em, scope, target.id, row.id);
                results.push({
                  seq: lastLine + 1 + current.removed + k,
                  line: null,
                  external_id: target.external_id,
                  outcome: 'removed',
                  listing_id: target.id,
                  error: null,
                });
              }
              const tally = { ...emptyTally(), removed: results.length };
              const saved = await this.store.saveChunk(
                em,
                claim,
                { nextLine: current.next_line, processed: 0, tally, results },
                this.config.leaseMs,
              );
              return { saved, lastId: targets[targets.length - 1].id };
            }),
          ),
        (chunk) => (chunk ? chunk.saved.removed - current.removed : 0),
      );
      if (!chunk) return current;
      // Moved on once committed: a run PostgreSQL aborted is run again from the same place.
      const { saved, lastId } = chunk;
      afterId = lastId;
      this.metrics.importLines.inc(
        { outcome: 'removed', dry_run: String(row.dry_run) },
        saved.removed - current.removed,
      );
      current = saved;
      if (await this.store.cancelRequested(row.id)) throw new Cancelled();
    }
  }

  private async settle(
    claim: Claim,
    row: ImportRow,
    status: ImportStatus,
    error?: ImportFailure,
  ): Promise<void> {
    const settled = await this.dataSource.transaction(async (em) => {
      const done = await this.store.settle(em, claim, { status, error });
      if (done) await this.emit(em, 'import.finished', done);
      return done;
    });
    if (settled?.file_key && status === 'failed' && !settled.lines) {
      await this.storage.deletePrivate(settled.file_key).catch(() => undefined);
    }
  }

  private emit(em: EntityManager, event: 'import.held' | 'import.finished', row: ImportRow) {
    return this.outbox.append(em, importEvent(event, row));
  }

  private count(tally: OutcomeTally, dryRun: boolean): void {
    for (const [outcome, lines] of Object.entries(tally))
      if (lines > 0) this.metrics.importLines.inc({ outcome, dry_run: String(dryRun) }, lines);
  }

  private scopeOf(row: ImportRow): OwnerScope {
    return { accountId: row.account_id, livemode: row.livemode };
  }
}

/**
 * The externalId a line names, read or (from a line that is not JSON) salvaged, as the PUT would
 * take it: in NFC, as every text the API stores. A number is the id its digits spell: such a line
 * fails (externalId is text), and it must protect that listing from a mirror as any failed line.
 */
function externalIdOf(line: FeedLine): string | undefined {
  const id = 'body' in line ? line.body.externalId : line.externalId;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return typeof id === 'string' ? (normalizeText(id) as string) : undefined;
}

function failedResult(line: FeedLine, error: DomainError): NewResult {
  return {
    seq: line.line,
    line: line.line,
    external_id: externalIdOf(line) ?? null,
    outcome: 'failed',
    listing_id: null,
    error: lineError(error),
  };
}

function unchangedResult(line: number, externalId: string, listingId: string): NewResult {
  return {
    seq: line,
    line,
    external_id: externalId,
    outcome: 'unchanged',
    listing_id: listingId,
    error: null,
  };
}

/**
 * The hashes of the lines that now match their listing: those that wrote it, and those found
 * unchanged the long way (a listing written otherwise, or before hashes existed), whose next
 * import is then known at once. Storing one writes no listing and emits nothing.
 */
/** A skipped line did not write its listing (SOLD): its hash would vouch for content it lacks. */
function matchingHashes(admitted: Admitted[], applied: UpsertOutcome[]) {
  return applied.flatMap((outcome, i) =>
    outcome.outcome !== 'failed' && outcome.outcome !== 'skipped'
      ? [{ listingId: outcome.row.id, externalId: admitted[i].externalId, hash: admitted[i].hash }]
      : [],
  );
}

/**
 * A chunk split in two at its middle admitted line: each half with the outcomes known for its
 * lines and its own progress, committed in order.
 */
function halves(chunk: PreparedChunk): [PreparedChunk, PreparedChunk] {
  const middle = chunk.admitted[Math.floor(chunk.admitted.length / 2) - 1].line;
  const part = (inFirst: boolean, nextLine: number): PreparedChunk => {
    const results = chunk.results.filter((r) => r.seq <= middle === inFirst);
    const admitted = chunk.admitted.filter((a) => a.line <= middle === inFirst);
    const renewals = chunk.renewals.filter((r) => r.line <= middle === inFirst);
    const lines = results.length + admitted.length + renewals.length;
    return { ...chunk, lines, nextLine, results, admitted, renewals };
  };
  return [part(true, middle), part(false, chunk.nextLine)];
}

/** A valid line that the database still refused (a fault of ours, logged): it fails alone. */
function refusedResult(item: Admitted): NewResult {
  return {
    seq: item.line,
    line: item.line,
    external_id: item.externalId,
    outcome: 'failed',
    listing_id: null,
    error: {
      code: ErrorCode.SERVER_ERROR,
      message:
        'The database refused this line (a fault of ours, logged); nothing of it was written.',
    },
  };
}

function appliedResult(item: Admitted, applied: UpsertOutcome): NewResult {
  const base = { seq: item.line, line: item.line, external_id: item.externalId };
  if (applied.outcome === 'failed')
    return { ...base, outcome: 'failed', listing_id: null, error: lineError(applied.error) };
  const reason = applied.outcome === 'skipped' ? applied.reason : null;
  return { ...base, outcome: applied.outcome, listing_id: applied.row.id, error: null, reason };
}

/** A due known line: renewed, or unchanged if its listing stopped being due meanwhile. */
function renewalResult(item: Renewal, renewed: Set<string>): NewResult {
  return {
    ...unchangedResult(item.line, item.externalId, item.listingId),
    outcome: renewed.has(item.listingId) ? 'renewed' : 'unchanged',
  };
}

function tallyOf(results: NewResult[]): OutcomeTally {
  const tally = emptyTally();
  for (const { outcome } of results) tally[outcome]++;
  return tally;
}
