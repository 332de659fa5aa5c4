import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ownerScopeOf } from '../auth/scope';
import { Operation } from '../common/http/operation.decorator';
import { UuidParam } from '../common/http/uuid-param.decorator';
import type { ListingResponse } from '../listings/dto/listing.response';
import { FavoritedDto, MessageReceivedDto } from '../listings/dto/listing-activity.dto';
import { TestHelpersService } from './test-helpers.service';
import { TEST_HELPERS_PATH } from './test-mode-only.middleware';

/** Test keys only (a live key gets 404 from TestModeOnlyMiddleware). Each answers the listing. */
@ApiTags('test-helpers')
@ApiBearerAuth()
@Controller(`${TEST_HELPERS_PATH}/listings`)
export class TestHelpersController {
  constructor(private readonly helpers: TestHelpersService) {}

  /** DRAFT → ACTIVE, as a live create publishes; still never public. */
  @Post(':id/publish')
  @Operation('testPublishListing', 'Test mode: publish a draft listing', {
    200: { data: 'Listing' },
  })
  @HttpCode(200)
  @Scopes('listings:write')
  publish(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
  ): Promise<ListingResponse> {
    return this.helpers.publish(ownerScopeOf(principal), id);
  }

  /** ACTIVE → EXPIRED now, as the expiry sweep would. */
  @Post(':id/expire')
  @Operation('testExpireListing', 'Test mode: expire an active listing now', {
    200: { data: 'Listing' },
  })
  @HttpCode(200)
  @Scopes('listings:write')
  expire(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
  ): Promise<ListingResponse> {
    return this.helpers.expire(ownerScopeOf(principal), id);
  }

  /** A buyer's message about an ACTIVE listing: event message.received. */
  @Post(':id/messages')
  @Operation('testReceiveMessage', 'Test mode: emit message.received for a listing', {
    200: { data: 'Listing' },
  })
  @HttpCode(200)
  @Scopes('listings:write')
  message(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
    @Body() dto: MessageReceivedDto,
  ): Promise<ListingResponse> {
    return this.helpers.message(ownerScopeOf(principal), id, dto);
  }

  /** Someone saved an ACTIVE listing: event listing.favorited. */
  @Post(':id/favorites')
  @Operation('testFavoriteListing', 'Test mode: emit listing.favorited for a listing', {
    200: { data: 'Listing' },
  })
  @HttpCode(200)
  @Scopes('listings:write')
  favorite(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
    @Body() dto: FavoritedDto,
  ): Promise<ListingResponse> {
    return this.helpers.favorite(ownerScopeOf(principal), id, dto);
  }
}
