import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CollectFunction,
} from 'prom-client';

/** How long a scrape waits for one gauge's read (Prometheus's default scrape time-out is 10 s). */
export const SCRAPE_READ_MS = 2_000;

/** Own registry (apps sharing a process never clash); labels bounded, never ids or keys. */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly rateLimited = this.counter(
    'http_rate_limited_total',
    'Requests refused with 429 (per-key limits and the failed-authentication guard)',
  );

  readonly authFailures = this.counter(
    'http_auth_failures_total',
    'Requests refused with 401 (missing, unknown or revoked API key; wrong admin token)',
  );

  readonly deliveryAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (success, failure)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly endpointsAutoDisabled = this.counter(
    'webhook_endpoints_auto_disabled_total',
    'Webhook endpoints disabled after too many consecutive failures',
  );

  readonly importLines = new Counter({
    name: 'import_lines_total',
    help: 'Import results by outcome; dry_run="true" for lines of dry runs, which write nothing',
    labelNames: ['outcome', 'dry_run'] as const,
    registers: [this.registry],
  });

  readonly importYield = this.counter(
    'import_yield_seconds_total',
    'Time imports waited between chunks because their database writes had slowed (IMPORT_YIELD_SLOWDOWN)',
  );

  readonly imagesProcessed = new Counter({
    name: 'images_processed_total',
    help: 'Image processing runs by outcome (ready, failed, retry: a transient failure rescheduled)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly imagesFailed = new Counter({
    name: 'images_failed_total',
    help: 'Failures of image processing by reason (including those that will be retried)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly imageFetchDuration = new Histogram({
    name: 'image_fetch_duration_seconds',
    help: 'Getting an image source: a URL fetch or a read from storage, whatever the outcome',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers: [this.registry],
  });

  readonly imageRenderDuration = new Histogram({
    name: 'image_render_duration_seconds',
    help: 'Rendering the three renditions of one image, whatever the outcome',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly listingsExpired = this.counter(
    'listings_expired_total',
    'Listings moved to EXPIRED by this process',
  );

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  /**
   * A gauge whose value is read when Prometheus scrapes (`collect` sets it). A read that has not
   * answered within SCRAPE_READ_MS (Redis away: its client queues commands while it reconnects)
   * leaves the gauge at its last value, so the scrape answers within Prometheus's time-out.
   */
  scrapedGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: CollectFunction<Gauge<L>>,
  ): Gauge<L> {
    return new Gauge({
      name,
      help,
      labelNames,
      collect() {
        return Promise.race([collect.call(this), sleep(SCRAPE_READ_MS, undefined, { ref: false })]);
      },
      registers: [this.registry],
    });
  }
}
