import type { Logger } from '@nestjs/common';

export interface PollingLoopOptions {
  /** false: the first run comes one interval after start(), as with setInterval; default true */
  runAtStart?: boolean;
  /** Lets the process exit while the loop only waits for its next run. */
  unref?: boolean;
}

/**
 * The one timer for periodic work: the next run starts `intervalMs` after one ends, so runs
 * never overlap; `stop()` waits for a run. Failures are logged once per outage (and the
 * recovery once) unless `failure` handles each; `step` gets `stopped` to end a drain early.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;
  /** A wake came during a run: run again right after it. */
  private woken = false;

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs: number,
    /** logged as `<failure>` on the first failure of an outage, or called on every failure */
    private readonly failure: string | ((error: unknown) => void),
    private readonly step: (stopped: () => boolean) => Promise<unknown>,
    private readonly options: PollingLoopOptions = {},
  ) {}

  start(): void {
    this.schedule(this.options.runAtStart === false ? this.intervalMs : 0);
  }

  /** Runs the step now rather than at the end of the interval; during a run, again right after. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.woken = true;
      return;
    }
    clearTimeout(this.timer);
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule(this.woken ? 0 : this.intervalMs);
        this.woken = false;
      });
    }, delayMs);
    if (this.options.unref) this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.step(() => this.stopped);
      if (this.failing) this.logger.log('Recovered');
      this.failing = false;
    } catch (error) {
      if (typeof this.failure === 'function') return this.failure(error);
      if (!this.failing) this.logger.warn({ err: error }, this.failure);
      this.failing = true;
    }
  }
}
