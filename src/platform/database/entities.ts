import { Account } from '../../accounts/account.entity';
import { ApiKey } from '../../accounts/api-key.entity';
import { CategoryRow, KommunRow, LanRow } from '../../reference/reference.entities';
import { WebhookDelivery } from '../../webhooks/deliveries/webhook-delivery.entity';
import { WebhookEndpoint } from '../../webhooks/endpoints/webhook-endpoint.entity';

export const ENTITIES = [
  Account,
  ApiKey,
  LanRow,
  KommunRow,
  CategoryRow,
  WebhookEndpoint,
  WebhookDelivery,
];
