// Long-poll support: callers wait for the event sequence to pass a cursor; one notification wakes them all.
// Wakes are batched: notify() only records the newest sequence and one pass on the next turn of the event loop
// wakes every waiter it concerns. The write that caused the event answers first, several writes in one turn
// cost one pass, and the woken callers then read the same page together (see EventReads in mcp/tools.ts).
import type { Cancellation } from "../operations/context.ts";

/** Waiters woken per turn of the wake pass (see wakePass). */
const WAKE_CHUNK = 10;

function wakeChunk(due: readonly (() => void)[], from: number): void {
  const end = Math.min(due.length, from + WAKE_CHUNK);
  for (let i = from; i < end; i++) due[i]!();
  if (end < due.length) setImmediate(() => wakeChunk(due, end));
}

export class EventWaiters {
  private readonly waiting = new Set<{ cursor: number; wake: () => void }>();
  private notified = -1;
  private passScheduled = false;

  constructor(private readonly lastSeq: () => number) {}

  /**
   * Resolves when lastSeq() > cursor, after timeoutMs, or when any of the signals aborts; never rejects. Several
   * signals are watched directly rather than through AbortSignal.any(), which costs far more per parked call.
   */
  wait(cursor: number, timeoutMs: number, signals: readonly Cancellation[] = []): Promise<void> {
    if (this.lastSeq() > cursor || timeoutMs <= 0 || signals.some((s) => s.aborted)) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = { cursor, wake: () => finish() };
      const timer = setTimeout(() => finish(), timeoutMs);
      const onAbort = () => finish();
      const finish = () => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener("abort", onAbort);
        this.waiting.delete(entry);
        resolve();
      };
      for (const s of signals) s.addEventListener("abort", onAbort, { once: true });
      this.waiting.add(entry);
    });
  }

  notify(seq: number): void {
    this.notified = Math.max(this.notified, seq);
    if (this.passScheduled || this.waiting.size === 0) return;
    this.passScheduled = true;
    setImmediate(() => this.wakePass());
  }

  get size(): number {
    return this.waiting.size;
  }

  /**
   * Wakes the waiters the newest event concerns, WAKE_CHUNK at a time, one chunk per immediate. A woken caller still
   * has several promise steps to go before its answer is written, and promise callbacks run in order: woken all at
   * once, every caller would take each step before any took the next, so the first answer would leave only when
   * nearly all the work was done. In chunks, answers start leaving at once and the callers (on other cores) read
   * them while the rest are produced. Microtasks drain between immediates; waking an entry twice is harmless.
   */
  private wakePass(): void {
    this.passScheduled = false;
    const seq = this.notified;
    const due: (() => void)[] = [];
    for (const entry of this.waiting) if (seq > entry.cursor) due.push(entry.wake);
    wakeChunk(due, 0);
  }
}
