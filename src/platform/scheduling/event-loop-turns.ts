import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Gives the event loop a turn once a loop of synchronous work has run `everyMs` since the last:
 * in a process that also serves the API (PROCESS_ROLE=all), requests and timers wait no longer.
 */
export class EventLoopTurns {
  private since = performance.now();

  constructor(private readonly everyMs: number) {}

  /** Call between items of the work; resolves at once while the turn is young. */
  async maybeYield(): Promise<void> {
    if (performance.now() - this.since < this.everyMs) return;
    await nextTurn();
    this.since = performance.now();
  }
}
