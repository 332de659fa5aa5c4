import { Body, Controller, Delete, HttpCode, Patch, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ownerScopeOf } from '../auth/scope';
import { Operation } from '../common/http/operation.decorator';
import { ApiIdempotencyKey, IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { sendIdempotent } from '../idempotency/idempotent-response';
import { BulkService } from './bulk.service';
import { BulkCreateDto } from './dto/bulk-create.dto';
import { BulkCreateResponse } from './dto/bulk-create.response';
import { BulkDeleteResponse } from './dto/bulk-delete.response';
import { BulkIdsDto } from './dto/bulk-ids.dto';
import { BulkRenewDto } from './dto/bulk-renew.dto';
import { BulkRenewResponse } from './dto/bulk-renew.response';
import { BulkSoldResponse } from './dto/bulk-sold.response';
import { BulkUpdateDto } from './dto/bulk-update.dto';
import { BulkUpdateResponse } from './dto/bulk-update.response';

/**
 * 1–50 items per request, each succeeding or failing on its own: 200 whenever the request itself
 * is valid, with one result per item in request order.
 */
@ApiTags('bulk')
@ApiBearerAuth()
@Controller('listings/bulk')
export class BulkController {
  constructor(private readonly bulk: BulkService) {}

  /** Creates each item as POST /listings would. Retries with the same Idempotency-Key replay. */
  @Post()
  @Operation('bulkCreateListings', 'Create up to 100 listings, each item on its own', {
    200: { data: 'BulkCreateResult' },
  })
  @HttpCode(200)
  @Scopes('listings:write')
  @ApiIdempotencyKey()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: BulkCreateDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BulkCreateResponse> {
    return sendIdempotent(
      res,
      await this.bulk.create(ownerScopeOf(principal), dto, idempotencyKey),
    );
  }

  /** Updates each item as PATCH /listings/:id would. */
  @Patch()
  @Operation('bulkUpdateListings', 'Update up to 100 listings, each item on its own', {
    200: { data: 'BulkUpdateResult' },
  })
  @Scopes('listings:write')
  update(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: BulkUpdateDto,
  ): Promise<BulkUpdateResponse> {
    return this.bulk.update(ownerScopeOf(principal), dto);
  }

  /** Soft-deletes each listing as DELETE /listings/:id would. */
  @Delete()
  @Operation('bulkRemoveListings', 'Remove up to 100 listings', {
    200: { data: 'BulkRemoveResult' },
  })
  @Scopes('listings:write')
  remove(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: BulkIdsDto,
  ): Promise<BulkDeleteResponse> {
    return this.bulk.remove(ownerScopeOf(principal), dto);
  }

  /** Marks each listing sold as POST /listings/:id/sold would (ACTIVE only). */
  @Post('sold')
  @Operation('bulkMarkListingsSold', 'Mark up to 100 listings sold', {
    200: { data: 'BulkSoldResult' },
  })
  @HttpCode(200)
  @Scopes('listings:write')
  markSold(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: BulkIdsDto,
  ): Promise<BulkSoldResponse> {
    return this.bulk.markSold(ownerScopeOf(principal), dto);
  }

  /** Renews each listing as POST /listings/:id/renew would (ACTIVE or EXPIRED). */
  @Post('renew')
  @Operation('bulkRenewListings', 'Renew up to 50 listings', {
    200: { data: 'BulkRenewResult' },
  })
  @HttpCode(200)
  @Scopes('listings:write')
  renew(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: BulkRenewDto,
  ): Promise<BulkRenewResponse> {
    return this.bulk.renew(ownerScopeOf(principal), dto);
  }
}
