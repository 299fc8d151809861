// Concurrency of the executor (spec 21): one submission at a time per worker, unrelated workers in parallel, and
// at most N tabs generating at once across all workers.

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

export class AbortedError extends Error {
  constructor() {
    super("aborted");
    this.name = "AbortedError";
  }
}

/**
 * The global limit of concurrently generating tabs (default 3; research/chatgpt-dom.md §5: six at once drew
 * "Too many requests"). A worker holds a slot from the moment its submission is allowed to start until its tab
 * is seen idle again (or the hold times out); a worker that already holds one passes straight through.
 */
export class GeneratingLimiter {
  private readonly holders = new Set<string>();
  private readonly waiters: { workerId: string; resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(private limit: number) {}

  get size(): number {
    return this.holders.size;
  }

  holds(workerId: string): boolean {
    return this.holders.has(workerId);
  }

  setLimit(limit: number): void {
    this.limit = Math.max(1, Math.floor(limit));
    this.wake();
  }

  /** Resolves once `workerId` holds a slot; rejects with `AbortedError` if `signal` aborts first. */
  acquire(workerId: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortedError());
    if (this.holders.has(workerId) || this.holders.size < this.limit) {
      this.holders.add(workerId);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = { workerId, resolve, reject };
      this.waiters.push(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) {
            this.waiters.splice(i, 1);
            reject(new AbortedError());
          }
        },
        { once: true },
      );
    });
  }

  /** A generation observed without our submission (the person typed) still occupies a tab: it may exceed N. */
  occupy(workerId: string): void {
    this.holders.add(workerId);
  }

  release(workerId: string): void {
    if (this.holders.delete(workerId)) this.wake();
  }

  private wake(): void {
    while (this.waiters.length > 0) {
      const i = this.waiters.findIndex((w) => this.holders.has(w.workerId) || this.holders.size < this.limit);
      if (i < 0) return;
      const [waiter] = this.waiters.splice(i, 1);
      if (!waiter) return;
      this.holders.add(waiter.workerId);
      waiter.resolve();
    }
  }
}
