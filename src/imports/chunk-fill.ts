/** Lines that write nothing ride along up to this many times `chunkLines` lines in a chunk. */
const QUIET_LINES_FACTOR = 10;
/** ... and while the chunk's lines hold less than this (a line may be 256 KiB). */
const QUIET_BYTES = 8 * 1024 * 1024;

/**
 * When a chunk of the apply pass is full. A chunk holds `chunkLines` lines to write (new, changed,
 * renewed, or failing). A line found unchanged by its hash adds only its result row, so such lines
 * ride along, up to ten times as many lines in all: a re-sent feed commits in a tenth of the
 * statements, and a renewing one gathers its renewals (docs/performance.md).
 */
export class ChunkFill {
  private lines = 0;
  private writes = 0;
  private bytes = 0;

  constructor(private readonly chunkLines: number) {}

  /** Adds a line of `bytes`; true once the chunk is full. */
  add(bytes: number, writes: boolean): boolean {
    this.lines++;
    this.bytes += bytes;
    if (writes) this.writes++;
    if (this.writes >= this.chunkLines) return true;
    if (this.lines < this.chunkLines) return false;
    return this.lines >= this.chunkLines * QUIET_LINES_FACTOR || this.bytes >= QUIET_BYTES;
  }

  reset(): void {
    this.lines = this.writes = this.bytes = 0;
  }
}
