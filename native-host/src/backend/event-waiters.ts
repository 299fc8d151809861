// Long-poll support: callers wait for the event sequence to pass a cursor; one notification wakes them all.
export class EventWaiters {
  private readonly waiting = new Set<{ cursor: number; wake: () => void }>();

  constructor(private readonly lastSeq: () => number) {}

  /** Resolves when lastSeq() > cursor, after timeoutMs, or when the signal aborts; never rejects. */
  wait(cursor: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.lastSeq() > cursor || timeoutMs <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = { cursor, wake: () => finish() };
      const timer = setTimeout(() => finish(), timeoutMs);
      const onAbort = () => finish();
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiting.delete(entry);
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.add(entry);
    });
  }

  notify(seq: number): void {
    for (const entry of [...this.waiting]) if (seq > entry.cursor) entry.wake();
  }

  get size(): number {
    return this.waiting.size;
  }
}
