// The end-to-end scenarios (docs/e2e.md) in real Chromium (one browser for the file): human block, pause then
// Continue now, delivery timeouts, a closed tab, root with two children, and the stall guard. Each asserts no manual prompt,
// no duplicate user message and no Retry click, and the attempts and reasons in the host's durable record.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, tool, waitFor, type WorkerOut } from "./harness.ts";
import { block, completingTurn, deferred, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";

let e2e: ChromiumE2E;
let runId: string | undefined;

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

beforeEach(() => {
  e2e.fake.reset();
  runId = undefined;
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
  // Leave nothing running for the next scenario.
  if (runId) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  await e2e.fake.settled();
});

afterAll(async () => {
  await e2e?.close();
});

const reasons = (w: WorkerOut) => w.attempts.map((a) => a.reason);

describe("end-to-end scenarios in Chromium", { timeout: 120_000 }, () => {
  it("human block: Needs you, no resume until resolved, then exactly one turn with the answer", async () => {
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("I need a decision first.");
        await turn.tool("worker_await_human", {
          workerId: turn.workerId,
          reason: "choice",
          question: "Postgres or SQLite?",
        });
        await turn.say(`\n\n${block("blocked", "waiting for a database choice")}`);
      } else {
        expect(turn.text).toContain("SQLite");
        await completingTurn(turn);
      }
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const blocked = await e2e.waitWorker(
      workerId,
      "Needs you, turn ended",
      (w) => w.worker.label === "Needs you" && w.worker.conversation.state === "idle",
    );
    expect(blocked.attempts).toHaveLength(1);
    expect(e2e.fake.stored()).toHaveLength(1);
    await tool(e2e.mcp, "human_resolve", { workerId, answer: "SQLite" });
    const done = await e2e.waitWorker(workerId, "complete", (w) => w.worker.label === "Complete");
    expect(reasons(done)).toEqual(["initial", "followup"]);
    expect(e2e.fake.stored()).toHaveLength(2);
    expectCleanRun(e2e.fake);
  });

  it("pause after the current turn, then Continue now: same conversation, exactly once", async () => {
    const gate = deferred();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        await gate.promise;
        await turn.say(`\n\n${block("working", "half way")}`);
      } else await completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");
    await tool(e2e.mcp, "worker_pause", { workerId });
    gate.resolve();
    const paused = await e2e.waitWorker(
      workerId,
      "paused after the turn",
      (w) => w.worker.label === "Paused" && w.worker.conversation.state === "idle",
    );
    expect(paused.attempts).toHaveLength(1);
    expect(e2e.fake.stored()).toHaveLength(1);
    const first = await tool<{ coalesced: boolean }>(e2e.mcp, "worker_continue_now", {
      workerId,
      clearPause: true,
    });
    const second = await tool<{ coalesced: boolean }>(e2e.mcp, "worker_continue_now", {
      workerId,
      clearPause: true,
    });
    expect([first.coalesced, second.coalesced]).toEqual([false, true]);
    const done = await e2e.waitWorker(workerId, "complete", (w) => w.worker.label === "Complete");
    expect(reasons(done)).toEqual(["initial", "manual_resume"]);
    expect(e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(e2e.fake.stored()).toHaveLength(2);
    expectCleanRun(e2e.fake);
  });

  it("delivery timeouts (stored, then lost) are each answered by one fresh `continue`, never Retry", async () => {
    e2e.fake.page.layout = "composer-2026";
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) await workingTurn(turn, "step 1");
      else if (turn.index === 2) turn.deliveryTimeout({ stored: true });
      else if (turn.index === 3) {
        expect(turn.text).toMatch(/^continue\n/);
        turn.deliveryTimeout({ stored: false });
      } else {
        expect(turn.text).toMatch(/^continue\n/);
        await completingTurn(turn);
      }
    });
    try {
      runId = await e2e.createRun(FAST_POLICY);
      const workerId = await e2e.spawn(runId, "/root");
      const conversationId = await e2e.conversationOf(workerId);
      const done = await e2e.waitWorker(
        workerId,
        "complete and the last turn ended",
        (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
      );
      expect(done.attempts).toHaveLength(4);
      expect(done.attempts.map((a) => a.outcome)).toEqual([
        expect.anything(),
        "delivery_timeout",
        "delivery_timeout",
        "turn_ended",
      ]);
      // The lost message is not in the transcript; the three others are, once each.
      expect(e2e.fake.stored(conversationId)).toHaveLength(3);
      expect(e2e.fake.userMessages).toHaveLength(4);
      expectCleanRun(e2e.fake);
    } finally {
      e2e.fake.page.layout = "classic";
    }
  });

  it("tab closed mid-turn: the conversation is reopened, the turn's end is seen, the next turn goes out once", async () => {
    const gate = deferred();
    e2e.fake.setAssistant(async (turn) => {
      await turn.say("Working on it.");
      if (turn.index === 1) await gate.promise;
      await turn.say(`\n\n${block(turn.index === 1 ? "working" : "complete", "half way")}`);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    const page = await e2e.pageFor(conversationId);
    await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");
    await page.close();
    gate.resolve();
    // The worker belongs to the conversation: its tab is reopened in the background and the turn's end observed.
    const done = await e2e.waitWorker(
      workerId,
      "the one resume answered",
      (w) => w.attempts.length === 2 && w.attempts[1]?.state === "blocked",
    );
    expect(done.worker.conversation.binding).toBe("bound");
    expect(done.attempts[0]?.state).toBe("idle");
    await e2e.fake.settled();
    expect(e2e.fake.stored(conversationId)).toHaveLength(2);
    expectCleanRun(e2e.fake);
  });

  it("root with two children: root resumes on their reports, the children complete, root completes, then nothing", async () => {
    e2e.fake.setAssistant(async (turn) => {
      const path = /\(path (\/root[^,]*),/.exec(turn.text)?.[1];
      if (turn.index === 1 && path === "/root") {
        await turn.say("Splitting the work into two lanes.");
        for (const lane of ["api", "ui"])
          await turn.tool("worker_spawn", {
            runId: turn.runId,
            path: `/root/${lane}`,
            objective: `build the ${lane}`,
          });
        await turn.tool("worker_progress", { workerId: turn.workerId, summary: "lanes spawned" });
        await turn.say(`\n\n${block("working", "lanes spawned")}`);
        return;
      }
      const { workers } = await turn.tool<{ workers: { id: string; path: string; status: string }[] }>(
        "worker_list",
        { runId: turn.runId },
      );
      const me = workers.find((w) => w.id === turn.workerId);
      if (me?.path === "/root") {
        const lanes = workers.filter((w) => w.path !== "/root");
        if (lanes.length === 2 && lanes.every((w) => w.status === "completed"))
          await completingTurn(turn, "integrated");
        else await workingTurn(turn, `lanes: ${lanes.map((w) => w.status).join(", ")}`);
      } else if (turn.index === 1) await workingTurn(turn, "first half");
      else await completingTurn(turn, "lane done");
    });
    runId = await e2e.createRun(FAST_POLICY);
    const rootId = await e2e.spawn(runId, "/root");
    const id = runId;
    await waitFor(
      async () =>
        (await tool<{ run: { status: string } }>(e2e.mcp, "run_get", { runId: id })).run.status ===
        "completed",
      "run completed",
      90_000,
    );
    const root = await e2e.waitWorker(rootId, "root idle", (w) => w.worker.conversation.state === "idle");
    expect(root.worker.label).toBe("Complete");
    expect(reasons(root)[0]).toBe("initial");
    expect(
      reasons(root)
        .slice(1)
        .every((r) => r === "auto_resume"),
    ).toBe(true);
    const { workers } = await tool<{ workers: { id: string; path: string; status: string }[] }>(
      e2e.mcp,
      "worker_list",
      { runId },
    );
    expect(workers.map((w) => [w.path, w.status]).sort()).toEqual([
      ["/root", "completed"],
      ["/root/api", "completed"],
      ["/root/ui", "completed"],
    ]);
    for (const w of workers) {
      // Read once the final turn is over: a worker that has reported complete may still be streaming that turn, and
      // its attempt ends (completed) with the idle the host observes. The conversation alone is not enough: a turn
      // just submitted still shows the idle of the turn before it until its generation is observed.
      const over = (x: WorkerOut) =>
        x.worker.conversation.state === "idle" &&
        x.attempts.every((a) => a.submittedAt === null || !["submitted", "generating"].includes(a.state));
      const out = await e2e.waitWorker(w.id, `${w.path} idle after its last turn`, over);
      // An attempt a lane's report scheduled for after the final turn is cancelled unsent when the worker completes.
      const last = out.attempts.findLastIndex((a) => a.submittedAt !== null);
      expect(out.attempts[last]?.state).toBe("completed");
      expect(out.attempts.slice(last + 1).map((a) => a.state)).toEqual(
        out.attempts.slice(last + 1).map(() => "cancelled"),
      );
    }
    await e2e.fake.settled();
    const total = e2e.fake.stored().length;
    // Every submitted attempt is one user message; attempts the run's end cancelled before submission are none.
    const attempts = (await Promise.all(workers.map((w) => e2e.worker(w.id)))).reduce(
      (n, w) => n + w.attempts.filter((a) => a.submittedAt !== null).length,
      0,
    );
    expect(total).toBe(attempts);
    expectCleanRun(e2e.fake);
  }, 150_000);

  it("stall: turns without progress warn, then pause for stall; Continue anyway resumes exactly once", async () => {
    let finish = false;
    e2e.fake.setAssistant(async (turn) => {
      if (finish) await completingTurn(turn);
      else await turn.say(`Still thinking about it.\n\n${block("working", "no progress")}`);
    });
    runId = await e2e.createRun({
      ...FAST_POLICY,
      stallWarningAfterNoProgressAttempts: 2,
      stallPauseAfterNoProgressAttempts: 3,
    });
    const workerId = await e2e.spawn(runId, "/root");
    const stalled = await e2e.waitWorker(
      workerId,
      "paused for stall",
      (w) => w.worker.label === "Stalled" && w.worker.conversation.state === "idle",
    );
    expect(stalled.worker.stallWarning).toBe(true);
    const before = stalled.attempts.length;
    expect(e2e.fake.stored()).toHaveLength(before);
    const { events } = await tool<{ events: { type: string }[] }>(e2e.mcp, "events_list", {
      cursor: 0,
      workerId,
      limit: 500,
    });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["continuation.warning", "continuation.paused_for_stall"]),
    );
    finish = true;
    await tool(e2e.mcp, "worker_resume", { workerId });
    const done = await e2e.waitWorker(workerId, "complete", (w) => w.worker.label === "Complete");
    expect(done.attempts).toHaveLength(before + 1);
    expect(e2e.fake.stored()).toHaveLength(before + 1);
    expectCleanRun(e2e.fake);
  });
});
