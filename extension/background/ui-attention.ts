// Attention: the toolbar badge counts workers whose liveness needs a person (docs/ui.md, Attention), and
// an optional desktop notification announces each new reason once. Read from ui_summary after every change.
import { errorText, type Logger } from "../lib/logger.ts";
import { workerName } from "../ui/format.ts";
import { livenessLine } from "../ui/liveness-words.ts";
import type { LocalPrefs } from "../ui/ui-protocol.ts";
import { UI_SUMMARY } from "../../shared/operations/ui.ts";
import type { WorkerView } from "../../shared/operations/views.ts";
import { badgeState, type BadgeState } from "./badge-state.ts";
import type { ConnectionHealth } from "./native-connection.ts";

export interface AttentionApi {
  action?: {
    setBadgeText(details: { text: string }): Promise<void> | void;
    setBadgeBackgroundColor(details: { color: string }): Promise<void> | void;
    /** Missing in older browsers (Chrome before 110); without it the browser picks the text colour itself. */
    setBadgeTextColor?(details: { color: string }): Promise<void> | void;
    setTitle(details: { title: string }): Promise<void> | void;
  };
  notifications?: {
    create(
      id: string,
      options: { type: "basic"; title: string; message: string; iconUrl: string },
    ): Promise<string> | void;
  };
}

export interface AttentionOptions {
  readonly api: AttentionApi;
  readonly log: Logger;
  readonly health: () => ConnectionHealth;
  readonly request: (
    op: string,
  ) => Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }>;
  readonly prefs: () => Promise<LocalPrefs>;
  /** Keys of attention items already announced (survive a service-worker restart, so nothing repeats). */
  readonly announced: { get(): Promise<string[]>; set(keys: string[]): Promise<void> };
  readonly iconUrl: string;
}

/**
 * One key per episode: the worker, its liveness reason and when that began. A worker that needs a person for
 * another reason, or for the same one again later, is announced again; the same episode never twice.
 */
export function attentionKey(w: Pick<WorkerView, "id" | "liveness">): string | undefined {
  const l = w.liveness;
  return l?.needsYou ? `${l.reason}:${w.id}:${l.since}` : undefined;
}

/** A desktop notification for a worker that needs a person: what holds it, and what to do about it. */
export function attentionMessage(w: WorkerView, now: number): { title: string; message: string } {
  const l = w.liveness;
  if (!l) return { title: "Needs you", message: `${workerName(w)} needs you` };
  const question = w.wait?.kind === "human" ? ` "${w.wait.question.slice(0, 200)}"` : "";
  return {
    title: "Needs you",
    message: `${workerName(w)}: ${livenessLine(l, now)}.${question} ${l.remedy.text}`,
  };
}

export class Attention {
  private running = false;
  private again = false;

  constructor(private readonly opts: AttentionOptions) {}

  /** Coalesces bursts of changes into at most one read in flight and one after it. */
  refresh(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    });
  }

  private async run(): Promise<void> {
    try {
      const health = this.opts.health();
      if (health.status !== "connected") {
        await this.badge(badgeState({ connected: false, status: health.status }));
        return;
      }
      const reply = await this.opts.request("ui_summary");
      const parsed = reply.ok ? UI_SUMMARY.output.safeParse(reply.result) : undefined;
      if (!parsed?.success) {
        this.opts.log.warn(`badge: ${reply.error?.message ?? "unexpected ui_summary result"}`);
        return;
      }
      const needsYou = parsed.data.workers.filter((w) => w.liveness?.needsYou === true);
      const reasons = [...new Set(needsYou.map((w) => w.liveness?.text ?? ""))];
      await this.badge(badgeState({ connected: true, needsYou: needsYou.length, reasons }));
      await this.announce(needsYou);
    } catch (e) {
      this.opts.log.warn(`attention: ${errorText(e)}`);
    }
  }

  private async badge(state: BadgeState): Promise<void> {
    const action = this.opts.api.action;
    if (!action) return;
    await action.setBadgeText({ text: state.text });
    await action.setBadgeBackgroundColor({ color: state.color });
    // Set rather than left to each browser's own choice, so the text reads the same everywhere (white on both).
    if (typeof action.setBadgeTextColor === "function")
      await action.setBadgeTextColor({ color: state.textColor });
    await action.setTitle({ title: state.title });
  }

  private async announce(workers: WorkerView[]): Promise<void> {
    const current = new Map<string, WorkerView>();
    for (const w of workers) {
      const key = attentionKey(w);
      if (key) current.set(key, w);
    }
    const before = new Set(await this.opts.announced.get());
    const fresh = [...current.entries()].filter(([key]) => !before.has(key));
    // Keep only keys still current, so the list stays as small as what needs attention now.
    await this.opts.announced.set([...current.keys()]);
    const notifications = this.opts.api.notifications;
    if (fresh.length === 0 || !notifications || !(await this.opts.prefs()).notifications) return;
    const now = Date.now();
    for (const [key, w] of fresh) {
      const { title, message } = attentionMessage(w, now);
      await notifications.create(key, { type: "basic", title, message, iconUrl: this.opts.iconUrl });
    }
  }
}
