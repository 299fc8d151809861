// Two Chromium profiles on one backend (docs/e2e.md). The first browser's host owns the data directory; the
// second browser's host relays to it. Two workers run to completion; each conversation lives in exactly one
// browser and every prompt is submitted exactly once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, readStatus, waitFor } from "./harness.ts";
import { completingTurn, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";

let a: ChromiumE2E;
let b: ChromiumE2E;

beforeAll(async () => {
  const ext = await buildExtension("chrome");
  a = await ChromiumE2E.start(ext);
  b = await ChromiumE2E.start(ext, { fake: a.fake, home: a.home });
  await waitFor(
    () => (readStatus(a.home)?.executors.length ?? 0) >= 2,
    "both executors on the owner",
    30_000,
  );
}, 180_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await a.diagnostics());
});

afterAll(async () => {
  await b?.close();
  await a?.close();
}, 60_000);

describe("two browser profiles on one backend (relay)", () => {
  it("runs two workers, one conversation per browser, with no double submission", async () => {
    a.fake.setAssistant(async (turn) => {
      if (turn.index <= 2) await workingTurn(turn, `step ${turn.index}`);
      else await completingTurn(turn);
    });
    const runId = await a.createRun(FAST_POLICY);
    const one = await a.spawn(runId, "/root");
    const two = await b.spawn(runId, "/root/lane");
    for (const id of [one, two])
      await a.waitWorker(
        id,
        `${id} complete and idle`,
        // A resume scheduled by the turn's idle can race the worker_complete call of that same turn; it is then
        // cancelled, never submitted (one submission in flight per worker). The submitted attempts are checked below.
        (w) =>
          w.worker.label === "Complete" &&
          (w.worker.attempt?.state === "completed" || w.worker.attempt?.state === "cancelled"),
        120_000,
      );
    await a.fake.settled();
    const tabsIn = (e2e: ChromiumE2E, conversationId: string) =>
      e2e.context.pages().filter((p) => p.url().includes(conversationId)).length;
    const hosts = new Set<ChromiumE2E>();
    for (const id of [one, two]) {
      const conversationId = await a.conversationOf(id);
      expect(tabsIn(a, conversationId) + tabsIn(b, conversationId)).toBe(1);
      hosts.add(tabsIn(a, conversationId) === 1 ? a : b);
      expect(a.fake.stored(conversationId)).toHaveLength(3);
      const w = await a.worker(id);
      expect(w.attempts.filter((x) => x.submittedAt !== null).map((x) => x.reason)).toEqual([
        "initial",
        "auto_resume",
        "auto_resume",
      ]);
    }
    // The backend spreads new conversations over the connected executors.
    expect(hosts.size).toBe(2);
    expect(a.fake.stored()).toHaveLength(6);
    expectCleanRun(a.fake);
  }, 180_000);
});
