type Waiter = { key: string; grant: () => void };

/**
 * How many image uploads this process reads, parses and decodes at once: at most `slots`, and at
 * most `perKey` for one key (an account), so one integration's burst waits behind itself rather
 * than in front of everyone. A body waiting here is not read yet, so it holds a socket but no memory.
 * Waiters are served in arrival order, passing over those whose key holds its share.
 */
export class UploadGate {
  private held = 0;
  private readonly heldByKey = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly slots: number,
    private readonly perKey: number,
  ) {}

  /** Uploads holding a slot, and those waiting for one (the `image_uploads` gauge). */
  get counts(): { reading: number; waiting: number } {
    return { reading: this.held, waiting: this.waiting.length };
  }

  /**
   * Resolves with the slot's release (idempotent) once granted; rejects if `signal` aborts first,
   * the request gone, leaving the queue as if it had never come.
   */
  enter(key: string, signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { key, grant: () => resolve(this.releaseOf(key)) };
      signal.addEventListener(
        'abort',
        () => {
          const at = this.waiting.indexOf(waiter);
          if (at === -1) return; // granted already: the caller releases
          this.waiting.splice(at, 1);
          reject(signal.reason);
        },
        { once: true },
      );
      this.waiting.push(waiter);
      this.admit();
    });
  }

  private admit(): void {
    for (let i = 0; i < this.waiting.length && this.held < this.slots;) {
      const { key, grant } = this.waiting[i];
      const keyHolds = this.heldByKey.get(key) ?? 0;
      if (keyHolds >= this.perKey) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.held++;
      this.heldByKey.set(key, keyHolds + 1);
      grant();
    }
  }

  private releaseOf(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      const keyHolds = this.heldByKey.get(key)! - 1;
      if (keyHolds === 0) this.heldByKey.delete(key);
      else this.heldByKey.set(key, keyHolds);
      this.admit();
    };
  }
}
