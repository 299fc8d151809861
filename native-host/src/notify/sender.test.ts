// The delivery loop with a fake clock and fake timers over a real outbox: retries wait 10 s, 30 s, 2 min, 10 min,
// 30 min, then every 30 min; a receiver that keeps failing is given up after 24 h; a refusal is not retried; quiet
// hours that span midnight hold a message until they end, in local time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Channel,
  DEFAULT_NOTIFY_SETTINGS,
  type NotifySettings,
} from "../../../shared/notify-settings.ts";
import { DurableStore } from "../store/durable-store.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import type { DeliverResult } from "./deliver.ts";
import { Outbox } from "./outbox.ts";
import { testPayload } from "./payload.ts";
import { backoffFromEnv, DEFAULT_BACKOFF_MS, GIVE_UP_MS, Sender, type Timers } from "./sender.ts";

const quiet = { warn: () => undefined, info: () => undefined };
const HOOK: Channel = {
  id: "hook",
  name: "Hook",
  enabled: true,
  kind: "webhook",
  url: "https://h.example/x",
};
const MIN = 60_000;

let dir: string;
let store: DurableStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "orch-sender-"));
  store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: quiet });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A fake clock with one-shot timers that fire only when the test says so. */
class FakeTime implements Timers {
  now = 0;
  private seq = 0;
  readonly pending = new Map<number, { fn: () => void; at: number }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { fn, at: this.now + ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** The one armed timer (the sender keeps at most one). */
  next(): { fn: () => void; at: number } | undefined {
    expect(this.pending.size).toBeLessThanOrEqual(1);
    return [...this.pending.values()][0];
  }
}

function setup(settings: NotifySettings, results: () => DeliverResult) {
  const time = new FakeTime();
  const outbox = new Outbox(store);
  const sent: number[] = [];
  const sender = new Sender({
    outbox,
    settings: () => settings,
    now: () => time.now,
    log: quiet,
    timers: time,
    deliver: () => {
      sent.push(time.now);
      return Promise.resolve(results());
    },
  });
  /** Moves the clock to the armed timer and runs the pass it starts; returns the delay it had. */
  const fire = async (): Promise<number> => {
    const timer = time.next();
    if (!timer) throw new Error("no timer armed");
    const delay = timer.at - time.now;
    time.now = timer.at;
    time.pending.clear();
    timer.fn();
    await sender.idle();
    return delay;
  };
  return { time, outbox, sender, sent, fire };
}

const settingsWith = (extra: Partial<NotifySettings> = {}): NotifySettings => ({
  ...DEFAULT_NOTIFY_SETTINGS,
  channels: [HOOK],
  ...extra,
});
const payload = testPayload(0);

describe("Sender", () => {
  it("retries after 10 s, 30 s, 2 min, 10 min, 30 min, then every 30 min, and gives up after 24 h", async () => {
    const { time, outbox, sender, sent, fire } = setup(settingsWith(), () => ({
      ok: false,
      retry: true,
      detail: "the receiver answered HTTP 503",
    }));
    time.now = 1_000_000;
    await outbox.decide([{ channelId: "hook", payload }], [], time.now);
    await sender.pass();
    expect(sent).toEqual([1_000_000]);
    const delays: number[] = [];
    while (outbox.all()[0]!.outcome === "pending") delays.push(await fire());
    expect(delays.slice(0, 7)).toEqual([10_000, 30_000, 2 * MIN, 10 * MIN, 30 * MIN, 30 * MIN, 30 * MIN]);
    expect(delays.slice(0, 5)).toEqual(DEFAULT_BACKOFF_MS);
    const row = outbox.all()[0]!;
    expect(row.outcome).toBe("failed");
    expect(row.lastError).toMatch(/^gave up after \d+ attempts: the receiver answered HTTP 503$/);
    // The last attempt is the first at or past 24 h from the decision, and none came after it.
    expect(sent.at(-1)! - 1_000_000).toBeGreaterThanOrEqual(GIVE_UP_MS);
    expect(sent.at(-2)! - 1_000_000).toBeLessThan(GIVE_UP_MS);
    expect(row.attempts).toBe(sent.length);
    expect(time.next()).toBeUndefined();
    expect(outbox.statuses().get("hook")).toMatchObject({ pending: 0, lastError: row.lastError });
  });

  it("a refusal (another 4xx) is not retried; a success after failures clears the channel's error", async () => {
    let answer: DeliverResult = { ok: false, retry: false, detail: "the receiver answered HTTP 400" };
    const { time, outbox, sender, sent, fire } = setup(settingsWith(), () => answer);
    await outbox.decide([{ channelId: "hook", payload }], [], time.now);
    await sender.pass();
    expect(outbox.all()[0]).toMatchObject({ outcome: "failed", lastError: "the receiver answered HTTP 400" });
    expect(time.next()).toBeUndefined();

    answer = { ok: false, retry: true, detail: "the receiver answered HTTP 500" };
    time.now += 1_000;
    const second = { ...payload, episode: "test:2" };
    await outbox.decide([{ channelId: "hook", payload: second }], [], time.now);
    await sender.pass();
    expect(outbox.statuses().get("hook")).toMatchObject({
      lastError: "the receiver answered HTTP 500",
      pending: 1,
    });
    answer = { ok: true, status: 200 };
    expect(await fire()).toBe(10_000);
    expect(sent).toHaveLength(3);
    expect(outbox.statuses().get("hook")).toEqual({
      lastAttemptAt: time.now,
      lastDeliveredAt: time.now,
      lastError: null,
      pending: 0,
    });
  });

  it("quiet hours spanning midnight hold a message until they end (local time), then it goes once", async () => {
    const { time, outbox, sender, sent, fire } = setup(
      settingsWith({ quietHours: { start: "22:00", end: "07:00" } }),
      () => ({ ok: true, status: 200 }),
    );
    time.now = new Date(2030, 0, 10, 23, 30).getTime();
    await outbox.decide([{ channelId: "hook", payload }], [], time.now);
    await sender.pass();
    expect(sent).toEqual([]);
    const morning = new Date(2030, 0, 11, 7, 0).getTime();
    expect(time.next()?.at).toBe(morning);
    await fire();
    expect(sent).toEqual([morning]);
    expect(outbox.all()[0]?.outcome).toBe("delivered");

    // Before the quiet hours, it goes at once; after midnight but before 07:00 it waits again.
    await outbox.decide(
      [{ channelId: "hook", payload: { ...payload, episode: "e2" } }],
      [],
      morning + 13 * 60 * MIN,
    );
    time.now = new Date(2030, 0, 11, 21, 59).getTime();
    await sender.pass();
    expect(sent).toHaveLength(2);
    time.now = new Date(2030, 0, 12, 3, 0).getTime();
    await outbox.decide([{ channelId: "hook", payload: { ...payload, episode: "e3" } }], [], time.now);
    await sender.pass();
    expect(sent).toHaveLength(2);
    expect(time.next()?.at).toBe(new Date(2030, 0, 12, 7, 0).getTime());
  });

  it("a channel turned off drops what it had waiting; ORCHESTRATOR_NOTIFY_BACKOFF_MS sets the steps", async () => {
    const { outbox, sender, sent } = setup(settingsWith({ channels: [{ ...HOOK, enabled: false }] }), () => ({
      ok: true,
      status: 200,
    }));
    await outbox.decide([{ channelId: "hook", payload }], [], 0);
    await sender.pass();
    expect(sent).toEqual([]);
    expect(outbox.all()[0]?.outcome).toBe("dropped");
    expect(backoffFromEnv({ ORCHESTRATOR_NOTIFY_BACKOFF_MS: "200, 300" })).toEqual([200, 300]);
    expect(backoffFromEnv({ ORCHESTRATOR_NOTIFY_BACKOFF_MS: "fast" })).toEqual(DEFAULT_BACKOFF_MS);
    expect(backoffFromEnv({})).toEqual(DEFAULT_BACKOFF_MS);
  });
});
