// The notifier over a real outbox with the core's simulated state, a fake clock and fake timers: a question is decided
// once per enabled channel, a "resolved" follows it once it is over (only when asked for), one that is over before it
// could be sent is dropped instead, and without a browser nothing is taken to be over.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Channel,
  DEFAULT_NOTIFY_SETTINGS,
  type NotificationPayload,
  type NotifySettings,
} from "../../../shared/notify-settings.ts";
import { CONNECTED_ENV, type LivenessEnv } from "../core/liveness.ts";
import { Simulation } from "../core/simulation.ts";
import { DurableStore } from "../store/durable-store.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import type { DeliverResult } from "./deliver.ts";
import { Notifier, type NotificationStatus } from "./notifier.ts";
import { Outbox } from "./outbox.ts";
import type { Timers } from "./sender.ts";

const quiet = { warn: () => undefined, info: () => undefined };
const HOOK: Channel = {
  id: "hook",
  name: "Hook",
  enabled: true,
  kind: "webhook",
  url: "https://h.example/x",
};
const OFF: Channel = { id: "off", name: "Off", enabled: false, kind: "webhook", url: "https://h.example/y" };

let dir: string;
let store: DurableStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "orch-notifier-"));
  store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: quiet });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Timers that run only when the test flushes them (the notifier's coalescing and the sender's waits). */
class ManualTimers implements Timers {
  private readonly due = new Map<number, () => void>();
  private seq = 0;
  setTimeout(fn: () => void): unknown {
    this.due.set(++this.seq, fn);
    return this.seq;
  }
  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number);
  }
  runAll(): void {
    const fns = [...this.due.values()];
    this.due.clear();
    for (const fn of fns) fn();
  }
}

function setup(
  kinds: Partial<NotifySettings["kinds"]> = {},
  answer: () => DeliverResult = () => ({ ok: true, status: 200 }),
) {
  const sim = new Simulation();
  const timers = new ManualTimers();
  const sent: NotificationPayload[] = [];
  let env: LivenessEnv = CONNECTED_ENV;
  const statuses: NotificationStatus[][] = [];
  const notifier = new Notifier({
    store,
    state: () => sim.state,
    livenessEnv: () => env,
    settings: {
      ...DEFAULT_NOTIFY_SETTINGS,
      channels: [HOOK, OFF],
      kinds: { ...DEFAULT_NOTIFY_SETTINGS.kinds, ...kinds },
    },
    now: () => sim.now,
    log: quiet,
    timers,
    deliver: (_channel, payload) => {
      sent.push(payload);
      return Promise.resolve(answer());
    },
    onStatus: (list) => statuses.push(list),
  });
  const outbox = new Outbox(store);
  /** A check, its outbox write, and the delivery passes it starts (retries' timers included). */
  const settle = async () => {
    await notifier.check();
    for (let i = 0; i < 2; i++) {
      timers.runAll();
      await notifier.idle();
    }
  };
  return {
    sim,
    notifier,
    outbox,
    sent,
    statuses,
    settle,
    setBrowser: (e: LivenessEnv) => (env = e),
  };
}

describe("Notifier", () => {
  it("a question goes once to each enabled channel; with resolved on, its end sends one 'resolved'", async () => {
    const { sim, outbox, sent, statuses, settle } = setup({ resolved: true });
    sim.start();
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "Secret plan?" });
    await settle();
    await settle();
    expect(sent.map((p) => [p.kind, p.reason])).toEqual([["needs_you", "question"]]);
    expect(JSON.stringify(sent)).not.toContain("Secret plan");
    expect(outbox.all().map((r) => r.channelId)).toEqual(["hook"]);
    expect(statuses.at(-1)?.find((s) => s.id === "hook")).toMatchObject({ pending: 0, lastError: null });

    sim.apply({ type: "human.resolve", workerId: "w-1", answer: "yes" });
    await settle();
    await settle();
    expect(sent.map((p) => p.kind)).toEqual(["needs_you", "resolved"]);
    expect(sent[1]).toMatchObject({ episode: `resolved:${sent[0]!.episode}`, worker: { id: "w-1" } });
    expect(sent[1]!.title).toMatch(/^Resolved: \/root — Needs your answer$/);
  });

  it("resolved off: nothing follows; a question over before it could be sent is dropped, not sent late", async () => {
    let up = false;
    const { sim, outbox, sent, settle } = setup({}, () =>
      up ? { ok: true, status: 200 } : { ok: false, retry: true, detail: "the receiver answered HTTP 503" },
    );
    sim.start();
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "A or B?" });
    await settle();
    expect(outbox.all()[0]).toMatchObject({ outcome: "pending", attempts: 1 });
    sim.apply({ type: "human.resolve", workerId: "w-1", answer: "A" });
    await settle();
    up = true;
    sim.advance(60_000);
    await settle();
    expect(outbox.all().map((r) => [r.kind, r.outcome])).toEqual([["needs_you", "dropped"]]);
    expect(sent).toHaveLength(1); // the one failed attempt
  });

  it("without a browser, nothing is taken to be over (no 'resolved' for what it cannot see)", async () => {
    const { sim, sent, settle, setBrowser } = setup({ resolved: true });
    sim.start();
    sim.observe("w-1", "error", "RESPONSE_FAILED");
    await settle();
    expect(sent.map((p) => p.reason)).toEqual(["page_error"]);
    // The browser goes away: the page error now reads "Browser not connected", which is not its end.
    setBrowser({ browser: { connected: false, since: sim.now }, dispatch: () => undefined });
    await settle();
    expect(sent).toHaveLength(1);
    setBrowser(CONNECTED_ENV);
    await settle();
    expect(sent).toHaveLength(1);
  });
});
