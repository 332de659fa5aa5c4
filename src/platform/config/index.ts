import { AppConfig, appConfig } from './app.config';
import { AuditConfig, auditConfig } from './audit.config';
import { DatabaseConfig, databaseConfig } from './database.config';
import { EventsConfig, eventsConfig } from './events.config';
import { ImagesConfig, imagesConfig } from './images.config';
import { ImportsConfig, importsConfig } from './imports.config';
import { ListingsConfig, listingsConfig } from './listings.config';
import { MetricsConfig, metricsConfig } from './metrics.config';
import { OutboundConfig, outboundConfig } from './outbound.config';
import { RateLimitConfig, rateLimitConfig } from './rate-limit.config';
import { RedisConfig, redisConfig } from './redis.config';
import { StorageConfig, storageConfig } from './storage.config';
import { WebhooksConfig, webhooksConfig } from './webhooks.config';

export interface AllConfig {
  app: AppConfig;
  database: DatabaseConfig;
  redis: RedisConfig;
  listings: ListingsConfig;
  storage: StorageConfig;
  webhooks: WebhooksConfig;
  outbound: OutboundConfig;
  events: EventsConfig;
  imports: ImportsConfig;
  images: ImagesConfig;
  rateLimit: RateLimitConfig;
  metrics: MetricsConfig;
  audit: AuditConfig;
}

export const CONFIG_LOADERS = [
  appConfig,
  databaseConfig,
  redisConfig,
  listingsConfig,
  storageConfig,
  webhooksConfig,
  outboundConfig,
  eventsConfig,
  importsConfig,
  imagesConfig,
  rateLimitConfig,
  metricsConfig,
  auditConfig,
];
