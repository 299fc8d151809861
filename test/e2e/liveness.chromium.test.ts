// "No silent hang" in real Chromium (docs/continuation-core.md, "Liveness"; docs/host.md, "Tab slots"): a worker
// spawned before any browser connects, four workers against three tab slots, Pause withdrawing a turn queued for a
// slot, and the popup's Auto Resume switch Off holding an adopted conversation. Page-side holds: liveness-page.*.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeChatGPT } from "../fake-chatgpt/server.ts";
import { connectMcp, exited, removeHome, spawnServe, tempHome } from "../host/host-harness.ts";
import {
  buildExtension,
  ChromiumE2E,
  readStatus,
  removeExtensionBuild,
  tool,
  waitFor,
  type WorkerOut,
} from "./harness.ts";
import {
  expectCleanRunWithHandTyped,
  expectNamedLiveness,
  livenessOf,
  popupRow,
  promptsOf,
  quietFor,
  waitLiveness,
} from "./liveness-kit.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY, HeldTurns } from "./scenario-kit.ts";
import { openPage, openPopup, OPTIONS_URL, POPUP_URL } from "./ui-kit.ts";
import { personalConversation, workerOf } from "./zero-setup-kit.ts";

const turns = new HeldTurns();
const submitted = (w: WorkerOut) => w.attempts.filter((a) => a.submittedAt !== null);
const RUN = { name: "E2E run", objective: "exercise the orchestrator end to end", policy: FAST_POLICY };

/**
 * First turns held open by the test (progress, then "working"), of every worker or of those `holds` names; every
 * other turn completes its worker.
 */
function heldFirstTurns(
  fake: FakeChatGPT,
  gate: { promise: Promise<void> },
  holds: (workerId: string) => boolean = () => true,
): void {
  fake.setAssistant(async (turn) => {
    if (turn.index > 1 || !holds(turn.workerId)) return completingTurn(turn);
    await turn.say("Working on it.");
    await gate.promise;
    await turn.tool("worker_progress", { workerId: turn.workerId, summary: "first step" });
    await turn.say(`\n\n${block("working", "first step")}`);
  });
}

let ext: string;
/** The file's browser, host and fake for every scenario but the first (which needs a host with no browser). */
let e2e: ChromiumE2E | undefined;
let runIds: string[] = [];
const opened: Page[] = [];

beforeAll(async () => {
  ext = await buildExtension("chrome");
}, 120_000);

afterEach(async (ctx) => {
  if (!e2e) return;
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
  // Leave nothing running for the next scenario.
  for (const runId of runIds.splice(0)) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  turns.releaseAll();
  await e2e.fake.settled();
  for (const p of opened.splice(0)) await p.close().catch(() => undefined);
});

afterAll(async () => {
  // The file's browser owns the build (removed on close).
  if (e2e) await e2e.close();
  else if (ext) removeExtensionBuild(ext);
});

async function track<T extends Page>(p: T | Promise<T>): Promise<T> {
  const page = await p;
  opened.push(page);
  return page;
}

async function newRun(policy: Record<string, unknown> = FAST_POLICY): Promise<string> {
  const runId = await e2e!.createRun(policy);
  runIds.push(runId);
  return runId;
}

describe("no browser at spawn", { timeout: 120_000 }, () => {
  it("a worker spawned while no browser is connected shows browser_not_connected; once one connects exactly one prompt goes", async () => {
    // The owner without a browser (`orchestrator serve`, docs/host.md); the browser's host then relays to it.
    const home = tempHome();
    const serve = spawnServe(home);
    const fake = await FakeChatGPT.start();
    let browser: ChromiumE2E | undefined;
    const mcp = await connectMcp(home);
    try {
      fake.setAssistant((turn) => completingTurn(turn));
      const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", RUN);
      const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", {
        runId: run.id,
        path: "/root",
        objective: "work at /root",
      });
      const workerId = worker.id;
      const before = await tool<WorkerOut>(mcp, "worker_get", { workerId });
      expect(livenessOf(before)).toMatchObject({
        state: "held",
        reason: "browser_not_connected",
        remedy: { action: "open_browser" },
        needsYou: true,
      });
      const summary = await tool<{ workers: { id: string; liveness: { reason: string } }[] }>(
        mcp,
        "ui_summary",
        {},
      );
      expect(summary.workers.find((w) => w.id === workerId)?.liveness.reason).toBe("browser_not_connected");

      // The assistant's tool calls go to the owner's MCP endpoint from the first turn on.
      const { token } = JSON.parse(readFileSync(path.join(home, "config.json"), "utf8")) as { token: string };
      fake.setConnectorUrl(`${readStatus(home)!.mcpUrl}/${token}`);
      const launchedAt = Date.now();
      browser = await ChromiumE2E.start(ext, { fake, home });
      const done = await browser.waitWorker(
        workerId,
        "complete, the first turn ended",
        (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
      );
      const { events } = await tool<{ events: { type: string; at: number }[] }>(browser.mcp, "events_list", {
        cursor: 0,
        workerId,
        limit: 100,
      });
      console.log(
        `from the browser's launch: ${events.map((e) => `${e.type} ${e.at - launchedAt} ms`).join(", ")}; ` +
          `prompt stored ${fake.stored()[0]!.at - launchedAt} ms`,
      );
      // The command waited for the browser, it was not refused and retried (docs/continuation-core.md).
      expect(events.map((e) => e.type)).not.toContain("execution.cancelled");
      expect(readStatus(home)?.pid).toBe(serve.pid); // still the served owner; the browser's host relays
      expect(done.attempts.map((a) => [a.reason, a.state])).toEqual([["initial", "completed"]]);
      await fake.settled();
      expect(fake.stored()).toHaveLength(1);
      expect(fake.conversations.size).toBe(1);
      expectCleanRun(fake);
      await expectNamedLiveness(browser);
    } catch (e) {
      console.error(browser ? await browser.diagnostics() : fake.formatLog());
      throw e;
    } finally {
      await browser?.close();
      await mcp.close().catch(() => undefined);
      serve.kill("SIGTERM");
      await exited(serve);
      await fake.close();
      removeHome(home);
    }
  });
});

describe("tab slots, Pause and the Auto Resume switch", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    e2e = await ChromiumE2E.start(ext);
  }, 120_000);

  beforeEach(() => {
    e2e!.fake.reset();
    runIds = [];
  });

  it("four workers against three tab slots: the fourth waits next in line (popup too), then all four complete", async () => {
    const b = e2e!;
    const first = turns.hold();
    heldFirstTurns(b.fake, first);
    // One run each, so no worker is woken by another's progress.
    const three: string[] = [];
    for (let i = 0; i < 3; i++) three.push(await b.spawn(await newRun(), "/root"));
    for (const id of three)
      await b.waitWorker(
        id,
        "its first turn generating",
        (w) => w.worker.conversation.state === "generating",
      );
    const fourth = await b.spawn(await newRun(), "/root");
    const slot = await waitLiveness(b, fourth, "tab_slot");
    expect(slot).toMatchObject({ state: "held", detail: { position: 1 }, remedy: { action: "none" } });
    expect(promptsOf(b.fake, fourth)).toBe(0);
    // The page shows a user turn (the proof of a submission) before its request reaches the server.
    await expect.poll(() => b.fake.stored().length).toBe(3);

    const popup = await track(openPopup(b, await b.pageFor(await b.conversationOf(three[0]!))));
    await expect
      .poll(() => popupRow(popup, fourth).getByTestId("liveness-line").textContent())
      .toBe("Waiting for a tab slot (next in line)");
    const named = await expectNamedLiveness(b);
    expect(three.map((id) => named.get(id)?.reason)).toEqual(["generating", "generating", "generating"]);
    expect(named.get(fourth)?.reason).toBe("tab_slot");

    first.resolve();
    for (const id of [...three, fourth]) {
      const done = await b.waitWorker(
        id,
        "complete, its last turn ended",
        (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
        90_000,
      );
      expect(submitted(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    }
    await b.fake.settled();
    for (const id of [...three, fourth]) expect(promptsOf(b.fake, id), id).toBe(2);
    expect(b.fake.stored()).toHaveLength(8);
    expectCleanRun(b.fake);
    await expectNamedLiveness(b);
  });

  it("Pause withdraws a turn waiting for a tab slot: it never reaches the page, even once the slot frees; Resume: one prompt", async () => {
    const b = e2e!;
    await setMaxGenerating(b, 1);
    try {
      const gate = turns.hold();
      let a = "";
      heldFirstTurns(b.fake, gate, (id) => id === a);
      a = await b.spawn(await newRun(), "/root");
      await b.waitWorker(a, "A generating", (w) => w.worker.conversation.state === "generating");
      const queued = await b.spawn(await newRun(), "/root");
      await waitLiveness(b, queued, "tab_slot", (l) => l.detail?.position === 1);

      await tool(b.mcp, "worker_pause", { workerId: queued });
      const paused = await b.waitWorker(
        queued,
        "paused, its scheduled attempt withdrawn",
        (w) => livenessOf(w)?.reason === "paused" && w.attempts[0]?.state === "cancelled",
      );
      expect(paused.attempts).toHaveLength(1);
      expect(paused.attempts[0]).toMatchObject({ errorCode: "CANCELLED", submittedAt: null });
      await expectNamedLiveness(b);

      // A's turn ends: the slot frees, A takes its next turn and completes; the withdrawn command stays withdrawn.
      gate.resolve();
      await b.waitWorker(
        a,
        "A complete, its last turn ended",
        (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
      );
      // The slot is free now; a few seconds show the withdrawn command is not offered to it.
      await quietFor(
        b,
        queued,
        3_000,
        "the paused worker once the slot is free",
        (w) => livenessOf(w)?.reason === "paused" && w.attempts.length === 1,
      );
      expect(promptsOf(b.fake, queued)).toBe(0);
      expect([...b.fake.conversations.values()].some((c) => c.workerId === queued)).toBe(false);

      await tool(b.mcp, "worker_resume", { workerId: queued });
      const done = await b.waitWorker(
        queued,
        "complete, its turn ended",
        (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
      );
      expect(done.attempts.map((x) => [x.reason, x.state])).toEqual([
        ["initial", "cancelled"],
        ["initial", "completed"],
      ]);
      expect(submitted(done)).toHaveLength(1);
      await b.fake.settled();
      expect(promptsOf(b.fake, queued)).toBe(1);
      expect(promptsOf(b.fake, a)).toBe(2);
      expect(b.fake.stored()).toHaveLength(3);
      expectCleanRun(b.fake);
      await expectNamedLiveness(b);
    } finally {
      await setMaxGenerating(b, 3);
    }
  });

  it("Auto Resume Off in the popup holds an adopted conversation: no prompt for 2 min though its turn ended idle; On: one prompt", async () => {
    const b = e2e!;
    const third = turns.hold();
    b.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return turn.say("Here is an outline of the three steps.");
      if (turn.index === 2) return turn.say(`Step 1 done.\n\n${block("working", "step 1")}`);
      if (turn.index === 3) {
        await turn.say("Working on step 2.");
        await third.promise;
        return turn.say(`\n\n${block("working", "step 2")}`);
      }
      return turn.say(`All steps are done.\n\n${block("complete", "all steps done")}`);
    });
    const { page, conversationId } = await personalConversation(b, "Please plan a three-step refactor.");
    opened.push(page);
    const popup = await track(openPopup(b, page));
    await popup.getByTestId("adopt-objective").fill("finish the refactor");
    await popup.getByTestId("adopt-button").click();
    const workerId = await waitFor(
      () => workerOf(b, conversationId).catch(() => undefined),
      "the adopted worker",
    );
    runIds.push((await b.worker(workerId)).worker.runId);
    try {
      // Going: the bootstrap turn ended and the automatic turn after it is generating.
      await b.waitWorker(
        workerId,
        "the automatic turn after the bootstrap generating",
        (w) => submitted(w).length === 2 && w.worker.conversation.state === "generating",
      );
      const toggle = popup.getByTestId("auto-resume");
      await expect.poll(() => toggle.getAttribute("aria-checked")).toBe("true");
      await toggle.click();
      await expect.poll(() => toggle.getAttribute("aria-checked")).toBe("false");
      await expect.poll(() => toggle.textContent()).toBe("Off");
      expect((await summary(b)).autoResume.enabled).toBe(false);

      third.resolve();
      await b.waitWorker(
        workerId,
        "the turn ended idle",
        (w) => w.attempts[1]?.state === "idle" && w.worker.conversation.state === "idle",
      );
      expect(b.fake.stored(conversationId)).toHaveLength(3);
      await quietFor(
        b,
        workerId,
        120_000,
        "Auto Resume off",
        (w) => livenessOf(w)?.reason === "auto_resume_off" && w.attempts.length === 2,
      );
      await expect
        .poll(() => popup.getByTestId("current-tab").getByTestId("liveness-line").textContent())
        .toBe("Auto Resume off");
      await expectNamedLiveness(b);

      await toggle.click();
      await expect.poll(() => toggle.getAttribute("aria-checked")).toBe("true");
      const done = await b.waitWorker(
        workerId,
        "complete, its last turn ended",
        (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
      );
      expect(done.attempts).toHaveLength(3);
      await b.fake.settled();
      expect(b.fake.stored(conversationId)).toHaveLength(4); // the person's message, the bootstrap, two turns
      expect(b.fake.stored()).toHaveLength(4);
      expectCleanRunWithHandTyped(b.fake, 1);
      await expectNamedLiveness(b);
    } finally {
      await ensureAutoResumeOn(b);
    }
  }, 240_000);
});

interface SummaryOut {
  autoResume: { enabled: boolean; on: boolean };
}

function summary(b: ChromiumE2E): Promise<SummaryOut> {
  return tool<SummaryOut>(b.mcp, "ui_summary", {});
}

/** The settings page's "Tabs generating at once", as a person sets it (docs/host.md, "Tab slots"). */
async function setMaxGenerating(b: ChromiumE2E, n: number): Promise<void> {
  const options = await openPage(b, OPTIONS_URL, "options");
  try {
    const input = options.getByTestId("max-generating");
    await input.waitFor();
    await input.fill(String(n));
    const save = options.getByTestId("save-max-generating");
    if (await save.isEnabled()) await save.click();
    await expect.poll(() => options.locator("#max-generating-help").textContent()).toMatch(` of ${n}.`);
  } finally {
    await options.close();
  }
}

/** The global switch back On (a failed scenario may have left it Off), through the popup: MCP has no tool for it. */
async function ensureAutoResumeOn(b: ChromiumE2E): Promise<void> {
  if ((await summary(b)).autoResume.enabled) return;
  const popup = await b.context.newPage();
  try {
    await popup.goto(POPUP_URL);
    await popup.getByTestId("auto-resume").click();
    await waitFor(async () => (await summary(b)).autoResume.enabled, "Auto Resume back on");
  } finally {
    await popup.close();
  }
}
