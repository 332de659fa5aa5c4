import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookDns } from './webhook-dns';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryStore } from './webhook-delivery.store';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointStore } from './webhook-endpoint.store';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookSender } from './webhook-sender';
import { WebhooksController } from './webhooks.controller';

/** The endpoints API and its stores; no queue: the test delivery is sent directly. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint, WebhookDelivery])],
  controllers: [WebhooksController],
  providers: [
    WebhookEndpointsService,
    WebhookEndpointStore,
    WebhookDeliveryStore,
    WebhookDeliveriesService,
    WebhookSender,
    WebhookDns,
  ],
  exports: [WebhookEndpointsService, WebhookEndpointStore, WebhookDeliveryStore, WebhookSender],
})
export class WebhooksModule {}
