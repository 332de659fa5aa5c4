import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { randomUUID } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { DataSource, EntityManager } from 'typeorm';
import type { AuditOrigin } from '../audit/audit-entry';
import { AuditService } from '../audit/audit.service';
import type { OwnerScope } from '../auth/scope';
import { NotFoundError, RateLimitedError, ValidationError } from '../common/errors/domain-error';
import { CursorPage } from '../common/pagination/cursor-page';
import { Paginated } from '../common/pagination/paginated';
import { OutboxService } from '../events/outbox.service';
import { requestFingerprint } from '../idempotency/fingerprint';
import { IdempotencyService, IdempotentOutcome } from '../idempotency/idempotency.service';
import type { AllConfig } from '../platform/config';
import { withTimeout } from '../platform/queues/with-timeout';
import type { ImportsConfig } from '../platform/config/imports.config';
import {
  assertPublicLiteral,
  BlockedTargetError,
  hostOf,
} from '../platform/outbound/address-guard';
import { STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import type { CreateImportQueryDto } from './dto/create-import.query.dto';
import type { ImportResponse, ImportResultResponse } from './dto/import.response';
import type { ImportResultsQueryDto } from './dto/import-results.query.dto';
import type { ImportSourceDto } from './dto/import-source.dto';
import type { ListImportsQueryDto } from './dto/list-imports.query.dto';
import { FeedDigest } from './feed/feed-digest';
import { IMPORT_QUEUE, ImportJob, importJobOptions } from './import-queue';
import { importEvent, toImportResponse, toImportResultResponse } from './imports.mapper';
import { ImportFormat, ImportResultRow, ImportRow, ImportsStore, NewImport } from './imports.store';

/** Unfinished (queued, running, held) imports an account may have per mode. */
export const MAX_UNFINISHED_IMPORTS = 5;
/** A refused 6th import's Retry-After: imports take minutes, so a sooner retry would mostly be refused. */
const UNFINISHED_RETRY_AFTER_SECONDS = 60;
/** Results read per query of the NDJSON download: one page of rows held at a time. */
const DOWNLOAD_PAGE_ROWS = 1_000;
/** The request waits this long for Redis at most; the sweep queues an import the enqueue lost. */
const ENQUEUE_TIMEOUT_MS = 2_000;

const FEED_TYPES: Record<string, ImportFormat> = {
  'application/x-ndjson': 'ndjson',
  'text/csv': 'csv',
};
/** The charset a Content-Type declares, as sent (quoted or not). */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/** A feed sent as the request body. */
export interface ImportUpload {
  contentType: string | undefined;
  contentEncoding: string | undefined;
  contentLength: number | undefined;
  body: Readable;
}

/** The imports API: the file is stored before the answer, then a worker runs the import. */
@Injectable()
export class ImportsService {
  private readonly logger = new Logger(ImportsService.name);
  private readonly config: ImportsConfig;
  private readonly allowPrivateTargets: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ImportsStore,
    private readonly idempotency: IdempotencyService,
    private readonly outbox: OutboxService,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    @InjectQueue(IMPORT_QUEUE) private readonly queue: Queue<ImportJob>,
    private readonly audit: AuditService,
    config: ConfigService<AllConfig, true>,
  ) {
    this.config = config.get('imports', { infer: true });
    this.allowPrivateTargets = config.get('outbound.allowPrivateTargets', { infer: true });
  }

  async create(
    scope: OwnerScope,
    query: CreateImportQueryDto,
    source: ImportUpload | ImportSourceDto,
    idempotencyKey?: string,
  ): Promise<IdempotentOutcome<ImportResponse>> {
    if (query.maxRemovals !== undefined && query.mode !== 'mirror')
      throw ValidationError.field('maxRemovals', 'maxRemovals applies to mirror imports only');
    const options = {
      mode: query.mode,
      dryRun: query.dryRun,
      renew: query.renew,
      maxRemovals: query.maxRemovals,
    };
    const { draft, digest } =
      'body' in source
        ? await this.storeUpload(source, idempotencyKey !== undefined)
        : this.fromUrl(source);
    // How the content is read is part of the request: the same bytes as CSV are another request;
    // gzip or not is not (the digest is of the content).
    const fingerprint = () =>
      requestFingerprint('POST /imports', { ...options, format: draft.format, digest });
    const work = async (em: EntityManager) =>
      toImportResponse(
        await this.insert(em, scope, {
          ...draft,
          mode: query.mode,
          dryRun: query.dryRun,
          renew: query.renew,
          maxRemovals: query.maxRemovals ?? null,
        }),
      );
    let outcome: IdempotentOutcome<ImportResponse>;
    try {
      outcome = await this.idempotency.executeIfKeyed(
        scope,
        idempotencyKey,
        fingerprint,
        202,
        work,
      );
    } catch (error) {
      // No import holds the stored file (refused by the limit, the key, the database): drop it.
      await this.dropUpload(draft.fileKey).catch(() => undefined); // the refusal matters more
      throw error;
    }
    const created = outcome.data && !outcome.replayed;
    if (!created) await this.dropUpload(draft.fileKey);
    if (created) await this.enqueue(outcome.data!.id);
    return outcome;
  }

  private async dropUpload(fileKey: string | null): Promise<void> {
    if (fileKey) await this.storage.deletePrivate(fileKey);
  }

  private async insert(em: EntityManager, scope: OwnerScope, draft: NewImport): Promise<ImportRow> {
    const row = await this.store.insertWithinLimit(em, scope, draft, MAX_UNFINISHED_IMPORTS);
    if (!row)
      throw new RateLimitedError(
        UNFINISHED_RETRY_AFTER_SECONDS,
        `${MAX_UNFINISHED_IMPORTS} imports of this mode are unfinished (queued, running or held): ` +
          'wait for one to end, or confirm or cancel a held one.',
      );
    return row;
  }

  /**
   * Streams the body to storage, counting it and, when an Idempotency-Key came with it
   * (`fingerprinted`), hashing its content; nothing of it is held in memory.
   */
  private async storeUpload(upload: ImportUpload, fingerprinted: boolean) {
    const type = (upload.contentType ?? '').split(';')[0].trim().toLowerCase();
    const format = FEED_TYPES[type];
    if (!format) {
      throw ValidationError.field(
        'Content-Type',
        'Send the feed as application/x-ndjson or text/csv, or application/json {sourceUrl, format}.',
      );
    }
    const charset = CHARSET.exec(upload.contentType ?? '')?.[1].toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
      throw ValidationError.field(
        'Content-Type',
        `A feed is read as UTF-8; convert the file from ${charset} to UTF-8 and send it with charset=utf-8 or none.`,
      );
    const encoding = (upload.contentEncoding ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== 'gzip')
      throw ValidationError.field('Content-Encoding', 'Content-Encoding must be gzip or absent.');
    const tooLarge = () =>
      ValidationError.field(
        'body',
        `The file is larger than ${this.config.maxBytes} bytes (IMPORT_MAX_BYTES).`,
      );
    if ((upload.contentLength ?? 0) > this.config.maxBytes) throw tooLarge();
    const gzip = encoding === 'gzip';
    const digest = fingerprinted ? new FeedDigest(gzip, this.config.maxBytes) : undefined;
    let bytes = 0;
    const max = this.config.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > max) return done(tooLarge());
        if (!digest) return done(null, chunk);
        digest.update(chunk).then(() => done(null, chunk), done);
      },
    });
    const fileKey = `imports/${randomUUID()}`;
    upload.body.on('error', (error) => counter.destroy(error));
    try {
      await this.storage.putPrivate(fileKey, upload.body.pipe(counter));
    } catch (error) {
      digest?.discard();
      await this.storage.deletePrivate(fileKey).catch(() => undefined);
      throw error;
    }
    const draft = {
      format,
      source: 'upload' as const,
      sourceUrl: null,
      gzip,
      fileKey,
    };
    return { draft, digest: await digest?.digest() };
  }

  /**
   * A feed URL naming a private address is refused here; a name is resolved when the worker
   * fetches, through the outbound guard, which fails the import if it leads somewhere private.
   */
  private fromUrl(source: ImportSourceDto) {
    if (!this.allowPrivateTargets) {
      try {
        assertPublicLiteral(hostOf(new URL(source.sourceUrl)));
      } catch (error) {
        if (!(error instanceof BlockedTargetError)) throw error;
        throw ValidationError.field('sourceUrl', 'sourceUrl must be a public address.');
      }
    }
    const draft = {
      format: source.format,
      source: 'url' as const,
      sourceUrl: source.sourceUrl,
      gzip: false,
      fileKey: null,
    };
    return { draft, digest: `${source.format} ${source.sourceUrl}` };
  }

  async list(scope: OwnerScope, query: ListImportsQueryDto): Promise<Paginated<ImportResponse>> {
    const [rows, total] = await this.store.page(scope, query);
    return new Paginated(rows.map(toImportResponse), query.page, query.limit, total);
  }

  async get(scope: OwnerScope, id: string): Promise<ImportResponse> {
    return toImportResponse(await this.owned(scope, id));
  }

  async results(
    scope: OwnerScope,
    id: string,
    query: ImportResultsQueryDto,
  ): Promise<CursorPage<ImportResultResponse>> {
    await this.owned(scope, id);
    const rows = await this.store.results(id, {
      afterSeq: Number(query.after ?? 0),
      limit: query.limit + 1,
      outcome: query.outcome,
    });
    const items = rows.slice(0, query.limit);
    return new CursorPage(items.map(toImportResultResponse), {
      limit: query.limit,
      hasMore: rows.length > query.limit,
      nextCursor: items.length > 0 ? String(items[items.length - 1].seq) : null,
    });
  }

  /**
   * Every result the query selects (`outcome`, `after`; not `limit`) as an NDJSON line, in order,
   * read a page at a time as the client takes them.
   */
  async resultLines(
    scope: OwnerScope,
    id: string,
    query: Pick<ImportResultsQueryDto, 'after' | 'outcome'>,
  ): Promise<Readable> {
    await this.owned(scope, id);
    const store = this.store;
    const { outcome } = query;
    async function* lines() {
      let afterSeq = Number(query.after ?? 0);
      for (;;) {
        const limit = DOWNLOAD_PAGE_ROWS;
        const rows: ImportResultRow[] = await store.results(id, { afterSeq, limit, outcome });
        for (const row of rows) yield `${JSON.stringify(toImportResultResponse(row))}\n`;
        if (rows.length < limit) return;
        afterSeq = rows[rows.length - 1].seq;
      }
    }
    return Readable.from(lines());
  }

  /** A queued or held import ends at once; a running one at its next commit or read chunk. */
  async cancel(scope: OwnerScope, id: string, origin: AuditOrigin): Promise<ImportResponse> {
    const row = await this.dataSource.transaction(async (em) => {
      const cancelled = await this.store.cancel(em, scope, id);
      if (cancelled?.status === 'cancelled') {
        await this.outbox.append(em, importEvent('import.finished', cancelled));
      }
      if (cancelled) {
        await this.audit.record(em, {
          ...origin,
          accountId: scope.accountId,
          action: 'import.cancelled',
          target: id,
          // a running import stops at its next commit: asked for, not yet done
          details: { livemode: scope.livemode, stopped: cancelled.status === 'cancelled' },
        });
      }
      return cancelled;
    });
    if (row) {
      if (row.status === 'cancelled') await this.startNext(row);
      return toImportResponse(row);
    }
    const current = await this.owned(scope, id);
    throw ValidationError.field(
      'status',
      `The import is ${current.status}; it can no longer be cancelled.`,
    );
  }

  /** A held import runs in full, removals included. */
  async confirm(scope: OwnerScope, id: string, origin: AuditOrigin): Promise<ImportResponse> {
    const row = await this.dataSource.transaction(async (em) => {
      const confirmed = await this.store.confirm(scope, id, em);
      if (confirmed) {
        await this.audit.record(em, {
          ...origin,
          accountId: scope.accountId,
          action: 'import.confirmed',
          target: id,
          details: { livemode: scope.livemode },
        });
      }
      return confirmed;
    });
    if (!row) {
      const current = await this.owned(scope, id);
      throw ValidationError.field(
        'status',
        `Only a held import can be confirmed; this one is ${current.status}.`,
      );
    }
    await this.enqueue(row.id);
    return toImportResponse(row);
  }

  /** Queues the next import of the same account and mode, if one waits. */
  async startNext(row: ImportRow): Promise<void> {
    const next = await this.store.nextQueued(row.account_id, row.livemode);
    if (next) await this.enqueue(next);
  }

  /** A lost enqueue is not an error: the sweep queues what should be running. */
  async enqueue(importId: string): Promise<void> {
    try {
      await withTimeout(
        this.queue.add({ importId }, importJobOptions(importId)),
        ENQUEUE_TIMEOUT_MS,
      );
    } catch (error) {
      this.logger.warn({ err: error, importId }, 'Queueing the import failed; the sweep will');
    }
  }

  private async owned(scope: OwnerScope, id: string): Promise<ImportRow> {
    const row = await this.store.find(scope, id);
    if (!row) throw new NotFoundError('Import');
    return row;
  }
}
