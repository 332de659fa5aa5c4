import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Job, Queue } from 'bull';
import type { AllConfig } from '../config';
import { Metrics } from '../metrics/metrics';
import { WebhookAttemptsService } from './webhook-attempts.service';
import {
  DELIVERY_QUEUE,
  DeliveryAttemptError,
  DeliveryJob,
  startProcessing,
} from './webhook-queues';
import { AttemptResult, WebhookSender } from './webhook-sender';

/**
 * One attempt per job run. A failed attempt is recorded, then thrown, so Bull's retry
 * machinery schedules the next one with the backoff the record was given; a last attempt,
 * or one that disabled the endpoint, is discarded so Bull stops.
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);
  private readonly concurrency: number;

  constructor(
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue<DeliveryJob>,
    private readonly deliveries: WebhookAttemptsService,
    private readonly sender: WebhookSender,
    private readonly metrics: Metrics,
    config: ConfigService<AllConfig, true>,
  ) {
    this.concurrency = config.get('webhooks.workerConcurrency', { infer: true });
  }

  onApplicationBootstrap(): void {
    // Not awaited: the loop runs for the life of the process (see startProcessing).
    void startProcessing(this.queue, this.concurrency, (job: Job<DeliveryJob>) =>
      this.process(job),
    );
  }

  async process(job: Job<DeliveryJob>): Promise<void> {
    const { deliveryId, manual } = job.data;
    if (manual) return this.retryManually(deliveryId);
    const target = await this.deliveries.loadTarget(deliveryId);
    if (!target) return; // endpoint deleted, or the delivery already ended
    if (!target.endpointActive) {
      await this.deliveries.endWithoutAttempt(deliveryId, 'Endpoint is disabled');
      return;
    }
    const result = await this.sender.send(target);
    this.countAttempt(result);
    if (result.ok) {
      await this.deliveries.recordSuccess(target, result);
      return;
    }
    const outcome = await this.deliveries.recordFailure(target, result);
    if (outcome.endpointDisabled) this.metrics.endpointsAutoDisabled.inc();
    this.logger.warn(
      { deliveryId, endpointId: target.endpointId, error: result.error, final: outcome.final },
      'Webhook attempt failed',
    );
    if (outcome.final) await job.discard();
    throw new DeliveryAttemptError(result.error ?? 'Delivery failed', outcome.retryDelayMs);
  }

  /**
   * One attempt, whatever the delivery's status; never retried by Bull, never counted toward
   * auto-disable. It is an HTTP attempt all the same, so the metric counts it.
   */
  private async retryManually(deliveryId: string): Promise<void> {
    const target = await this.deliveries.loadTarget(deliveryId, true);
    // Switched off since the retry was asked for: nothing is sent to a disabled endpoint.
    if (!target?.endpointActive) return;
    const result = await this.sender.send(target);
    this.countAttempt(result);
    await this.deliveries.recordManualAttempt(target, result);
  }

  private countAttempt(result: AttemptResult): void {
    this.metrics.deliveryAttempts.inc({ outcome: result.ok ? 'success' : 'failure' });
  }
}
