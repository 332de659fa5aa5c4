import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { NotFoundError } from '../common/errors/domain-error';
import { OutboxService } from '../events/outbox.service';
import type { ListingResponse } from '../listings/dto/listing.response';
import type { ListingRow } from '../listings/listing-row';
import { toListingResponse } from '../listings/listing.mapper';
import { ListingsService } from '../listings/listings.service';
import { ListingsStore } from '../listings/listings.store';
import type { AllConfig } from '../platform/config';
import type { FavoritedDto, MessageReceivedDto } from '../listings/dto/listing-activity.dto';
import {
  favorited,
  listingExpired,
  listingUpdated,
  messageReceived,
} from '../listings/listing-activity';

/** What a publish changes on a DRAFT, as its listing.updated event names it. */
export const PUBLISH_CHANGED_FIELDS = ['status', 'publishedAt', 'expiresAt'];

/**
 * The test-mode sandbox: makes happen to a test key's listing what buyers, time and the
 * marketplace make happen to a live one, each change with the event live mode would write, in
 * one transaction. Only ever called with a test-mode scope (TestModeOnlyMiddleware).
 */
@Injectable()
export class TestHelpersService {
  private readonly validityMs: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ListingsStore,
    private readonly listings: ListingsService,
    private readonly outbox: OutboxService,
    config: ConfigService<AllConfig, true>,
  ) {
    this.validityMs = config.get('listings.validityMs', { infer: true });
  }

  /** DRAFT → ACTIVE, as a live create publishes; event listing.updated. */
  publish(scope: OwnerScope, id: string): Promise<ListingResponse> {
    return this.respond(scope, async (em) => {
      const row = await this.store.publishDraft(em, scope, id, this.validityMs);
      if (!row) throw await this.listings.missingOrWrongState(em, scope, id, 'publish');
      await this.outbox.append(em, listingUpdated(row, PUBLISH_CHANGED_FIELDS));
      return row;
    });
  }

  /** ACTIVE → EXPIRED now, as the expiry sweep would; event listing.expired. */
  expire(scope: OwnerScope, id: string): Promise<ListingResponse> {
    return this.respond(scope, async (em) => {
      const row = await this.store.expireNow(em, scope, id);
      if (!row) throw await this.listings.missingOrWrongState(em, scope, id, 'expire');
      await this.outbox.append(em, listingExpired(row));
      return row;
    });
  }

  /** A buyer wrote about an ACTIVE listing; event message.received. The listing is unchanged. */
  message(scope: OwnerScope, id: string, dto: MessageReceivedDto): Promise<ListingResponse> {
    return this.respond(scope, async (em) => {
      const row = await this.lockOwn(em, scope, id);
      await this.outbox.append(em, messageReceived(row, dto));
      return row;
    });
  }

  /** Someone saved an ACTIVE listing; event listing.favorited. The listing is unchanged. */
  favorite(scope: OwnerScope, id: string, dto: FavoritedDto): Promise<ListingResponse> {
    return this.respond(scope, async (em) => {
      const row = await this.lockOwn(em, scope, id);
      await this.outbox.append(em, favorited(row, dto));
      return row;
    });
  }

  /** The scope's listing, locked until the event commits (see messageReceived). */
  private async lockOwn(em: EntityManager, scope: OwnerScope, id: string): Promise<ListingRow> {
    const row = await this.store.find(em, scope, id, true);
    if (!row) throw new NotFoundError('Listing');
    return row;
  }

  private async respond(
    scope: OwnerScope,
    work: (em: EntityManager) => Promise<ListingRow>,
  ): Promise<ListingResponse> {
    // The middleware already answered a live key; this keeps any other caller out of live data.
    if (scope.livemode) throw new NotFoundError('Listing');
    return toListingResponse(await this.dataSource.transaction(work));
  }
}
