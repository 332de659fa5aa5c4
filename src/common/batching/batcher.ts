/** Batches calls made while one is in flight (up to `maxBatch`); a lone call runs at once. */
export class Batcher<I, O> {
  private waiting: { item: I; resolve: (out: O) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch: number,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.maxBatch);
    this.inFlight = true;
    // Called later than now, so a throw inside `run` rejects the batch rather than `add`.
    Promise.resolve()
      .then(() => this.run(batch.map((entry) => entry.item)))
      .then(
        (outputs) => batch.forEach((entry, i) => entry.resolve(outputs[i])),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        this.inFlight = false;
        this.flush();
      });
  }
}
