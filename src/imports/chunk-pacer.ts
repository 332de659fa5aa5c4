/**
 * How much the fastest cost per line drifts up per chunk: a 100,000-line import's cost per line grows
 * about 0.3% a chunk as its indexes grow. So a lasting slowdown becomes the new normal and the
 * import stops waiting: after about 57 chunks of one that doubles the cost, 36 of one of 1.8×.
 */
const DRIFT = 1.005;

/** How long a slowed import waits, in chunk times: the others get two thirds of the time. */
const WAIT_CHUNKS = 2;

/**
 * Keeps an import from crowding out the API on a shared database or host. Two chunks in a row that
 * took `slowdown` times longer per line than the fastest recent one met a busy database (or CPU),
 * so the import then waits twice as long as the last took before the next; one slow chunk alone
 * (a checkpoint, a vacuum) is let pass. Alone, an import never waits. A `slowdown` of 0 never waits.
 */
export class ChunkPacer {
  private fastestMsPerLine = Infinity;
  private lastWasSlow = false;

  constructor(private readonly slowdown: number) {}

  /** The pause in ms before the next chunk's writes, after one of `lines` lines took `tookMs`. */
  pauseAfter(tookMs: number, lines: number): number {
    if (this.slowdown <= 0 || lines === 0) return 0;
    const perLine = tookMs / lines;
    this.fastestMsPerLine = Math.min(this.fastestMsPerLine * DRIFT, perLine);
    const slow = perLine > this.fastestMsPerLine * this.slowdown;
    const pause = slow && this.lastWasSlow ? tookMs * WAIT_CHUNKS : 0;
    this.lastWasSlow = slow;
    return pause;
  }
}
