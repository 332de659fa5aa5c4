import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { isUniqueViolation } from '../common/db/pg-errors';
import { withSavepoint } from '../common/db/savepoint';
import {
  DomainError,
  FieldError,
  NotFoundError,
  ValidationError,
} from '../common/errors/domain-error';
import type { CheckedDto } from '../common/http/validation.pipe';
import { Paginated } from '../common/pagination/paginated';
import type { AllConfig } from '../platform/config';
import { OutboxService } from '../events/outbox.service';
import { requestFingerprint } from '../idempotency/fingerprint';
import { IdempotencyService, IdempotentOutcome } from '../idempotency/idempotency.service';
import { orderPayloadImages } from './gallery/gallery-order';
import { GalleryStore } from './gallery/gallery.store';
import { IMAGE_PRIORITY, ImagePriority } from './gallery/image-priority';
import { ImageFileCleanup } from '../storage/image-file-cleanup';
import type { CreateListingDto } from './dto/create-listing.dto';
import { EXTERNAL_ID_PATTERN, EXTERNAL_ID_RULE } from './dto/create-listing.dto';
import type { ListListingsQueryDto } from './dto/list-listings.query.dto';
import type { ListingResponse } from './dto/listing.response';
import type { UpdateListingDto } from './dto/update-listing.dto';
import { admitBatch } from './listing-batch';
import { listingChanges } from './listing-changes';
import { contentOf, ListingContent, ListingRow } from './listing-row';
import { listingRef, listingUpdated } from './listing-activity';
import { EDITABLE_STATUSES, ListingStatus, REQUIRED_LISTING_FIELDS } from './listing.constants';
import { renewalDue } from './listing-renewal';
import { toListingResponse } from './listing.mapper';
import { ExternalIdTakenError, WrongStateError } from './listings.errors';
import type { NewListing } from './listing-insert-rows';
import { ListingsStore } from './listings.store';
import { ListingValidator } from './listing-validator';

const EXTERNAL_ID_CONSTRAINT = 'listings_external_id_uq';
/** Concurrent PUTs of one new externalId: all but one lose the insert and retry as updates. */
const UPSERT_ATTEMPTS = 3;

type ImageList = { url: string }[];

const NOTHING_SKIPPED: ReadonlySet<string> = new Set();

/**
 * The PATCH merge: absent keeps, sent replaces, null clears an optional field (attributes to {}).
 * A required field sent as null is named in `errors` and keeps its value, as does every field in
 * `skip` (refused already). Images are not merged here.
 */
export function mergePatchChecked(
  current: ListingContent,
  dto: UpdateListingDto,
  skip: ReadonlySet<string> = NOTHING_SKIPPED,
): { next: ListingContent; errors: FieldError[] } {
  const cleared = REQUIRED_LISTING_FIELDS.filter(
    (field) => dto[field] === null && !skip.has(field),
  );
  const next = { ...current };
  for (const field of Object.keys(current) as (keyof ListingContent)[]) {
    const value = dto[field];
    if (value === undefined || skip.has(field) || (cleared as string[]).includes(field)) continue;
    (next as Record<string, unknown>)[field] =
      value === null ? (field === 'attributes' ? {} : null) : value;
  }
  return { next, errors: cleared.map((field) => ({ field, message: `${field} cannot be null` })) };
}

/** The PUT's path: a valid externalId, and the body's (if sent and well formed) the same. */
function externalIdPathErrors(
  externalId: string,
  dto: Partial<CreateListingDto>,
  skip: ReadonlySet<string> = NOTHING_SKIPPED,
): FieldError[] {
  if (!EXTERNAL_ID_PATTERN.test(externalId)) {
    return [{ field: 'externalId', message: `externalId must be ${EXTERNAL_ID_RULE}` }];
  }
  if (!skip.has('externalId') && dto.externalId != null && dto.externalId !== externalId) {
    return [
      { field: 'externalId', message: 'externalId in the body must match the one in the path' },
    ];
  }
  return [];
}

/**
 * What a PUT by externalId did to one listing of a batch. `restored`: a listing a mirror import
 * removed came back with its id; `skipped`: the listing is SOLD, and a feed that still lists it
 * is not at fault.
 */
export type UpsertOutcome =
  | { outcome: 'created' | 'updated' | 'unchanged' | 'renewed' | 'restored'; row: ListingRow }
  | { outcome: 'skipped'; reason: 'SOLD'; row: ListingRow }
  | { outcome: 'failed'; error: DomainError };

/** A renewal's `changedFields`: an EXPIRED listing also changed its status. */
const renewedFields = (previous: ListingStatus): string[] =>
  previous === 'ACTIVE' ? ['expiresAt'] : ['status', 'expiresAt'];
/** renewedFields by previous status, for the batch renewal's statement. */
const RENEWED_FIELDS = { ACTIVE: renewedFields('ACTIVE'), EXPIRED: renewedFields('EXPIRED') };

/** How a batch treats its listings beyond the PUT's rules (an import's options). */
export interface UpsertOptions {
  /** renew what renewalDue says is due, as POST /listings/:id/renew would */
  renew?: boolean;
}

/**
 * The listing lifecycle, every change with its event. Methods taking `em` first join the
 * caller's transaction and return rows; the others open their own and return API responses.
 */
@Injectable()
export class ListingsService {
  private readonly validityMs: number;
  private readonly restoreWindowMs: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ListingsStore,
    private readonly gallery: GalleryStore,
    private readonly validator: ListingValidator,
    private readonly outbox: OutboxService,
    private readonly idempotency: IdempotencyService,
    private readonly imageFiles: ImageFileCleanup,
    config: ConfigService<AllConfig, true>,
  ) {
    this.validityMs = config.get('listings.validityMs', { infer: true });
    this.restoreWindowMs = config.get('listings.restoreWindowMs', { infer: true });
  }

  /** POST /listings, honouring an optional Idempotency-Key. */
  async createOne(
    scope: OwnerScope,
    dto: CreateListingDto,
    idempotencyKey?: string,
  ): Promise<IdempotentOutcome<ListingResponse>> {
    // Pure input checks run before the key is claimed, so a refused request leaves the key unused;
    // a refusal only the database can give (a taken externalId) is kept with the key.
    const listing = this.prepare(scope, dto);
    const work = async (em: EntityManager) => toListingResponse(await this.insert(em, listing));
    // A create is one statement, atomic by itself: without a key it needs no transaction.
    if (!idempotencyKey)
      return { status: 201, data: await work(this.dataSource.manager), replayed: false };
    const fingerprint = requestFingerprint('POST /listings', dto);
    return this.idempotency.execute(scope, idempotencyKey, fingerprint, 201, work);
  }

  /**
   * Creates the listing, its gallery and its event in one statement, in the caller's transaction
   * if any; a refusal leaves that transaction for the caller to roll back.
   */
  async create(em: EntityManager, scope: OwnerScope, dto: CreateListingDto): Promise<ListingRow> {
    return this.insert(em, this.prepare(scope, dto));
  }

  private async insert(em: EntityManager, listing: NewListing): Promise<ListingRow> {
    try {
      const [row] = await this.store.insertCreated(em, [listing], IMAGE_PRIORITY.request);
      return row;
    } catch (error) {
      throw this.externalIdTaken(error, listing) ?? error;
    }
  }

  /**
   * Bulk create: in input order, each new row or the DomainError that refused it. The first use
   * of an externalId wins; one held by a stored listing makes the batch redo item by item. Its
   * images are processed after those of single requests (bulk and imports alike call this).
   */
  async createMany(
    em: EntityManager,
    scope: OwnerScope,
    dtos: CreateListingDto[],
  ): Promise<(ListingRow | DomainError)[]> {
    const admitted = admitBatch(dtos, (dto) => this.prepare(scope, dto));
    const { pending } = admitted;
    const outcomes: (ListingRow | DomainError)[] = admitted.outcomes;
    if (pending.length === 0) return outcomes;
    try {
      const listings = pending.map((p) => p.listing);
      const rows = await withSavepoint(em, () =>
        this.store.insertCreated(em, listings, IMAGE_PRIORITY.bulk),
      );
      rows.forEach((row, i) => (outcomes[pending[i].index] = row));
    } catch (error) {
      if (!isUniqueViolation(error, EXTERNAL_ID_CONSTRAINT)) throw error;
      for (const { index, listing } of pending) {
        outcomes[index] = await this.insertAlone(em, listing);
      }
    }
    return outcomes;
  }

  /** One listing of a batch in a savepoint of its own: its row, or the refusal of its externalId. */
  private insertAlone(
    em: EntityManager,
    listing: NewListing,
  ): Promise<ListingRow | ExternalIdTakenError> {
    return withSavepoint(em, () =>
      this.store.insertCreated(em, [listing], IMAGE_PRIORITY.bulk),
    ).then(
      ([row]) => row,
      (failure: unknown) => {
        const refusal = this.externalIdTaken(failure, listing);
        if (!refusal) throw failure;
        return refusal;
      },
    );
  }

  /** Validated and ready to insert, or a DomainError thrown. */
  private prepare(scope: OwnerScope, dto: CreateListingDto): NewListing {
    const content = this.contentFromDto(dto);
    this.validator.assertValid(content);
    return this.newListing(scope, content, dto.images);
  }

  private externalIdTaken(error: unknown, listing: NewListing): ExternalIdTakenError | undefined {
    return isUniqueViolation(error, EXTERNAL_ID_CONSTRAINT)
      ? new ExternalIdTakenError(listing.externalId!)
      : undefined;
  }

  private newListing(
    scope: OwnerScope,
    content: ListingContent,
    images: CreateListingDto['images'],
  ): NewListing {
    return {
      ...content,
      scope,
      status: scope.livemode ? 'ACTIVE' : 'DRAFT',
      validityMs: scope.livemode ? this.validityMs : null,
      images: this.imagesFromDto(images) ?? [],
    };
  }

  async get(scope: OwnerScope, id: string): Promise<ListingResponse> {
    const row = await this.store.find(this.dataSource.manager, scope, id);
    if (!row) throw new NotFoundError('Listing');
    return toListingResponse(row);
  }

  async list(scope: OwnerScope, query: ListListingsQueryDto): Promise<Paginated<ListingResponse>> {
    const filter = {
      status: query.status,
      externalId: query.externalId,
      updatedSince: query.updatedSince ? new Date(query.updatedSince) : undefined,
      afterId: query.afterId,
      imageStatus: query.imageStatus,
      sort: query.sort ?? 'newest',
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    };
    // Items as the rows' stored JSON, joined: nothing to parse, map or serialise here.
    const { items, total } = await this.store.page(this.dataSource.manager, scope, filter);
    return new Paginated(items, query.page, query.limit, total);
  }

  /** PATCH /listings/:id. */
  updateOne(scope: OwnerScope, id: string, dto: UpdateListingDto): Promise<ListingResponse> {
    return this.respondInTransaction((em) =>
      this.update(em, scope, id, dto, IMAGE_PRIORITY.request),
    );
  }

  /**
   * PATCH: only the fields sent change; the merged listing is validated as a whole. New images
   * get `priority`: a bulk item's are processed after those of single requests.
   */
  async update(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
    dto: UpdateListingDto,
    priority: ImagePriority,
  ): Promise<ListingRow> {
    const current = await this.store.find(em, scope, id, true);
    if (!current) throw new NotFoundError('Listing');
    this.assertEditable(current, 'update');
    const { next, errors } = mergePatchChecked(contentOf(current), dto);
    // A required field sent as null is named with every error of the rest of the merge.
    if (errors.length > 0) {
      const skip = new Set(errors.map((error) => error.field));
      throw ValidationError.merged(errors, this.validator.check(next, skip))!;
    }
    return this.applyContent(em, scope, current, next, this.imagesFromDto(dto.images), priority);
  }

  /**
   * Every field error of a create or PUT body: `checked`'s shape errors, those of `more` (the
   * caller's own checks), then the reference checks of its well-formed fields. Not merged.
   */
  bodyErrors(checked: CheckedDto<CreateListingDto>, ...more: FieldError[][]): FieldError[] {
    const content = this.contentFromDto(checked.dto);
    return [...checked.errors, ...more.flat(), ...this.validator.check(content, checked.invalid)];
  }

  /** A create body refused for its shape (`checked.errors` not empty), with every other error. */
  bodyError(checked: CheckedDto<CreateListingDto>): ValidationError {
    return ValidationError.merged(this.bodyErrors(checked))!;
  }

  /** `bodyError` for the body of a PUT to this externalId: the path's errors come with it. */
  upsertBodyError(externalId: string, checked: CheckedDto<CreateListingDto>): ValidationError {
    const path = externalIdPathErrors(externalId, checked.dto, checked.invalid);
    return ValidationError.merged(this.bodyErrors(checked, path))!;
  }

  /**
   * PATCH /listings/:id refused for its shape (`checked.errors` not empty), with the checks of
   * the listing it would make, merged from the well-formed fields: every field error in one
   * ValidationError. When the listing is not found or cannot be edited, the shape errors alone:
   * a malformed request is refused as malformed, whether or not its listing exists.
   */
  patchErrorOne(
    scope: OwnerScope,
    id: string,
    checked: CheckedDto<UpdateListingDto>,
  ): Promise<ValidationError> {
    return this.patchError(this.dataSource.manager, scope, { id }, checked);
  }

  /** `patchErrorOne` in the caller's transaction, the listing named by id or externalId. */
  async patchError(
    em: EntityManager,
    scope: OwnerScope,
    target: { id: string } | { externalId: string },
    checked: CheckedDto<UpdateListingDto>,
  ): Promise<ValidationError> {
    const current =
      'id' in target
        ? isUUID(target.id) // anything else names no listing, and must not reach PostgreSQL
          ? await this.store.find(em, scope, target.id)
          : undefined
        : await this.store.findByExternalIdForUpdate(em, scope, target.externalId);
    if (!current || !EDITABLE_STATUSES.includes(current.status))
      return ValidationError.merged(checked.errors)!;
    const { next, errors } = mergePatchChecked(contentOf(current), checked.dto, checked.invalid);
    const skip = new Set([...checked.invalid, ...errors.map((error) => error.field)]);
    return ValidationError.merged(checked.errors, errors, this.validator.check(next, skip))!;
  }

  /** PATCH by the caller's own id (bulk update items may name a listing either way). */
  async updateByExternalId(
    em: EntityManager,
    scope: OwnerScope,
    externalId: string,
    dto: UpdateListingDto,
    priority: ImagePriority,
  ): Promise<ListingRow> {
    const current = await this.store.findByExternalIdForUpdate(em, scope, externalId);
    if (!current) throw new NotFoundError('Listing');
    return this.update(em, scope, current.id, dto, priority);
  }

  /**
   * PUT: a full representation, updating or creating by externalId. Losers of a race on a new
   * externalId roll back to a savepoint and update the winner's row.
   */
  async upsertByExternalId(
    scope: OwnerScope,
    externalId: string,
    dto: CreateListingDto,
  ): Promise<{ created: boolean; listing: ListingResponse }> {
    const pathError = ValidationError.merged(externalIdPathErrors(externalId, dto));
    if (pathError) throw pathError;
    const representation: CreateListingDto = { ...dto, externalId };
    const { created, row } = await this.dataSource.transaction(async (em) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await withSavepoint(em, () =>
            this.upsertOnce(em, scope, externalId, representation),
          );
        } catch (error) {
          if (!(error instanceof ExternalIdTakenError) || attempt >= UPSERT_ATTEMPTS) throw error;
        }
      }
    });
    return { created, listing: toListingResponse(row) };
  }

  private async upsertOnce(
    em: EntityManager,
    scope: OwnerScope,
    externalId: string,
    dto: CreateListingDto,
  ): Promise<{ created: boolean; row: ListingRow }> {
    const current = await this.store.findByExternalIdForUpdate(em, scope, externalId);
    if (!current) {
      const [removed] = await this.store.findRestorableForUpdate(
        em,
        scope,
        [externalId],
        this.restoreWindowMs,
      );
      if (removed)
        return {
          created: false,
          row: await this.restore(em, removed, dto, IMAGE_PRIORITY.request),
        };
      return { created: true, row: await this.create(em, scope, dto) };
    }
    // A stale feed must not resurrect a sold item.
    this.assertEditable(current, 'update');
    const next = this.contentFromDto(dto);
    return {
      created: false,
      row: await this.applyContent(
        em,
        scope,
        current,
        next,
        this.imagesFromDto(dto.images),
        IMAGE_PRIORITY.request,
      ),
    };
  }

  /**
   * PUT by externalId for many listings in the caller's transaction (inventory imports): each
   * item gets the PUT's validation and semantics, and its outcome. An item that changes nothing
   * writes nothing and emits nothing; creates go in one statement, as bulk creates do.
   */
  async upsertBatch(
    em: EntityManager,
    scope: OwnerScope,
    items: { externalId: string; dto: CreateListingDto }[],
    options: UpsertOptions = {},
  ): Promise<UpsertOutcome[]> {
    const existing = await this.store.findByExternalIdsForUpdate(
      em,
      scope,
      items.map((item) => item.externalId),
    );
    const current = new Map(existing.map((row) => [row.external_id, row]));
    const missing = items.filter((item) => !current.has(item.externalId));
    const removed = await this.store.findRestorableForUpdate(
      em,
      scope,
      missing.map((item) => item.externalId),
      this.restoreWindowMs,
    );
    const restorable = new Map(removed.map((row) => [row.external_id, row]));
    const outcomes: UpsertOutcome[] = new Array(items.length);
    const creates: number[] = [];
    for (const [index, { externalId, dto }] of items.entries()) {
      const row = current.get(externalId);
      const gone = restorable.get(externalId);
      restorable.delete(externalId); // a repeated line finds it restored, as a live listing
      if (row)
        outcomes[index] = await this.upsertExisting(
          em,
          scope,
          row,
          { ...dto, externalId },
          options,
        );
      else if (gone) outcomes[index] = await this.restoreItem(em, gone, { ...dto, externalId });
      else creates.push(index);
    }
    const created = await this.createMany(
      em,
      scope,
      creates.map((index) => ({ ...items[index].dto, externalId: items[index].externalId })),
    );
    for (const [k, result] of created.entries()) {
      const { externalId, dto } = items[creates[k]];
      // Created meanwhile by another request (a PUT racing the batch): updated, as the PUT's own
      // retry would update it. The row is committed (the insert waited for it), so it is found.
      const winner =
        result instanceof ExternalIdTakenError
          ? await this.store.findByExternalIdForUpdate(em, scope, externalId)
          : undefined;
      outcomes[creates[k]] = winner
        ? await this.upsertExisting(em, scope, winner, { ...dto, externalId }, options)
        : result instanceof DomainError
          ? { outcome: 'failed', error: result }
          : { outcome: 'created', row: result };
    }
    const renewals = outcomes.flatMap((outcome, index) =>
      outcome.outcome === 'renewed' ? [index] : [],
    );
    await this.renewTogether(em, scope, renewals, outcomes);
    return outcomes;
  }

  /**
   * Every check runs before the first write, so a refusal needs no savepoint. A due renewal
   * (options.renew) is its own write and event after any content change: `renewed` when nothing
   * else changed.
   */
  private async upsertExisting(
    em: EntityManager,
    scope: OwnerScope,
    current: ListingRow,
    dto: CreateListingDto,
    options: UpsertOptions,
  ): Promise<UpsertOutcome> {
    if (current.status === 'SOLD') return { outcome: 'skipped', reason: 'SOLD', row: current };
    try {
      this.assertEditable(current, 'update');
      const next = this.contentFromDto(dto);
      this.validator.assertValid(next);
      const images = this.imagesFromDto(dto.images);
      const changed = listingChanges(current, next, images).changedFields.length > 0;
      const renewing = options.renew === true && renewalDue(current);
      // Renewed only: left to the batch's one statement (renewTogether).
      if (!changed) return { outcome: renewing ? 'renewed' : 'unchanged', row: current };
      let row = await this.applyContent(em, scope, current, next, images, IMAGE_PRIORITY.bulk);
      if (renewing) row = { ...(await this.renew(em, scope, row.id)), images: row.images };
      return { outcome: 'updated', row };
    } catch (error) {
      if (error instanceof DomainError) return { outcome: 'failed', error };
      throw error;
    }
  }

  /**
   * The batch's `renewed` items (due, nothing else changed) and their events in one statement,
   * as POST /listings/:id/renew renews and announces each; their outcomes get the renewed rows.
   */
  private async renewTogether(
    em: EntityManager,
    scope: OwnerScope,
    indexes: number[],
    outcomes: UpsertOutcome[],
  ): Promise<void> {
    const due = indexes.map((index) => outcomes[index] as { row: ListingRow });
    const renewed = await this.renewRows(
      em,
      scope,
      due.map((outcome) => outcome.row.id),
    );
    const byId = new Map(renewed.map((row) => [row.id, row]));
    for (const outcome of due) {
      const row = byId.get(outcome.row.id);
      // Locked by the batch since it was read, still ACTIVE or EXPIRED: always renewed.
      if (!row) throw new Error(`listing ${outcome.row.id} was not renewed`);
      outcome.row = { ...row, images: outcome.row.images };
    }
  }

  /**
   * Renews the scope's listings named (those still ACTIVE or EXPIRED) with renew's event each,
   * all in one statement: a renewing import's due lines. The ids renewed.
   */
  async renewMany(em: EntityManager, scope: OwnerScope, ids: string[]): Promise<Set<string>> {
    return new Set((await this.renewRows(em, scope, ids)).map((row) => row.id));
  }

  /** The events are written by the renewal's own statement, from the rows it renewed. */
  private renewRows(em: EntityManager, scope: OwnerScope, ids: string[]) {
    return this.store.renewMany(em, scope, ids, this.validityMs, RENEWED_FIELDS);
  }

  /**
   * renewMany's writes, events included, as CTEs of another store's statement (see
   * ListingsStore.renewalCtes): a renewing import's chunk that only renews is saved with its
   * progress in one statement. `renewed` holds the rows renewed; nothing is renewed unless the CTE
   * named `gate` yields a row.
   */
  renewalCtes(params: unknown[], scope: OwnerScope, ids: string[], gate: string): string {
    return this.store.renewalCtes(params, {
      scope,
      ids,
      validityMs: this.validityMs,
      changedFields: RENEWED_FIELDS,
      gate,
    });
  }

  /** A batch item naming a listing a mirror import removed: restored, or the item's refusal. */
  private async restoreItem(
    em: EntityManager,
    removed: ListingRow,
    dto: CreateListingDto,
  ): Promise<UpsertOutcome> {
    try {
      return {
        outcome: 'restored',
        row: await this.restore(em, removed, dto, IMAGE_PRIORITY.bulk),
      };
    } catch (error) {
      if (error instanceof DomainError) return { outcome: 'failed', error };
      throw error;
    }
  }

  /**
   * Brings back a listing a mirror import removed, with its id: the content given, its gallery
   * kept unless `images` is given, ACTIVE for 30 days (live) or DRAFT (test); `listing.updated`.
   */
  private async restore(
    em: EntityManager,
    removed: ListingRow,
    dto: CreateListingDto,
    priority: ImagePriority,
  ): Promise<ListingRow> {
    const next = this.contentFromDto(dto);
    this.validator.assertValid(next);
    const images = this.imagesFromDto(dto.images);
    const { changes, gallery, changedFields } = listingChanges(removed, next, images);
    let row: ListingRow | undefined;
    try {
      row = await this.store.restore(em, removed.id, changes, this.validityMs);
    } catch (error) {
      if (isUniqueViolation(error, EXTERNAL_ID_CONSTRAINT))
        throw new ExternalIdTakenError(next.externalId!);
      throw error;
    }
    if (!row) throw new NotFoundError('Listing');
    row = { ...row, images: removed.images };
    if (gallery) {
      const replaced = await this.gallery.replace(em, removed.id, gallery, priority);
      row.images = replaced.gallery;
      await this.imageFiles.deleteAfterCommit(em, replaced.droppedKeys);
    }
    const lifecycle = removed.livemode ? ['status', 'publishedAt', 'expiresAt'] : ['status'];
    await this.emitUpdated(em, row, [...lifecycle, ...changedFields]);
    return row;
  }

  /** DELETE /listings/:id. */
  removeOne(scope: OwnerScope, id: string): Promise<ListingResponse> {
    return this.respondInTransaction((em) => this.remove(em, scope, id));
  }

  /**
   * Locks the listings a batch will write, named by id or externalId, in id order before any is
   * written: batches locking row by row in their items' order deadlock on shared listings.
   * Strings that are not UUIDs or externalIds name no listing and are left out.
   */
  lockInIdOrder(
    em: EntityManager,
    scope: OwnerScope,
    names: { ids: unknown[]; externalIds: unknown[] },
  ): Promise<void> {
    const strings = (values: unknown[]) =>
      values.filter((value): value is string => typeof value === 'string');
    return this.store.lockInIdOrder(em, scope, {
      ids: strings(names.ids).filter((id) => isUUID(id)),
      // Only well-formed ones reach PostgreSQL: one holding U+0000 is that item's error, later.
      externalIds: strings(names.externalIds).filter((id) => EXTERNAL_ID_PATTERN.test(id)),
    });
  }

  /**
   * Soft delete from any state but REMOVED; an already removed listing is not found. `byImport`:
   * the mirror import removing it, so a later line can restore it.
   */
  async remove(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
    byImport: string | null = null,
  ): Promise<ListingRow> {
    const row = await this.store.remove(em, scope, id, byImport);
    if (!row) throw new NotFoundError('Listing');
    return row;
  }

  /** POST /listings/:id/sold. */
  markSoldOne(scope: OwnerScope, id: string): Promise<ListingResponse> {
    return this.respondInTransaction((em) => this.markSold(em, scope, id));
  }

  async markSold(em: EntityManager, scope: OwnerScope, id: string): Promise<ListingRow> {
    const row = await this.store.markSold(em, scope, id);
    if (!row) throw await this.missingOrWrongState(em, scope, id, 'mark as sold');
    await this.outbox.append(em, {
      accountId: scope.accountId,
      event: 'listing.sold',
      data: { ...listingRef(row), soldAt: row.sold_at!.toISOString() },
    });
    return row;
  }

  /** POST /listings/:id/renew. */
  renewOne(scope: OwnerScope, id: string): Promise<ListingResponse> {
    return this.respondInTransaction((em) => this.renew(em, scope, id));
  }

  /** Extends validity from the later of now and the current expiry; an EXPIRED listing is ACTIVE again. */
  async renew(em: EntityManager, scope: OwnerScope, id: string): Promise<ListingRow> {
    const row = await this.store.renew(em, scope, id, this.validityMs);
    if (!row) throw await this.missingOrWrongState(em, scope, id, 'renew');
    await this.emitUpdated(em, row, renewedFields(row.previous_status));
    return row;
  }

  /** Removal by a marketplace administrator, with the reason the owner is told. */
  async adminRemove(id: string, reason: string | null): Promise<ListingResponse> {
    return this.dataSource.transaction(async (tx) => {
      const row = await this.store.removeWithReason(tx, id, reason);
      if (!row) throw new NotFoundError('Listing');
      await this.outbox.append(tx, {
        accountId: row.account_id,
        event: 'listing.removed',
        data: { ...listingRef(row), removedAt: row.removed_at!.toISOString(), reason },
      });
      return toListingResponse(row);
    });
  }

  /** Emits `listing.updated` for a change made elsewhere (images) and bumps updatedAt. */
  async touch(em: EntityManager, row: ListingRow, changedFields: string[]): Promise<void> {
    const updatedAt = await this.store.touch(em, row.id);
    await this.emitUpdated(em, { ...row, updated_at: updatedAt }, changedFields);
  }

  /** Loads a listing for a change and checks it is still editable. */
  async lockEditable(
    em: EntityManager,
    scope: OwnerScope,
    id: string,
    action: string,
  ): Promise<ListingRow> {
    const row = await this.store.find(em, scope, id, true);
    if (!row) throw new NotFoundError('Listing');
    this.assertEditable(row, action);
    return row;
  }

  /** Locks any account's listing for the admin API (events from messaging and favourites). */
  async lockAny(em: EntityManager, id: string): Promise<ListingRow> {
    const row = await this.store.findAnyForUpdate(em, id);
    if (!row) throw new NotFoundError('Listing');
    return row;
  }

  private async applyContent(
    em: EntityManager,
    scope: OwnerScope,
    current: ListingRow,
    next: ListingContent,
    images: ImageList | undefined,
    priority: ImagePriority,
  ): Promise<ListingRow> {
    this.validator.assertValid(next);
    const { changes, gallery, changedFields } = listingChanges(current, next, images);
    // Nothing to change: the listing, its updatedAt and its subscribers are left alone.
    if (changedFields.length === 0) return current;

    // A refusal here leaves the caller's transaction (or bulk item savepoint) to roll back.
    let row: ListingRow;
    try {
      const updated = await this.store.updateContent(em, current.id, changes);
      row = { ...updated, images: current.images };
      if (gallery) {
        const replaced = await this.gallery.replace(em, current.id, gallery, priority);
        row.images = replaced.gallery;
        await this.imageFiles.deleteAfterCommit(em, replaced.droppedKeys);
      }
    } catch (error) {
      if (isUniqueViolation(error, EXTERNAL_ID_CONSTRAINT))
        throw new ExternalIdTakenError(next.externalId!);
      throw error;
    }
    await this.emitUpdated(em, row, changedFields);
    return row;
  }

  private async emitUpdated(
    em: EntityManager,
    row: ListingRow,
    changedFields: string[],
  ): Promise<void> {
    await this.outbox.append(em, listingUpdated(row, changedFields));
  }

  private assertEditable(row: ListingRow, action: string): void {
    if (!EDITABLE_STATUSES.includes(row.status)) throw new WrongStateError(row.status, action);
  }

  /** Why a guarded transition found no row: the listing is missing, or in the wrong state. */
  async missingOrWrongState(em: EntityManager, scope: OwnerScope, id: string, action: string) {
    const row = await this.store.find(em, scope, id);
    return row ? new WrongStateError(row.status, action) : new NotFoundError('Listing');
  }

  private contentFromDto(dto: CreateListingDto): ListingContent {
    return {
      externalId: dto.externalId ?? null,
      title: dto.title,
      description: dto.description,
      price: dto.price,
      condition: dto.condition,
      categorySlug: dto.categorySlug,
      locationLan: dto.locationLan,
      locationKommun: dto.locationKommun,
      phone: dto.phone ?? null,
      attributes: dto.attributes ?? {},
    };
  }

  /** Absent keeps the gallery (undefined); null clears it, like any optional field. */
  private imagesFromDto(images: CreateListingDto['images'] | null): ImageList | undefined {
    if (images === undefined) return undefined;
    return orderPayloadImages(images ?? []).map((image) => ({ url: image.url }));
  }

  private async respondInTransaction(
    work: (em: EntityManager) => Promise<ListingRow>,
  ): Promise<ListingResponse> {
    return toListingResponse(await this.dataSource.transaction(work));
  }
}
