import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ownerScopeOf } from '../auth/scope';
import { Operation } from '../common/http/operation.decorator';
import type { CursorPage } from '../common/pagination/cursor-page';
import { ListEventsQueryDto } from './dto/list-events.query.dto';
import type { EventResponse } from './dto/event.response';
import { EventsFeedService } from './events-feed.service';

@ApiTags('events')
@ApiBearerAuth()
@Controller('events')
export class EventsController {
  constructor(private readonly feed: EventsFeedService) {}

  /**
   * The account's events in the key's mode, oldest first, in commit order: polling with
   * `after` = the last id seen never misses an event. Kept EVENT_RETENTION (30 days by default).
   */
  @Get()
  @Operation('listEvents', 'The event feed, oldest first, by cursor', { 200: { cursor: 'Event' } })
  @Scopes('listings:read')
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListEventsQueryDto,
  ): Promise<CursorPage<EventResponse>> {
    return this.feed.page(ownerScopeOf(principal), query);
  }
}
