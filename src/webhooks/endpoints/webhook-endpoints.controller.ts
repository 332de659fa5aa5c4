import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../../auth/auth.decorators';
import type { Principal } from '../../auth/principal';
import { UuidParam } from '../../common/http/uuid-param.decorator';
import { Paginated } from '../../common/pagination/paginated';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { ListDeliveriesQueryDto } from '../deliveries/dto/list-deliveries.query.dto';
import { RecoverDto } from '../deliveries/dto/recover.dto';
import { RotateSecretDto } from './dto/rotate-secret.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  CreatedWebhookEndpointResponse,
  RecoverResponse,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
import { WebhookDeliveriesService } from '../deliveries/webhook-deliveries.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import {
  toCreatedEndpointResponse,
  toDeliveryDetailResponse,
  toDeliveryResponse,
  toEndpointResponse,
} from './webhook-endpoints.mapper';

const ENDPOINT = 'Webhook endpoint';
const DELIVERY = 'Webhook delivery';

@ApiTags('webhooks')
@ApiBearerAuth()
@Scopes('webhooks:manage')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  /** In the key's mode; at most 5 per account, both modes counted. The answer carries the signing secret: the only time it is shown. */
  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateWebhookDto,
  ): Promise<CreatedWebhookEndpointResponse> {
    return toCreatedEndpointResponse(await this.endpoints.create(principal, dto));
  }

  /** The account's endpoints in the key's mode, oldest first, without their secrets. */
  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<WebhookEndpointResponse[]> {
    return (await this.endpoints.list(principal)).map(toEndpointResponse);
  }

  /** isActive true re-enables an endpoint and resets its failure count. */
  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Body() dto: UpdateWebhookDto,
  ): Promise<WebhookEndpointResponse> {
    return toEndpointResponse(await this.endpoints.update(principal, id, dto));
  }

  /** Answers with the deleted endpoint; its delivery history goes with it. */
  @Delete(':id')
  async remove(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
  ): Promise<WebhookEndpointResponse> {
    return toEndpointResponse(await this.endpoints.remove(principal, id));
  }

  /** Sends one signed `webhook.test` delivery now and answers with its record (no retries). */
  @Post(':id/test')
  @HttpCode(200)
  async test(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
  ): Promise<WebhookDeliveryResponse> {
    return toDeliveryResponse(await this.deliveries.sendTest(principal, id));
  }

  /** The endpoint's deliveries, newest first, optionally only one status or event. */
  @Get(':id/deliveries')
  async history(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<Paginated<WebhookDeliveryResponse>> {
    return (await this.deliveries.history(principal, id, query)).map(toDeliveryResponse);
  }

  /** One delivery with its attempt log. */
  @Get(':id/deliveries/:deliveryId')
  @ApiOkResponse({ type: WebhookDeliveryDetailResponse })
  async delivery(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @UuidParam('deliveryId', DELIVERY) deliveryId: string,
  ): Promise<WebhookDeliveryDetailResponse> {
    const { delivery, attempts } = await this.deliveries.detail(principal, id, deliveryId);
    return toDeliveryDetailResponse(delivery, attempts);
  }

  /**
   * One more attempt now, whatever the status: same deliveryId and body, fresh timestamp and
   * signature; not counted toward auto-disable. 400 on isActive while the endpoint is disabled.
   */
  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: WebhookDeliveryResponse })
  async retry(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @UuidParam('deliveryId', DELIVERY) deliveryId: string,
  ): Promise<WebhookDeliveryResponse> {
    return toDeliveryResponse(await this.deliveries.requestRetry(principal, id, deliveryId));
  }

  /**
   * Delivers again, on the normal schedule, every event since `since` that the endpoint
   * subscribes to and that has no succeeded (or pending) delivery to it.
   */
  @Post(':id/recover')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: RecoverResponse })
  async recover(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Body() dto: RecoverDto,
  ): Promise<RecoverResponse> {
    return { queued: await this.deliveries.recover(principal, id, dto.since) };
  }

  /**
   * A new signing secret, shown in this answer only. The current one keeps signing too (after
   * the new one, in both signature headers) for `expireCurrentAfterHours` (default 24, 0 = now).
   */
  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOkResponse({ type: CreatedWebhookEndpointResponse })
  async rotateSecret(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Body() dto: RotateSecretDto,
  ): Promise<CreatedWebhookEndpointResponse> {
    return toCreatedEndpointResponse(
      await this.endpoints.rotateSecret(principal, id, dto.expireCurrentAfterHours),
    );
  }
}
