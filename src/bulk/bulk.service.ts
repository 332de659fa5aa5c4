import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { retryingConflicts } from '../common/db/retry-conflicts';
import { withSavepoint } from '../common/db/savepoint';
import { DomainError, ValidationError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { uuidOrNotFound } from '../common/http/uuid-param.decorator';
import {
  asJsonObject,
  checkDto,
  ShapeValidationError,
  validateDto,
} from '../common/http/validation.pipe';
import { requestFingerprint } from '../idempotency/fingerprint';
import { IdempotencyService, IdempotentOutcome } from '../idempotency/idempotency.service';
import { CreateListingDto } from '../listings/dto/create-listing.dto';
import { UpdateListingDto } from '../listings/dto/update-listing.dto';
import { IMAGE_PRIORITY } from '../listings/gallery/image-priority';
import { ListingsService } from '../listings/listings.service';
import type { BulkVerb } from './bulk.constants';
import type { BulkCreateDto } from './dto/bulk-create.dto';
import type { BulkCreateResponse } from './dto/bulk-create.response';
import type { BulkDeleteResponse } from './dto/bulk-delete.response';
import type { BulkIdsDto } from './dto/bulk-ids.dto';
import type { BulkItemResult } from './dto/bulk-item-result.response';
import type { BulkResult } from './dto/bulk-result.response';
import type { BulkRenewDto } from './dto/bulk-renew.dto';
import type { BulkRenewResponse } from './dto/bulk-renew.response';
import type { BulkSoldResponse } from './dto/bulk-sold.response';
import type { BulkUpdateDto } from './dto/bulk-update.dto';
import type { BulkUpdateResponse } from './dto/bulk-update.response';

/** Runs one item against the request's transaction and names the listing it wrote. */
type ItemWork = (item: unknown, em: EntityManager) => Promise<{ id: string }>;

const LISTING_ID = uuidOrNotFound('Listing');

/** Items run as their single requests would, each in a savepoint of one shared transaction. */
@Injectable()
export class BulkService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly listings: ListingsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Honours an optional Idempotency-Key as POST /listings does; the answer is 200 either way. */
  async create(
    scope: OwnerScope,
    dto: BulkCreateDto,
    idempotencyKey?: string,
  ): Promise<IdempotentOutcome<BulkCreateResponse>> {
    const work = (em: EntityManager) => this.createItems(em, scope, dto.items);
    const fingerprint = () => requestFingerprint('POST /listings/bulk', dto);
    return retryingConflicts(() =>
      this.idempotency.executeIfKeyed(scope, idempotencyKey, fingerprint, 200, work),
    );
  }

  /** Items name their listing by exactly one of `id` or `externalId`; the rest is a PATCH body. */
  update(scope: OwnerScope, dto: BulkUpdateDto): Promise<BulkUpdateResponse> {
    const items = dto.items.map((item) =>
      typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {},
    );
    const names = { ids: items.map((i) => i.id), externalIds: items.map((i) => i.externalId) };
    return this.transaction(scope, names, (em) =>
      this.run(em, 'updated', dto.items, async (item, tx) => {
        const { id, ...patch } = asJsonObject(item);
        if ((id == null) === (patch.externalId == null)) {
          throw ValidationError.field('id', 'Name the listing by exactly one of id or externalId.');
        }
        if (id != null) {
          const target = await this.listingId(id);
          const fields = await this.patchFields(tx, scope, patch, target);
          return this.listings.update(tx, scope, target, fields, IMAGE_PRIORITY.bulk);
        }
        // externalId is checked as the field it also is; equal to the listing's, it changes nothing.
        const fields = await this.patchFields(tx, scope, patch);
        return this.listings.updateByExternalId(
          tx,
          scope,
          fields.externalId!,
          fields,
          IMAGE_PRIORITY.bulk,
        );
      }),
    );
  }

  remove(scope: OwnerScope, dto: BulkIdsDto): Promise<BulkDeleteResponse> {
    return this.transaction(scope, { ids: dto.ids, externalIds: [] }, (em) =>
      this.run(em, 'deleted', dto.ids, async (id, tx) =>
        this.listings.remove(tx, scope, await this.listingId(id)),
      ),
    );
  }

  markSold(scope: OwnerScope, dto: BulkIdsDto): Promise<BulkSoldResponse> {
    return this.transaction(scope, { ids: dto.ids, externalIds: [] }, (em) =>
      this.run(em, 'sold', dto.ids, async (id, tx) =>
        this.listings.markSold(tx, scope, await this.listingId(id)),
      ),
    );
  }

  renew(scope: OwnerScope, dto: BulkRenewDto): Promise<BulkRenewResponse> {
    return this.transaction(scope, { ids: dto.ids, externalIds: [] }, (em) =>
      this.run(em, 'renewed', dto.ids, async (id, tx) =>
        this.listings.renew(tx, scope, await this.listingId(id)),
      ),
    );
  }

  /**
   * A bulk change's transaction: the named listings locked in id order first, then the items
   * one by one; run again if PostgreSQL still broke a deadlock with other writers by aborting it.
   */
  private transaction<T>(
    scope: OwnerScope,
    names: { ids: unknown[]; externalIds: unknown[] },
    work: (em: EntityManager) => Promise<T>,
  ): Promise<T> {
    return retryingConflicts(() =>
      this.dataSource.transaction(async (em) => {
        await this.listings.lockInIdOrder(em, scope, names);
        return work(em);
      }),
    );
  }

  /** Validates each item as POST /listings would, then inserts the valid ones together. */
  private async createItems(
    em: EntityManager,
    scope: OwnerScope,
    items: readonly unknown[],
  ): Promise<BulkCreateResponse> {
    const checked = await Promise.all(
      items.map((item) =>
        validateDto(CreateListingDto, item).catch((error: unknown) => {
          // A shape error comes with the reference checks of the item's well-formed fields.
          const checked = ShapeValidationError.checkedOf(error, CreateListingDto);
          return refusal(checked ? this.listings.bodyError(checked) : error);
        }),
      ),
    );
    const valid = checked.flatMap((c, index) =>
      c instanceof DomainError ? [] : [{ index, dto: c }],
    );
    const created = await this.listings.createMany(
      em,
      scope,
      valid.map((v) => v.dto),
    );
    const createdAt = new Map(valid.map(({ index }, k) => [index, created[k]]));
    return summarize(
      'created',
      checked.map((c, index) => createdAt.get(index) ?? (c as DomainError)),
    );
  }

  /**
   * An update item's fields as PATCH /listings/:id validates them; refused for their shape, with
   * the checks of the listing they would make (named by `id`, else by a well-formed externalId).
   */
  private async patchFields(
    em: EntityManager,
    scope: OwnerScope,
    patch: Record<string, unknown>,
    id?: string,
  ): Promise<UpdateListingDto> {
    const checked = await checkDto(UpdateListingDto, patch);
    if (checked.errors.length === 0) return checked.dto;
    const externalId = checked.invalid.has('externalId') ? undefined : checked.dto.externalId;
    const target = id ? { id } : typeof externalId === 'string' ? { externalId } : undefined;
    throw target
      ? await this.listings.patchError(em, scope, target, checked)
      : ValidationError.merged(checked.errors)!;
  }

  /** The check a path id gets: anything but a UUID names no listing (NOT_FOUND). */
  private async listingId(value: unknown): Promise<string> {
    // Throws NOT_FOUND for a non-string too, so past it the value is a UUID string.
    await LISTING_ID.transform(value, { type: 'custom' });
    return value as string;
  }

  /** A DomainError undoes only its item (its result); anything else fails the whole request. */
  private async run<V extends BulkVerb>(
    em: EntityManager,
    verb: V,
    items: readonly unknown[],
    work: ItemWork,
  ): Promise<BulkResult & Record<V, number>> {
    const outcomes: ItemOutcome[] = [];
    for (const item of items) {
      outcomes.push(
        await withSavepoint(em, () => work(item, em)).catch((error: unknown) => refusal(error)),
      );
    }
    return summarize(verb, outcomes);
  }
}

type ItemOutcome = { id: string } | DomainError;

/** A refusal (a DomainError) is the item's answer; anything else fails the whole request. */
function refusal(error: unknown): DomainError {
  if (!(error instanceof DomainError) || error.code === ErrorCode.SERVER_ERROR) throw error;
  return error;
}

function summarize<V extends BulkVerb>(
  verb: V,
  outcomes: ItemOutcome[],
): BulkResult & Record<V, number> {
  const results: BulkItemResult[] = outcomes.map((outcome, index) => {
    if (!(outcome instanceof DomainError))
      return { index, success: true, data: { id: outcome.id } };
    const { code, message, details } = outcome;
    return { index, success: false, error: { code, message, ...(details && { details }) } };
  });
  const succeeded = results.filter((result) => result.success).length;
  const count = { [verb]: succeeded } as Record<V, number>;
  return { total: outcomes.length, ...count, failed: outcomes.length - succeeded, results };
}
