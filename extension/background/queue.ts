// Concurrency of the executor (docs/extension.md): one submission at a time per worker, unrelated workers in
// parallel. The limit of tabs generating at once is the host's to keep (docs/host.md, "Tab slots"); here they are
// only counted.

/** Runs tasks one after another per key; different keys run concurrently. */
export class SerialQueues {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly depth = new Map<string, number>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    this.depth.set(key, (this.depth.get(key) ?? 0) + 1);
    void tail.then(() => {
      const left = (this.depth.get(key) ?? 1) - 1;
      if (left > 0) this.depth.set(key, left);
      else {
        this.depth.delete(key);
        if (this.tails.get(key) === tail) this.tails.delete(key);
      }
    });
    return result;
  }

  /** Tasks queued or running for `key`. */
  pending(key: string): number {
    return this.depth.get(key) ?? 0;
  }
}

/**
 * The tabs generating now, for the health the settings page shows next to the limit. A worker counts from the moment
 * its submission starts until its tab is seen idle again (or the hold times out), and so does a generation nobody here
 * started (the person typed). It never makes a command wait: the host sends a command only when a slot is free, so
 * waiting here would only let its deadline pass.
 */
export class GeneratingTabs {
  private readonly holders = new Set<string>();

  get size(): number {
    return this.holders.size;
  }

  holds(workerId: string): boolean {
    return this.holders.has(workerId);
  }

  occupy(workerId: string): void {
    this.holders.add(workerId);
  }

  release(workerId: string): void {
    this.holders.delete(workerId);
  }
}
