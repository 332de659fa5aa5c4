import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { AuditOrigin } from '../../audit/audit-entry';
import { RequestOrigin } from '../../audit/audit-origin.decorator';
import { CurrentPrincipal, Scopes } from '../../auth/auth.decorators';
import type { Principal } from '../../auth/principal';
import { Operation } from '../../common/http/operation.decorator';
import { UuidParam } from '../../common/http/uuid-param.decorator';
import { ApiIdempotencyKey, IdempotencyKey } from '../../idempotency/idempotency-key.decorator';
import { sendIdempotent } from '../../idempotency/idempotent-response';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { RotateSecretDto } from './dto/rotate-secret.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  CreatedWebhookEndpointResponse,
  WebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { toCreatedEndpointResponse, toEndpointResponse } from './webhook-endpoints.mapper';
import { Paginated, wholeList } from '../../common/pagination/paginated';

const ENDPOINT = 'Webhook endpoint';

@ApiTags('webhooks')
@ApiBearerAuth()
@Scopes('webhooks:manage')
@Controller('webhooks')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  /**
   * In the key's mode; at most 5 per account and mode. The answer carries the signing secret: the
   * only time it is shown. A retry with the same Idempotency-Key replays it.
   */
  @Post()
  @Operation('createWebhookEndpoint', 'Register a webhook endpoint (shows its secret once)', {
    201: { data: 'WebhookEndpointWithSecret' },
  })
  @ApiIdempotencyKey()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateWebhookDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<CreatedWebhookEndpointResponse> {
    return sendIdempotent(res, await this.endpoints.create(principal, dto, origin, idempotencyKey));
  }

  /** The account's endpoints in the key's mode, oldest first, without their secrets. */
  @Get()
  @Operation('listWebhookEndpoints', 'List webhook endpoints', { 200: { page: 'WebhookEndpoint' } })
  async list(
    @CurrentPrincipal() principal: Principal,
  ): Promise<Paginated<WebhookEndpointResponse>> {
    return wholeList((await this.endpoints.list(principal)).map(toEndpointResponse));
  }

  /** isActive true re-enables an endpoint and resets its failure count. */
  @Patch(':id')
  @Operation('updateWebhookEndpoint', 'Update or re-enable a webhook endpoint', {
    200: { data: 'WebhookEndpoint' },
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Body() dto: UpdateWebhookDto,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<WebhookEndpointResponse> {
    return toEndpointResponse(await this.endpoints.update(principal, id, dto, origin));
  }

  /** Answers with the deleted endpoint; its delivery history goes with it. */
  @Delete(':id')
  @Operation('deleteWebhookEndpoint', 'Delete a webhook endpoint and its deliveries', {
    200: { data: 'WebhookEndpoint' },
  })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<WebhookEndpointResponse> {
    return toEndpointResponse(await this.endpoints.remove(principal, id, origin));
  }

  /**
   * A new signing secret, shown in this answer only. The current one keeps signing too (after
   * the new one, in both signature headers) for `expireCurrentAfterHours` (default 24), as do up
   * to 2 more replaced earlier whose grace has not ended; 0 ends them all now.
   */
  @Post(':id/rotate-secret')
  @Operation('rotateWebhookSecret', "Rotate a webhook endpoint's signing secret", {
    200: { data: 'WebhookEndpointWithSecret' },
  })
  @HttpCode(200)
  async rotateSecret(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Body() dto: RotateSecretDto,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<CreatedWebhookEndpointResponse> {
    return toCreatedEndpointResponse(
      await this.endpoints.rotateSecret(principal, id, dto.expireCurrentAfterHours, origin),
    );
  }
}
