// What `npm run demo` prints: one line at a time, and while it waits for something, a progress line whenever nothing
// was printed for 1.5 s (what it waits for, for how long, and the worker's state if it watches one), so a person
// watching the terminal never stares at silence.

interface Activity {
  readonly what: string;
  readonly since: number;
  readonly detail?: () => string | undefined;
}

export class DemoOutput {
  private lastAt = Date.now();
  private activity: Activity | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (text: string) => void,
    private readonly quietMs = 1_500,
  ) {
    this.timer = setInterval(() => this.tick(), 250);
  }

  line(text = ""): void {
    this.write(`${text}\n`);
    this.lastAt = Date.now();
  }

  /** Runs `work`; while it runs, the progress lines say "waiting for <what> … <seconds> s (<detail>)". */
  async waiting<T>(what: string, work: () => Promise<T>, detail?: () => string | undefined): Promise<T> {
    const outer = this.activity;
    this.activity = { what, since: Date.now(), ...(detail ? { detail } : {}) };
    try {
      return await work();
    } finally {
      this.activity = outer;
    }
  }

  /** No more progress lines (the demo is over). */
  close(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    if (Date.now() - this.lastAt < this.quietMs) return;
    const a = this.activity;
    if (a === undefined) {
      this.line("  …");
      return;
    }
    const seconds = ((Date.now() - a.since) / 1000).toFixed(1);
    const detail = a.detail?.();
    this.line(`  … waiting for ${a.what} … ${seconds} s${detail ? ` (${detail})` : ""}`);
  }
}
