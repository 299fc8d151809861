// The engine's single timer: armed for one instant (the core's next deadline), re-armed or disarmed as that changes.
// Node timers cannot wait longer than 2^31-1 ms, so a later instant is reached in hops: each hop fires early, the
// engine's tick finds nothing due and arms the rest of the way.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class DeadlineTimer {
  private timer: NodeJS.Timeout | undefined;
  private armedAt: number | null = null;
  private stopped = false;

  constructor(
    private readonly now: () => number,
    /** Called when the armed instant (or a hop towards it) is reached. */
    private readonly fire: () => void,
  ) {}

  /** The instant armed, or null when nothing is. */
  get at(): number | null {
    return this.armedAt;
  }

  /** Replaces whatever was armed; null disarms. */
  arm(at: number | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = at;
    if (at === null || this.stopped) return;
    const delay = Math.min(Math.max(0, at - this.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, delay);
    // The timer alone must not keep a finished process alive; the bridge and servers do that.
    this.timer.unref();
  }

  /** Disarms for good: later `arm` calls only record the instant. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
