import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ownerScopeOf } from '../auth/scope';
import { Operation } from '../common/http/operation.decorator';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { Paginated } from '../common/pagination/paginated';
import { ApiIdempotencyKey, IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { sendIdempotent } from '../idempotency/idempotent-response';
import { CreateListingDto } from './dto/create-listing.dto';
import { ListListingsQueryDto } from './dto/list-listings.query.dto';
import { ListingResponse } from './dto/listing.response';
import { UpdateListingDto } from './dto/update-listing.dto';
import { ListingBodyErrors } from './listing-body-errors.interceptor';
import { ListingsService } from './listings.service';

@ApiTags('listings')
@ApiBearerAuth()
@Controller('listings')
export class ListingsController {
  constructor(private readonly listings: ListingsService) {}

  /** The caller's listings of the key's mode; REMOVED ones only with status=REMOVED. */
  @Get()
  @Operation('listListings', 'List listings, a page at a time', { 200: { page: 'Listing' } })
  @Scopes('listings:read')
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListListingsQueryDto,
  ): Promise<Paginated<ListingResponse>> {
    return this.listings.list(ownerScopeOf(principal), query);
  }

  /** Live keys create ACTIVE listings, test keys DRAFT ones. Retries with the same Idempotency-Key replay. */
  @Post()
  @Operation('createListing', 'Create a listing', { 201: { data: 'Listing' } })
  @Scopes('listings:write')
  @UseInterceptors(ListingBodyErrors)
  @ApiIdempotencyKey()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateListingDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ListingResponse> {
    return sendIdempotent(
      res,
      await this.listings.createOne(ownerScopeOf(principal), dto, idempotencyKey),
    );
  }

  /** Creates or updates the listing with this externalId: 201 when created, 200 when updated. */
  @Put('by-external-id/:externalId')
  @Operation('upsertListingByExternalId', 'Create or replace the listing with this externalId', {
    200: { data: 'Listing' },
    201: { data: 'Listing' },
  })
  @Scopes('listings:write')
  @UseInterceptors(ListingBodyErrors)
  async upsert(
    @CurrentPrincipal() principal: Principal,
    @Param('externalId') externalId: string,
    @Body() dto: CreateListingDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ListingResponse> {
    const { created, listing } = await this.listings.upsertByExternalId(
      ownerScopeOf(principal),
      externalId,
      dto,
    );
    res.status(created ? 201 : 200);
    return listing;
  }

  @Get(':id')
  @Operation('getListing', 'Get a listing', { 200: { data: 'Listing' } })
  @Scopes('listings:read')
  get(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
  ): Promise<ListingResponse> {
    return this.listings.get(ownerScopeOf(principal), id);
  }

  @Patch(':id')
  @Operation('updateListing', 'Update some fields of a listing', { 200: { data: 'Listing' } })
  @Scopes('listings:write')
  @UseInterceptors(ListingBodyErrors)
  update(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
    @Body() dto: UpdateListingDto,
  ): Promise<ListingResponse> {
    return this.listings.updateOne(ownerScopeOf(principal), id, dto);
  }

  /** Soft delete: the listing becomes REMOVED and stays readable by id. */
  @Delete(':id')
  @Operation('removeListing', 'Remove a listing (soft delete)', { 200: { data: 'Listing' } })
  @Scopes('listings:write')
  remove(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
  ): Promise<ListingResponse> {
    return this.listings.removeOne(ownerScopeOf(principal), id);
  }

  @Post(':id/sold')
  @Operation('markListingSold', 'Mark a listing sold', { 200: { data: 'Listing' } })
  @HttpCode(200)
  @Scopes('listings:write')
  markSold(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
  ): Promise<ListingResponse> {
    return this.listings.markSoldOne(ownerScopeOf(principal), id);
  }

  @Post(':id/renew')
  @Operation('renewListing', 'Renew an active or expired listing', { 200: { data: 'Listing' } })
  @HttpCode(200)
  @Scopes('listings:write')
  renew(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
  ): Promise<ListingResponse> {
    return this.listings.renewOne(ownerScopeOf(principal), id);
  }
}
