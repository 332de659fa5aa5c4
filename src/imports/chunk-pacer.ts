/**
 * How much the fastest cost per line drifts up per chunk: faster than a large import's own cost
 * grows with its indexes (about 0.3% a chunk, measured on 100,000 lines), so that a lasting
 * slowdown becomes the new normal and the import stops waiting ("How an import gives way" in
 * docs/performance.md).
 */
const DRIFT = 1.005;
/** How long a slowed import waits, in chunk times: the others get two thirds of the time. */
const WAIT_CHUNKS = 2;
/**
 * Chunks that wait after the two slow ones before the import judges again. A chunk right after a
 * wait finds the worker idle (it prepared the next chunk meanwhile) and looks fast even while the
 * database is still busy with others, so judging it would end the waiting at once. The first
 * chunk judged after the hold is such a chunk too: under lasting contention one chunk in six
 * goes on without waiting, and the next two slow ones start the hold again.
 */
const HOLD_CHUNKS = 4;

export interface PacerOptions {
  /** this many times the fastest cost per line is slow; 0 never waits */
  slowdown: number;
  /** chunks writing fewer lines are not timed: their fixed costs would look slow */
  minLines: number;
  /** the longest wait, well inside the import's lease */
  maxWaitMs: number;
}

/**
 * Keeps an import from crowding out the API on a shared database or host. Two chunks in a row whose
 * writes took `slowdown` times longer per line than the fastest recent one met a busy database
 * (or CPU), so the import waits twice as long as the last took before its next writes, and so
 * after each of the next HOLD_CHUNKS; one slow chunk alone (a checkpoint, a vacuum) is let pass.
 * On an otherwise idle database an import never waits. The slowdown cannot tell the API from
 * other work (the relay of the import's own events): the runner also asks whether the API is busy.
 */
export class ChunkPacer {
  private fastestMsPerLine = Infinity;
  private lastWasSlow = false;
  private holding = 0;
  private resumeAt = 0;

  constructor(private readonly options: PacerOptions) {}

  /** How long to wait at `now` before the next chunk's writes. */
  waitMs(now: number): number {
    return Math.max(0, this.resumeAt - now);
  }

  /** Records a chunk's writes of `lines` lines that took `tookMs` and ended at `now`. */
  record(tookMs: number, lines: number, now: number): void {
    const { slowdown, minLines, maxWaitMs } = this.options;
    if (slowdown <= 0 || lines < minLines || lines === 0) return;
    const perLine = tookMs / lines;
    this.fastestMsPerLine = Math.min(this.fastestMsPerLine * DRIFT, perLine);
    const slow = perLine > this.fastestMsPerLine * slowdown;
    const contended = this.holding > 0 || (slow && this.lastWasSlow);
    if (contended) this.resumeAt = now + Math.min(tookMs * WAIT_CHUNKS, maxWaitMs);
    if (this.holding > 0) this.holding--;
    else if (contended) this.holding = HOLD_CHUNKS;
    this.lastWasSlow = slow && !contended;
  }
}
