// Decides notifications (docs/operator-guide.md, "Notifications"): on every durable change (coalesced) and every few
// seconds, the open episodes go into the outbox for each enabled channel whose kind is switched on, episodes that
// ended are marked (and followed by "resolved" when asked for), and the sender is kicked. Never awaited by the engine.
import { type Channel, type ChannelStatus, type NotifySettings } from "../../../shared/notify-settings.ts";
import type { LivenessEnv } from "../core/liveness.ts";
import type { DomainState } from "../core/model.ts";
import type { DurableStore } from "../store/durable-store.ts";
import type { StoreLogger } from "../store/store-types.ts";
import { DEFAULT_DELIVER_TIMEOUT_MS, deliver as realDeliver } from "./deliver.ts";
import { ALL_KINDS, type Episode, openEpisodes } from "./episodes.ts";
import { type Decision, type Ending, Outbox } from "./outbox.ts";
import { episodePayload, resolvedPayload, testPayload } from "./payload.ts";
import { REAL_TIMERS, Sender, type Timers } from "./sender.ts";
import { NO_STATUS } from "./settings-view.ts";

/** A change waits this long for the rest of its burst (as status.json's activity does). */
const COALESCE_MS = 200;
/** Some episodes begin with time alone (a rate limit that will not clear, a browser gone for a minute). */
const RECHECK_MS = 5_000;
/** Settled rows older than this are forgotten (see Outbox.prune). */
const KEEP_MS = 7 * 24 * 60 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

/** One channel in status.json, the dashboard and doctor: no secret, only what happened. */
export interface NotificationStatus extends ChannelStatus {
  readonly id: string;
  readonly kind: Channel["kind"];
  readonly name: string;
  readonly enabled: boolean;
}

export interface NotifierOptions {
  readonly store: DurableStore;
  readonly state: () => DomainState;
  readonly livenessEnv: () => LivenessEnv;
  readonly settings: NotifySettings;
  readonly now: () => number;
  readonly log: StoreLogger;
  readonly backoffMs?: readonly number[];
  readonly timers?: Timers;
  readonly deliver?: typeof realDeliver;
  /** The channels' status changed (status.json shows it). */
  readonly onStatus?: (statuses: NotificationStatus[]) => void;
}

export class Notifier {
  private current: NotifySettings;
  private readonly outbox: Outbox;
  private readonly sender: Sender;
  private readonly timers: Timers;
  private pending: unknown;
  private interval: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastPruneAt = 0;
  private statusJson = "";
  private lastProblem: string | undefined;

  constructor(private readonly opts: NotifierOptions) {
    this.current = opts.settings;
    this.outbox = new Outbox(opts.store);
    this.timers = opts.timers ?? REAL_TIMERS;
    this.sender = new Sender({
      outbox: this.outbox,
      settings: () => this.current,
      now: opts.now,
      log: opts.log,
      timers: this.timers,
      ...(opts.deliver ? { deliver: opts.deliver } : {}),
      ...(opts.backoffMs ? { backoffMs: opts.backoffMs } : {}),
      onAttempt: () => this.refreshStatus(),
    });
  }

  /** First look now (what was decided before a restart is sent), then every few seconds. */
  start(): void {
    void this.check();
    this.sender.kick();
    this.refreshStatus();
    this.interval = setInterval(() => void this.check(), RECHECK_MS).unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.interval) clearInterval(this.interval);
    if (this.pending !== undefined) this.timers.clearTimeout(this.pending);
    this.pending = undefined;
    this.sender.stop();
  }

  get settings(): NotifySettings {
    return this.current;
  }

  /** New settings (the settings page saved them): decided again at once, and status.json lists the new channels. */
  setSettings(settings: NotifySettings): void {
    this.current = settings;
    void this.check();
    this.sender.kick();
    this.refreshStatus();
  }

  /** A durable change: looked at once the burst it belongs to is over. */
  changed(): void {
    if (this.stopped || this.pending !== undefined) return;
    this.pending = this.timers.setTimeout(() => {
      this.pending = undefined;
      void this.check();
    }, COALESCE_MS);
  }

  statuses(): NotificationStatus[] {
    let byChannel: Map<string, ChannelStatus>;
    try {
      byChannel = this.outbox.statuses();
    } catch {
      byChannel = new Map();
    }
    return this.current.channels.map((c) => ({
      id: c.id,
      kind: c.kind,
      name: c.name,
      enabled: c.enabled,
      ...(byChannel.get(c.id) ?? NO_STATUS),
    }));
  }

  channelStatus(id: string): ChannelStatus {
    const s = this.statuses().find((c) => c.id === id);
    if (!s) return NO_STATUS;
    const { lastAttemptAt, lastDeliveredAt, lastError, pending } = s;
    return { lastAttemptAt, lastDeliveredAt, lastError, pending };
  }

  /** "Send test": one test message to the channel now, enabled or not; null when there is no such channel. */
  async test(channelId: string): Promise<{ ok: boolean; detail: string } | null> {
    const channel = this.current.channels.find((c) => c.id === channelId);
    if (!channel) return null;
    const send = this.opts.deliver ?? realDeliver;
    const result = await send(channel, testPayload(this.opts.now()), {
      timeoutMs: DEFAULT_DELIVER_TIMEOUT_MS,
    });
    this.opts.log.info(
      `test notification to channel ${channel.id} (${channel.kind}): ${result.ok ? `delivered (HTTP ${result.status})` : result.detail}`,
    );
    return result.ok
      ? { ok: true, detail: `delivered: the receiver answered HTTP ${result.status}` }
      : { ok: false, detail: result.detail };
  }

  /**
   * Decides what the state says now. Synchronous up to the outbox write; the promise (never rejected) settles once
   * that write is durable and the sender was kicked. The host never awaits it; tests do.
   */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    let decisions: Decision[];
    let endings: Ending[];
    const now = this.opts.now();
    try {
      ({ decisions, endings } = this.decisions(now));
    } catch (error) {
      this.problem(`could not decide notifications: ${String(error)}`);
      return Promise.resolve();
    }
    if (now - this.lastPruneAt >= PRUNE_EVERY_MS) {
      this.lastPruneAt = now;
      this.outbox.prune(now - KEEP_MS).catch((error: unknown) => {
        if (!this.stopped) this.problem(`could not prune the notification outbox: ${String(error)}`);
      });
    }
    if (decisions.length === 0 && endings.length === 0) return Promise.resolve();
    return this.outbox.decide(decisions, endings, now).then(
      (inserted) => {
        this.lastProblem = undefined;
        if (inserted > 0) this.sender.kick();
        this.refreshStatus();
      },
      (error: unknown) => {
        if (!this.stopped) this.problem(`could not record notifications: ${String(error)}`);
      },
    );
  }

  /** Resolves once a delivery pass under way has finished (tests). */
  idle(): Promise<void> {
    return this.sender.idle();
  }

  private decisions(now: number): { decisions: Decision[]; endings: Ending[] } {
    const settings = this.current;
    const channels = settings.channels.filter((c) => c.enabled);
    // Most backends have no channel: then, with nothing earlier still waiting to be seen to end, there is nothing to
    // decide, and the views of every worker (the costly part, every few seconds) are not built at all.
    const unended = this.outbox.unended();
    if (channels.length === 0 && unended.length === 0) return { decisions: [], endings: [] };
    const state = this.opts.state();
    const env = this.opts.livenessEnv();
    const open = openEpisodes(state, now, env, ALL_KINDS);
    const openKeys = new Set(open.map((e) => e.key));
    const decisions: Decision[] = [];
    const wanted = channels.length === 0 ? [] : open.filter((e) => wants(settings, e));
    const existing = this.outbox.existing(wanted.map((e) => e.key));
    for (const episode of wanted) {
      const missing = channels.filter((c) => !existing.has(`${episode.key}\n${c.id}`));
      if (missing.length === 0) continue;
      const payload = episodePayload(state, episode, now, env);
      if (!payload) continue;
      for (const c of missing) decisions.push({ channelId: c.id, payload });
    }
    // Without a browser most held reasons read "Browser not connected": whether the others ended cannot be told, so
    // they are not marked ended (and no "resolved" goes out) until it is back.
    const endings: Ending[] = [];
    if (env.browser.connected) {
      const enabled = new Set(channels.map((c) => c.id));
      for (const row of unended) {
        if (openKeys.has(row.episodeKey)) continue;
        endings.push({ episodeKey: row.episodeKey, channelId: row.channelId });
        if (row.outcome === "delivered" && settings.kinds.resolved && enabled.has(row.channelId)) {
          decisions.push({ channelId: row.channelId, payload: resolvedPayload(row.payload, now) });
        }
      }
    }
    return { decisions, endings };
  }

  private refreshStatus(): void {
    if (this.stopped || !this.opts.onStatus) return;
    const list = this.statuses();
    const json = JSON.stringify(list);
    if (json === this.statusJson) return;
    this.statusJson = json;
    this.opts.onStatus(list);
  }

  private problem(message: string): void {
    if (message !== this.lastProblem) this.opts.log.warn(message);
    this.lastProblem = message;
  }
}

function wants(settings: NotifySettings, e: Episode): boolean {
  return settings.kinds[e.toggle];
}
