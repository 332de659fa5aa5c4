import type { AuditOrigin } from '../../audit/audit-entry';
import { RequestOrigin } from '../../audit/audit-origin.decorator';
import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../../auth/auth.decorators';
import type { Principal } from '../../auth/principal';
import { Operation } from '../../common/http/operation.decorator';
import { UuidParam } from '../../common/http/uuid-param.decorator';
import { Paginated } from '../../common/pagination/paginated';
import { ListDeliveriesQueryDto } from './dto/list-deliveries.query.dto';
import { RecoverDto } from './dto/recover.dto';
import {
  RecoverResponse,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
} from './dto/webhook-delivery.response';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { toDeliveryDetailResponse, toDeliveryResponse } from './webhook-deliveries.mapper';

const ENDPOINT = 'Webhook endpoint';
const DELIVERY = 'Webhook delivery';

@ApiTags('webhooks')
@ApiBearerAuth()
@Scopes('webhooks:manage')
@Controller('webhooks')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  /** Sends one signed `webhook.test` delivery now and answers with its record (no retries). */
  @Post(':id/test')
  @Operation('sendTestWebhook', 'Send a signed webhook.test delivery now', {
    200: { data: 'Delivery' },
  })
  @HttpCode(200)
  async test(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<WebhookDeliveryResponse> {
    return toDeliveryResponse(await this.deliveries.sendTest(principal, id, origin));
  }

  /** The endpoint's deliveries, newest first, optionally only one status or event. */
  @Get(':id/deliveries')
  @Operation('listWebhookDeliveries', "List an endpoint's deliveries, newest first", {
    200: { page: 'Delivery' },
  })
  async history(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<Paginated<WebhookDeliveryResponse>> {
    return (await this.deliveries.history(principal, id, query)).map(toDeliveryResponse);
  }

  /** One delivery with its attempt log. */
  @Get(':id/deliveries/:deliveryId')
  @Operation('getWebhookDelivery', 'Get a delivery with its attempt log', {
    200: { data: 'DeliveryDetail' },
  })
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
  @Operation('retryWebhookDelivery', 'Attempt a delivery once more now', {
    202: { data: 'Delivery' },
  })
  @HttpCode(202)
  async retry(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @UuidParam('deliveryId', DELIVERY) deliveryId: string,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<WebhookDeliveryResponse> {
    return toDeliveryResponse(
      await this.deliveries.requestRetry(principal, id, deliveryId, origin),
    );
  }

  /**
   * Delivers again, on the normal schedule, every event since `since` that the endpoint
   * subscribes to and that has no succeeded (or pending) delivery to it.
   */
  @Post(':id/recover')
  @Operation('recoverWebhookDeliveries', 'Deliver again every event missed since a time', {
    202: { data: 'RecoverResult' },
  })
  @HttpCode(202)
  async recover(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', ENDPOINT) id: string,
    @Body() dto: RecoverDto,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<RecoverResponse> {
    return { queued: await this.deliveries.recover(principal, id, dto.since, origin) };
  }
}
