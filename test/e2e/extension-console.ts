// The extension's own log lines ("[orchestrator] …") from its service worker and from the content scripts of every
// page, kept for a failing scenario's diagnostics: what the background decided is otherwise invisible to a test.
import type { BrowserContext, ConsoleMessage, Worker as PwWorker } from "playwright-core";

const PREFIX = "[orchestrator]";
/** The newest lines kept (a long scenario logs a few hundred). */
const KEEP = 400;

export class ExtensionConsole {
  private readonly lines: string[] = [];
  private readonly t0 = Date.now();
  private readonly workers = new WeakSet<PwWorker>();

  /** Follows the context's pages and extension service workers, those there now and those to come. */
  attach(context: BrowserContext): void {
    context.on("console", (m) => {
      // A service worker's message is taken from the worker itself (below), once.
      const page = m.page();
      if (page !== null) this.take(m, new URL(page.url()).pathname);
    });
    const follow = (w: PwWorker): void => {
      if (this.workers.has(w)) return;
      this.workers.add(w);
      w.on("console", (m) => this.take(m, "background"));
    };
    for (const w of context.serviceWorkers()) follow(w);
    context.on("serviceworker", follow);
  }

  /** The kept lines, oldest first, each with its time since the browser started and where it came from. */
  format(): string {
    return this.lines.join("\n");
  }

  private take(m: ConsoleMessage, source: string): void {
    const text = m.text();
    if (!text.startsWith(PREFIX)) return;
    const at = String(Date.now() - this.t0).padStart(7);
    this.lines.push(`+${at}ms ${m.type().padEnd(7)} ${source} ${text.slice(PREFIX.length + 1, 2_000)}`);
    if (this.lines.length > KEEP) this.lines.splice(0, this.lines.length - KEEP);
  }
}
