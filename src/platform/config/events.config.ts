import { registerAs } from '@nestjs/config';
import { IsDuration, parseDuration } from './config-transforms';
import { validateConfig } from './validate-config';

class EventsEnv {
  @IsDuration() EVENT_RETENTION: string = '30d';
  @IsDuration() DELIVERY_RETENTION: string = '30d';
  @IsDuration() RETENTION_PURGE_EVERY: string = '60s';
}

export interface EventsConfig {
  /** how long GET /events serves an event (and recover can reach back); older ones are purged */
  eventRetentionMs: number;
  /** how long a webhook delivery record (and its attempt log) is kept */
  deliveryRetentionMs: number;
  /** how often the worker looks for events and deliveries past retention */
  purgeEveryMs: number;
}

export const eventsConfig = registerAs('events', (): EventsConfig => {
  const env = validateConfig(process.env, EventsEnv);
  const config = {
    eventRetentionMs: parseDuration(env.EVENT_RETENTION)!,
    deliveryRetentionMs: parseDuration(env.DELIVERY_RETENTION)!,
    purgeEveryMs: parseDuration(env.RETENTION_PURGE_EVERY)!,
  };
  // Recover treats an event with no delivery record as missed: were records purged before their
  // events, it would send again what the receiver already acknowledged.
  if (config.deliveryRetentionMs < config.eventRetentionMs) {
    throw new Error(
      `Invalid configuration:\n  DELIVERY_RETENTION=${JSON.stringify(env.DELIVERY_RETENTION)}: ` +
        `must be at least EVENT_RETENTION (${env.EVENT_RETENTION})`,
    );
  }
  return config;
});
