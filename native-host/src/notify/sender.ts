// The outbox's delivery loop (docs/operator-guide.md, "Notifications"): sends what is due, one attempt per row at a
// time, retries with backoff (10 s, 30 s, 2 min, 10 min, 30 min, then every 30 min) and gives up after 24 h; quiet
// hours hold everything until they end. Runs on its own unref'd timers: nothing in the engine ever waits for it.
import type { Channel, NotifySettings } from "../../../shared/notify-settings.ts";
import type { StoreLogger } from "../store/store-types.ts";
import { DEFAULT_DELIVER_TIMEOUT_MS, deliver as realDeliver } from "./deliver.ts";
import type { Outbox, OutboxRow } from "./outbox.ts";
import { inQuietHours, quietHoursEnd } from "./quiet-hours.ts";

export const DEFAULT_BACKOFF_MS: readonly number[] = [10_000, 30_000, 120_000, 600_000, 1_800_000];
export const GIVE_UP_MS = 24 * 60 * 60_000;
/** setTimeout's longest delay; a wait beyond it is re-armed when the timer fires. */
const MAX_TIMER_MS = 2_147_483_647;

/** `ORCHESTRATOR_NOTIFY_BACKOFF_MS=200,200,200` (tests): the steps between attempts, the last one repeating. */
export function backoffFromEnv(env: NodeJS.ProcessEnv): readonly number[] {
  const raw = env.ORCHESTRATOR_NOTIFY_BACKOFF_MS;
  if (raw === undefined || raw.trim() === "") return DEFAULT_BACKOFF_MS;
  const steps = raw.split(",").map((s) => Number(s.trim()));
  if (steps.length === 0 || steps.some((n) => !Number.isInteger(n) || n < 0)) return DEFAULT_BACKOFF_MS;
  return steps;
}

/** The wait after the `failures`-th failed attempt (1 = the first). */
export function backoffDelay(steps: readonly number[], failures: number): number {
  return steps[Math.min(Math.max(failures, 1), steps.length) - 1] ?? DEFAULT_BACKOFF_MS[0]!;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Real timers that never keep a finished process alive. */
export const REAL_TIMERS: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SenderOptions {
  readonly outbox: Outbox;
  readonly settings: () => NotifySettings;
  readonly now: () => number;
  readonly log: StoreLogger;
  readonly timers?: Timers;
  readonly deliver?: typeof realDeliver;
  readonly backoffMs?: readonly number[];
  readonly giveUpMs?: number;
  readonly timeoutMs?: number;
  /** After each attempt is recorded: the channels' status changed. */
  readonly onAttempt?: () => void;
}

export class Sender {
  private timer: unknown;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private lastProblem: string | undefined;
  private readonly timers: Timers;

  constructor(private readonly opts: SenderOptions) {
    this.timers = opts.timers ?? REAL_TIMERS;
  }

  /** Something was decided: look at the outbox soon (on the next timers phase, so the caller never waits). */
  kick(): void {
    if (this.stopped) return;
    this.arm(0);
  }

  /** One delivery pass now (then the timer is armed for the next due row); tests await it. */
  pass(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.sendDue();
        } while (this.again && !this.stopped);
      } catch (error) {
        // After stop() the store closes under a pass still waiting for a receiver: nothing to report.
        if (!this.stopped) this.problem(`notification delivery stopped for now: ${String(error)}`);
      } finally {
        this.running = undefined;
      }
      this.armNext();
    })();
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Resolves once a pass under way has finished (tests). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private arm(delayMs: number): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined;
        void this.pass();
      },
      Math.min(Math.max(0, delayMs), MAX_TIMER_MS),
    );
  }

  /** The next time anything is due, pushed to the end of quiet hours if it falls in them. */
  private armNext(): void {
    if (this.stopped) return;
    let next: number | null;
    try {
      next = this.opts.outbox.nextDueAt();
    } catch (error) {
      this.problem(`could not read the notification outbox: ${String(error)}`);
      return;
    }
    if (next === null) {
      if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    const now = this.opts.now();
    let at = Math.max(next, now);
    const quiet = this.opts.settings().quietHours;
    if (quiet && inQuietHours(at, quiet)) at = quietHoursEnd(at, quiet);
    this.arm(at - now);
  }

  private async sendDue(): Promise<void> {
    const now = this.opts.now();
    const settings = this.opts.settings();
    if (inQuietHours(now, settings.quietHours)) return;
    const rows = this.opts.outbox.due(now);
    if (rows.length === 0) return;
    const channels = new Map(settings.channels.map((c) => [c.id, c]));
    const byChannel = new Map<string, OutboxRow[]>();
    for (const row of rows) {
      const channel = channels.get(row.channelId);
      if (!channel?.enabled) {
        // Turned off or removed: what it had waiting is not sent later by surprise.
        await this.opts.outbox.record(
          row.episodeKey,
          row.channelId,
          { outcome: "dropped", error: null },
          this.opts.now(),
        );
        continue;
      }
      byChannel.set(row.channelId, [...(byChannel.get(row.channelId) ?? []), row]);
    }
    // Channels side by side, each channel's rows in order: a slow receiver delays only its own messages.
    await Promise.all(
      [...byChannel].map(async ([id, list]) => {
        const channel = channels.get(id)!;
        for (const row of list) {
          if (this.stopped) return;
          await this.attempt(channel, row);
        }
      }),
    );
  }

  private async attempt(channel: Channel, row: OutboxRow): Promise<void> {
    const send = this.opts.deliver ?? realDeliver;
    const result = await send(channel, row.payload, {
      timeoutMs: this.opts.timeoutMs ?? DEFAULT_DELIVER_TIMEOUT_MS,
    });
    if (this.stopped) return;
    const now = this.opts.now();
    const what = `notification ${row.kind} to channel ${channel.id} (${channel.kind})`;
    if (result.ok) {
      await this.opts.outbox.record(row.episodeKey, row.channelId, { outcome: "delivered" }, now);
      this.opts.log.info(`${what} delivered (HTTP ${result.status})`);
    } else if (!result.retry) {
      await this.opts.outbox.record(
        row.episodeKey,
        row.channelId,
        { outcome: "failed", error: result.detail },
        now,
      );
      this.opts.log.warn(`${what} refused, not retried: ${result.detail}`);
    } else if (now - row.decidedAt >= (this.opts.giveUpMs ?? GIVE_UP_MS)) {
      const error = `gave up after ${row.attempts + 1} attempts: ${result.detail}`;
      await this.opts.outbox.record(row.episodeKey, row.channelId, { outcome: "failed", error }, now);
      this.opts.log.warn(`${what}: ${error}`);
    } else {
      const delay = backoffDelay(this.opts.backoffMs ?? DEFAULT_BACKOFF_MS, row.attempts + 1);
      await this.opts.outbox.record(
        row.episodeKey,
        row.channelId,
        { outcome: "retry", error: result.detail, nextAttemptAt: now + delay },
        now,
      );
      this.opts.log.info(`${what} failed (${result.detail}); next try in ${Math.round(delay / 1000)} s`);
    }
    this.lastProblem = undefined;
    this.opts.onAttempt?.();
  }

  /** A store that refuses (closed, disk full) is reported once, not on every pass. */
  private problem(message: string): void {
    if (message !== this.lastProblem) this.opts.log.warn(message);
    this.lastProblem = message;
  }
}
