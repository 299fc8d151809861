// The outbox on a real data directory: deciding the same episode for the same channel twice keeps one row, and the
// rows (and so the deduplication) survive closing and reopening the store, as they survive a host restart.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DurableStore } from "../store/durable-store.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { Outbox } from "./outbox.ts";
import { testPayload } from "./payload.ts";

const quiet = { warn: () => undefined, info: () => undefined };
let dir: string;
let store: DurableStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "orch-outbox-"));
  store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: quiet });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const payload = { ...testPayload(1_000), kind: "needs_you" as const, episode: "held:w-1:question:1000" };

describe("Outbox", () => {
  it("inserting an episode twice for a channel keeps one row; another channel gets its own", async () => {
    const outbox = new Outbox(store);
    expect(await outbox.decide([{ channelId: "hook", payload }], [], 2_000)).toBe(1);
    expect(await outbox.decide([{ channelId: "hook", payload: { ...payload, at: 9 } }], [], 3_000)).toBe(0);
    expect(await outbox.decide([{ channelId: "phone", payload }], [], 3_000)).toBe(1);
    const rows = outbox.all();
    expect(rows.map((r) => [r.episodeKey, r.channelId, r.outcome, r.decidedAt])).toEqual([
      ["held:w-1:question:1000", "hook", "pending", 2_000],
      ["held:w-1:question:1000", "phone", "pending", 3_000],
    ]);
    expect(rows[0]!.payload).toEqual(payload);
  });

  it("rows and their deduplication survive a reopen; delivery and status are kept too", async () => {
    let outbox = new Outbox(store);
    await outbox.decide([{ channelId: "hook", payload }], [], 2_000);
    await outbox.record(payload.episode, "hook", { outcome: "delivered" }, 2_500);
    await store.close();
    store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: quiet });
    outbox = new Outbox(store);
    expect(await outbox.decide([{ channelId: "hook", payload }], [], 4_000)).toBe(0);
    expect(outbox.all()).toHaveLength(1);
    expect(outbox.all()[0]).toMatchObject({ outcome: "delivered", deliveredAt: 2_500, attempts: 1 });
    expect(outbox.statuses().get("hook")).toEqual({
      lastAttemptAt: 2_500,
      lastDeliveredAt: 2_500,
      lastError: null,
      pending: 0,
    });
  });

  it("an episode that ends before delivery is dropped; a settled old row is pruned only once it ended", async () => {
    const outbox = new Outbox(store);
    await outbox.decide(
      [
        { channelId: "hook", payload },
        { channelId: "phone", payload },
      ],
      [],
      1_000,
    );
    await outbox.record(
      payload.episode,
      "phone",
      { outcome: "retry", error: "HTTP 500", nextAttemptAt: 5_000 },
      1_100,
    );
    expect(outbox.statuses().get("phone")).toMatchObject({ lastError: "HTTP 500", pending: 1 });
    await outbox.record(payload.episode, "hook", { outcome: "delivered" }, 1_200);
    await outbox.prune(10_000);
    expect(outbox.all()).toHaveLength(2); // the episode has not been seen to end
    await outbox.decide(
      [],
      [
        { episodeKey: payload.episode, channelId: "hook" },
        { episodeKey: payload.episode, channelId: "phone" },
      ],
      2_000,
    );
    expect(outbox.all().map((r) => [r.channelId, r.outcome, r.endedAt])).toEqual([
      ["hook", "delivered", 2_000],
      ["phone", "dropped", 2_000],
    ]);
    expect(outbox.unended()).toEqual([]);
    await outbox.prune(10_000);
    expect(outbox.all()).toEqual([]);
  });
});
