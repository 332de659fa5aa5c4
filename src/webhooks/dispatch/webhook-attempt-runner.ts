import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import pLimit, { type Limit } from 'p-limit';
import type { EventLane } from '../../events/event-lane';
import type { AllConfig } from '../../platform/config';
import { Metrics } from '../../platform/metrics/metrics';
import { WebhookAttemptsService } from './webhook-attempts.service';
import { AttemptResult, WebhookSender } from '../transport/webhook-sender';

/** What a scheduled attempt did; `failed` carries what Bull needs to schedule the next one. */
export type AttemptOutcome =
  { failed: false } | { failed: true; error: string; final: boolean; retryDelayMs?: number };

/** One HTTP attempt and its bookkeeping: fan-out makes the first, delivery jobs the rest. */
@Injectable()
export class WebhookAttemptRunner {
  private readonly logger = new Logger(WebhookAttemptRunner.name);
  /**
   * Per worker and lane across all jobs, so a bulk backlog never holds the slot an interactive
   * request waits for; a request waiting its turn has not started its time-out.
   */
  private readonly sending: Record<EventLane, Limit>;

  constructor(
    private readonly deliveries: WebhookAttemptsService,
    private readonly sender: WebhookSender,
    private readonly metrics: Metrics,
    config: ConfigService<AllConfig, true>,
  ) {
    const concurrency = config.get('webhooks.workerConcurrency', { infer: true });
    this.sending = { interactive: pLimit(concurrency), bulk: pLimit(concurrency) };
  }

  /** A scheduled attempt: nothing is sent for a delivery that already ended or a disabled endpoint. */
  async attemptScheduled(deliveryId: string, lane: EventLane): Promise<AttemptOutcome> {
    const target = await this.deliveries.loadTarget(deliveryId);
    if (!target) return { failed: false }; // endpoint deleted, or the delivery already ended
    if (!target.endpointActive) {
      await this.deliveries.endWithoutAttempt(deliveryId, 'Endpoint is disabled');
      return { failed: false };
    }
    const result = await this.sending[lane](() => this.sender.send(target));
    this.countAttempt(result);
    if (result.ok) {
      await this.deliveries.recordSuccess(target, result);
      return { failed: false };
    }
    const outcome = await this.deliveries.recordFailure(target, result);
    if (outcome.endpointDisabled) this.metrics.endpointsAutoDisabled.inc();
    this.logger.warn(
      { deliveryId, endpointId: target.endpointId, error: result.error, final: outcome.final },
      'Webhook attempt failed',
    );
    return {
      failed: true,
      error: result.error ?? 'Delivery failed',
      final: outcome.final,
      retryDelayMs: outcome.retryDelayMs,
    };
  }

  /** Any status; never retried or counted toward auto-disable, but counted as an HTTP attempt. */
  async attemptManually(deliveryId: string): Promise<void> {
    const target = await this.deliveries.loadTarget(deliveryId, true);
    // Switched off since the retry was asked for: nothing is sent to a disabled endpoint.
    if (!target?.endpointActive) return;
    const result = await this.sending.interactive(() => this.sender.send(target));
    this.countAttempt(result);
    await this.deliveries.recordManualAttempt(target, result);
  }

  private countAttempt(result: AttemptResult): void {
    this.metrics.deliveryAttempts.inc({ outcome: result.ok ? 'success' : 'failure' });
  }
}
