// Attention (issue 6): the toolbar badge counts workers that need a person or are paused for a stall, and an
// optional desktop notification announces each new one. Read from the host's ui_summary after every change.
import { errorText, type Logger } from "../lib/logger.ts";
import type { LocalPrefs } from "../ui/ui-protocol.ts";
import { summarySchema, waitsForToolApproval, type WorkerView } from "../ui/view-models.ts";
import type { ConnectionHealth } from "./native-connection.ts";

export interface AttentionApi {
  action?: {
    setBadgeText(details: { text: string }): Promise<void> | void;
    setBadgeBackgroundColor(details: { color: string }): Promise<void> | void;
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

const TITLE = "ChatGPT Orchestrator";

/** One key per episode: a worker that needs a person again later (new request time) is announced again. */
export function attentionKey(w: WorkerView): string | undefined {
  if (waitsForToolApproval(w) && !w.wait) {
    return `approval:${w.id}:${w.attempt?.seq ?? 0}`;
  }
  if (w.label === "Needs you") return `human:${w.id}:${w.wait?.requestedAt ?? 0}`;
  if (w.label === "Stalled") return `stall:${w.id}:${w.pause?.at ?? 0}`;
  return undefined;
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
        await this.badge("off", "#6b7280", `${TITLE}: host not connected (${health.status})`);
        return;
      }
      const reply = await this.opts.request("ui_summary");
      const parsed = reply.ok ? summarySchema.safeParse(reply.result) : undefined;
      if (!parsed?.success) {
        this.opts.log.warn(`badge: ${reply.error?.message ?? "unexpected ui_summary result"}`);
        return;
      }
      const workers = parsed.data.workers;
      const needsYou = workers.filter((w) => w.label === "Needs you");
      const stalled = workers.filter((w) => w.label === "Stalled");
      const count = needsYou.length + stalled.length;
      const parts = [
        needsYou.length ? `${needsYou.length} need${needsYou.length === 1 ? "s" : ""} you` : "",
        stalled.length ? `${stalled.length} paused for stall` : "",
      ].filter(Boolean);
      await this.badge(
        count ? String(count) : "",
        needsYou.length ? "#b91c1c" : "#b45309",
        parts.length ? `${TITLE}: ${parts.join(", ")}` : `${TITLE}: nothing needs you`,
      );
      await this.announce([...needsYou, ...stalled]);
    } catch (e) {
      this.opts.log.warn(`attention: ${errorText(e)}`);
    }
  }

  private async badge(text: string, color: string, title: string): Promise<void> {
    const action = this.opts.api.action;
    if (!action) return;
    await action.setBadgeText({ text });
    await action.setBadgeBackgroundColor({ color });
    await action.setTitle({ title });
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
    for (const [key, w] of fresh) {
      const message =
        w.label === "Needs you"
          ? `${w.name} needs you: ${w.wait?.kind === "human" ? w.wait.question.slice(0, 200) : ""}`
          : `${w.name} is paused: no progress in ${w.noProgressAttempts} turns`;
      await notifications.create(key, {
        type: "basic",
        title: w.label === "Needs you" ? "Needs you" : "Paused for stall",
        message,
        iconUrl: this.opts.iconUrl,
      });
    }
  }
}
