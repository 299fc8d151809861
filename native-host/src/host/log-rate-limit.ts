// Rate limit for repeated log lines: a peer that sends the same bad input in a loop must not fill the disk with one
// line per message. Lines of one shape pass a few times per window; the rest are counted and summed up in one line.

/** How many lines of one shape pass per window, and how long a window lasts. */
export interface RepeatLimit {
  readonly perWindow: number;
  readonly windowMs: number;
}

export const DEFAULT_REPEAT_LIMIT: RepeatLimit = { perWindow: 10, windowMs: 60_000 };

/** Shapes tracked at once; past it, windows that have ended are dropped (their summaries written). */
const MAX_SHAPES = 1_000;

/** Command, worker and session ids: their letters would otherwise keep one line per id apart. */
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/**
 * What makes two lines "the same": the part up to the second `": "` (the source and the kind of event, e.g.
 * `browser: dropped an invalid message`), with UUIDs and every run of digits collapsed, so that ids, counters, ports
 * and the details after the kind (a zod issue, a JSON.parse message quoting the bad bytes) do not make each line unique.
 */
export function messageShape(message: string): string {
  const first = message.indexOf(": ");
  const second = first === -1 ? -1 : message.indexOf(": ", first + 2);
  const head = second === -1 ? message : message.slice(0, second);
  return head
    .slice(0, 200)
    .replace(UUID, "#")
    .replace(/[0-9]+/g, "#");
}

interface Window {
  readonly level: string;
  readonly startedAt: number;
  passed: number;
  suppressed: number;
}

export interface LogLine {
  readonly level: string;
  readonly message: string;
}

export interface Admission {
  /** Summaries of windows that ended, to write before the line. */
  readonly summaries: readonly LogLine[];
  /** Whether the line itself is written. */
  readonly pass: boolean;
  /** Set on the first line suppressed in a window: when that window ends (ms from now), call `expired()`. */
  readonly endsInMs?: number;
}

export class RepeatLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: RepeatLimit = DEFAULT_REPEAT_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  admit(level: string, message: string): Admission {
    const shape = messageShape(message);
    const at = this.now();
    const summaries: LogLine[] = [];
    let window = this.windows.get(shape);
    if (window && at - window.startedAt >= this.limit.windowMs) {
      this.end(shape, window, summaries);
      window = undefined;
    }
    if (!window) {
      if (this.windows.size >= MAX_SHAPES) summaries.push(...this.expired());
      // Still full: so many different lines within a window are no repeat; pass it untracked (memory stays bounded).
      if (this.windows.size >= MAX_SHAPES) return { summaries, pass: true };
      window = { level, startedAt: at, passed: 0, suppressed: 0 };
      this.windows.set(shape, window);
    }
    if (window.passed < this.limit.perWindow) {
      window.passed += 1;
      return { summaries, pass: true };
    }
    window.suppressed += 1;
    if (window.suppressed > 1) return { summaries, pass: false };
    return { summaries, pass: false, endsInMs: Math.max(0, window.startedAt + this.limit.windowMs - at) };
  }

  /** Ends the windows whose time is up: the summaries of those that suppressed lines. */
  expired(): LogLine[] {
    const at = this.now();
    const out: LogLine[] = [];
    for (const [shape, window] of this.windows) {
      if (at - window.startedAt >= this.limit.windowMs) this.end(shape, window, out);
    }
    return out;
  }

  /** Ends every window now (process exit): nothing suppressed goes unmentioned. */
  drain(): LogLine[] {
    const out: LogLine[] = [];
    for (const [shape, window] of this.windows) this.end(shape, window, out);
    return out;
  }

  private end(shape: string, window: Window, out: LogLine[]): void {
    this.windows.delete(shape);
    if (window.suppressed === 0) return;
    const seconds = Math.max(1, Math.round((this.now() - window.startedAt) / 1000));
    out.push({
      level: window.level,
      message:
        `suppressed ${window.suppressed} similar lines in ${seconds} s ` +
        `(more than ${this.limit.perWindow} per ${this.limit.windowMs / 1000} s): ${shape}`,
    });
  }
}
