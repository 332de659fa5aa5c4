import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../common/auth/auth.decorators';
import type { Principal } from '../common/auth/principal';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { PageQueryDto } from '../common/pagination/page-query.dto';
import { Paginated } from '../common/pagination/paginated';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  CreatedWebhookEndpointResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
} from './dto/webhook.response';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import {
  toCreatedEndpointResponse,
  toDeliveryResponse,
  toEndpointResponse,
} from './webhooks.mapper';

const ENDPOINT = 'Webhook endpoint';

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

  /** The endpoint's deliveries, newest first. */
  @Get(':id/deliveries')
  async history(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Query() page: PageQueryDto,
  ): Promise<Paginated<WebhookDeliveryResponse>> {
    return (await this.deliveries.history(principal, id, page)).map(toDeliveryResponse);
  }
}
