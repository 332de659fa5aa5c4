import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { Batcher } from '../../common/batching/batcher';
import type { AllConfig } from '../../platform/config';
import { DeliveryTarget, WebhookDeliveryStore } from '../deliveries/webhook-delivery.store';
import { WebhookEndpointStore } from '../endpoints/webhook-endpoint.store';
import type { AttemptResult } from '../transport/webhook-sender';

/** The most scheduled attempts whose target lookups, or whose successes, share one statement. */
const BATCH_SIZE = 100;

export interface FailureOutcome {
  /** no further attempt: the schedule is used up or the endpoint is paused or disabled */
  final: boolean;
  retryDelayMs?: number;
  /** this failure was the one that disabled the endpoint */
  endpointDisabled?: boolean;
}

/** What to send, and what each attempt did to the delivery and to the endpoint. */
@Injectable()
export class WebhookAttemptsService {
  private readonly retryDelaysMs: number[];
  private readonly targets = new Batcher(
    (deliveryIds: string[]) => this.store.loadPendingTargets(deliveryIds),
    BATCH_SIZE,
  );
  private readonly successes = new Batcher(
    async (successes: { target: DeliveryTarget; result: AttemptResult }[]) => {
      await this.store.recordSuccesses(successes);
      return successes.map(() => undefined);
    },
    BATCH_SIZE,
  );

  constructor(
    private readonly store: WebhookDeliveryStore,
    private readonly endpoints: WebhookEndpointStore,
    private readonly dataSource: DataSource,
    config: ConfigService<AllConfig, true>,
  ) {
    this.retryDelaysMs = config.get('webhooks.retryDelaysMs', { infer: true });
  }

  get maxAttempts(): number {
    return this.retryDelaysMs.length + 1;
  }

  /** undefined when nothing is left to attempt; concurrent lookups share a statement (Batcher). */
  loadTarget(deliveryId: string, anyStatus = false): Promise<DeliveryTarget | undefined> {
    return anyStatus ? this.store.loadTarget(deliveryId, true) : this.targets.add(deliveryId);
  }

  /** Resolves once the success is recorded; successes arriving together share one statement. */
  recordSuccess(target: DeliveryTarget, result: AttemptResult): Promise<void> {
    return this.successes.add({ target, result });
  }

  recordManualAttempt(target: DeliveryTarget, result: AttemptResult): Promise<void> {
    return this.store.recordManualAttempt(target, result);
  }

  endWithoutAttempt(deliveryId: string, reason: string): Promise<void> {
    return this.store.endWithoutAttempt(deliveryId, reason);
  }

  /**
   * Extends the endpoint's failure streak and schedules the next attempt or fails the delivery.
   * Only a delivery that used up its schedule, with no success to the endpoint since, disables it.
   */
  async recordFailure(target: DeliveryTarget, result: AttemptResult): Promise<FailureOutcome> {
    return this.dataSource.transaction(async (em) => {
      // Locks the endpoint row: concurrent failures against it take turns, each counted once.
      // Not counted: someone paused or it was disabled meanwhile; nothing more is sent.
      const endpointActive = await this.endpoints.countFailure(em, target.endpointId);
      const delivery = await this.store.recordFailedAttempt(em, target, result, {
        endpointActive,
        maxAttempts: this.maxAttempts,
        retryDelaysMs: this.retryDelaysMs,
      });
      if (!delivery) return { final: true };
      if (delivery.status === 'pending') {
        return { final: false, retryDelayMs: this.retryDelaysMs[delivery.attempts - 1] };
      }
      const endpointDisabled =
        endpointActive &&
        delivery.attempts >= this.maxAttempts &&
        (await this.endpoints.disableUnlessDeliveredSince(
          em,
          target.endpointId,
          delivery.first_attempt_at,
        ));
      // Nothing more is sent to a disabled endpoint: what it is still owed ends as failed.
      if (endpointDisabled) await this.store.endPendingOfDisabledEndpoint(em, target.endpointId);
      return { final: true, endpointDisabled };
    });
  }
}
