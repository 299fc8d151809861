// The rollover's turn-end fields through the real background (content bridge, tab keeper, observations) over Dexie on
// fake-indexeddb: the handoff brief reaches the host with the idle report and nowhere else, and nothing stores it.
import { afterEach, describe, expect, it } from "vitest";
import { Harness, waitFor } from "../../test/extension/executor-harness.ts";
import type { OrchestratorDb } from "./db.ts";

const BRIEF = "done: SECRET-HANDOFF the parser\nnext steps: wire the adapter";

let h: Harness;
afterEach(() => h?.kill());

/** Every row of every table of the extension's database, as one string. */
async function everythingStored(db: OrchestratorDb): Promise<string> {
  const tables = await Promise.all(db.tables.map(async (t) => [t.name, await t.toArray()] as const));
  return JSON.stringify(tables);
}

describe("an idle report with a handoff brief", () => {
  it("is forwarded to the host with the brief and the visible length, and neither is stored", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const idles = () => h.sent("conversation.state").filter((m) => m.state === "idle");
    h.adapter(tabId).report("idle", { handoffBrief: BRIEF, visibleChars: 98_765 });
    await waitFor(() => idles().length === 1, "the idle report");
    expect(idles()[0]).toMatchObject({ workerId: "w1", handoffBrief: BRIEF, visibleChars: 98_765 });

    const observed = await h.db.observed.get("w1");
    expect(observed).toMatchObject({ workerId: "w1", state: "idle" });
    expect(observed).not.toHaveProperty("handoffBrief");
    expect(observed).not.toHaveProperty("visibleChars");
    const stored = await everythingStored(h.db);
    expect(stored).toContain('"observed"'); // the dump did read the tables
    expect(stored).not.toContain("SECRET-HANDOFF");
  });

  it("is sent once: a later read of the page that still shows that turn (adopting its tab) carries no brief", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await h.createWorker("w1");
    // The page still shows that finished turn afterwards: its current state holds the brief.
    h.adapter(tabId).report("idle", { handoffBrief: BRIEF, visibleChars: 10 });
    const idles = () => h.sent("conversation.state").filter((m) => m.state === "idle");
    await waitFor(() => idles().length === 1, "the idle report");
    // Adopting pings the page and reports what it shows now to the host: no turn end, so no brief and no length.
    await h.executor.adoptTab("w1", tabId, url);
    await waitFor(() => idles().length === 2, "the adopted tab's report");
    expect(idles()[1]).not.toHaveProperty("handoffBrief");
    expect(idles()[1]).not.toHaveProperty("visibleChars");
    expect(h.host.messages.filter((m) => JSON.stringify(m).includes("SECRET-HANDOFF"))).toHaveLength(1);
    expect(await everythingStored(h.db)).not.toContain("SECRET-HANDOFF");
  });
});
