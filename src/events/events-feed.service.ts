import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { OwnerScope } from '../auth/scope';
import { ValidationError } from '../common/errors/domain-error';
import { CursorPage } from '../common/pagination/cursor-page';
import type { AllConfig } from '../platform/config';
import type { ListEventsQueryDto } from './dto/list-events.query.dto';
import type { EventResponse } from './dto/event.response';
import { OutboxStore } from './outbox.store';

/** Serves positioned events only: a page never shows an event a concurrent commit could precede. */
@Injectable()
export class EventsFeedService {
  private readonly retentionMs: number;

  constructor(
    private readonly outbox: OutboxStore,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retentionMs = config.get('events.eventRetentionMs', { infer: true });
  }

  async page(scope: OwnerScope, query: ListEventsQueryDto): Promise<CursorPage<EventResponse>> {
    const page = await this.outbox.feedPage(scope, {
      after: query.after,
      limit: query.limit,
      types: query.types,
      listingId: query.listingId,
      retentionMs: this.retentionMs,
    });
    if (!page) {
      throw ValidationError.field(
        'after',
        'after is not an event of this account and mode within the retention period; ' +
          're-synchronise with GET /v1/listings?updatedSince and continue from the oldest event',
      );
    }
    const { items, hasMore, nextCursor } = page;
    return new CursorPage(items, { limit: query.limit, hasMore, nextCursor });
  }
}
