import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveriesService } from './deliveries/webhook-deliveries.service';
import { WebhookDelivery } from './deliveries/webhook-delivery.entity';
import { WebhookDeliveryStore } from './deliveries/webhook-delivery.store';
import { WebhookEndpoint } from './endpoints/webhook-endpoint.entity';
import { WebhookEndpointStore } from './endpoints/webhook-endpoint.store';
import { WebhookEndpointsService } from './endpoints/webhook-endpoints.service';
import { WebhookSender } from './transport/webhook-sender';
import { WebhookDeliveriesController } from './deliveries/webhook-deliveries.controller';
import { WebhookEndpointsController } from './endpoints/webhook-endpoints.controller';
import { AuditModule } from '../audit/audit.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import type { AllConfig } from '../platform/config';
import { OutboundDns } from '../platform/outbound/outbound-dns';

/** The endpoints API and its stores; no queue: the test delivery is sent directly. */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpoint, WebhookDelivery]),
    IdempotencyModule,
    AuditModule,
  ],
  controllers: [WebhookEndpointsController, WebhookDeliveriesController],
  providers: [
    WebhookEndpointsService,
    WebhookEndpointStore,
    WebhookDeliveryStore,
    WebhookDeliveriesService,
    WebhookSender,
    {
      provide: OutboundDns,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) =>
        new OutboundDns(config.get('webhooks.dnsTimeoutMs', { infer: true })),
    },
  ],
  exports: [
    WebhookEndpointsService,
    WebhookDeliveriesService,
    WebhookEndpointStore,
    WebhookDeliveryStore,
    WebhookSender,
  ],
})
export class WebhooksModule {}
