import { Injectable, OnModuleInit } from '@nestjs/common';
import type { JobStatus, Queue } from 'bull';
import { Metrics } from '../metrics/metrics';

const JOB_STATES: JobStatus[] = ['waiting', 'active', 'delayed', 'completed', 'failed', 'paused'];

/** Jobs per queue and state, counted in Redis when Prometheus scrapes; features `watch` theirs. */
@Injectable()
export class QueueGauges implements OnModuleInit {
  private readonly queues = new Map<string, Queue>();

  constructor(private readonly metrics: Metrics) {}

  watch(...queues: Queue[]): void {
    for (const queue of queues) this.queues.set(queue.name, queue);
  }

  onModuleInit(): void {
    const watched = this.queues;
    this.metrics.scrapedGauge(
      'queue_jobs',
      'Jobs per queue and state',
      ['queue', 'state'],
      async function () {
        const queues = [...watched.values()];
        // With Redis away the scrape still answers; these keep their last value.
        const counts = await Promise.all(
          queues.map((queue) => queue.getJobCounts().catch(() => undefined)),
        );
        queues.forEach((queue, i) => {
          const count = counts[i] as Partial<Record<JobStatus, number>> | undefined;
          if (!count) return;
          for (const state of JOB_STATES) this.set({ queue: queue.name, state }, count[state] ?? 0);
        });
      },
    );
  }
}
