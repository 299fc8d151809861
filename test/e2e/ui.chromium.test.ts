// The operator UI (docs/ui.md) in real Chromium against the fake chatgpt.com (one browser for
// the file): the global Auto Resume switch; liveness lines with a rate limit's countdown and remedies (Continue now,
// Release, Resume); overlay Pause then popup Continue now; Needs you answered in the dashboard; the overlay only in
// managed tabs; a state change reaches an open popup within 1 s.
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, tool, waitFor, type WorkerOut } from "./harness.ts";
import {
  block,
  completingTurn,
  expectCleanRun,
  FAST_POLICY,
  HeldTurns,
  workingTurn,
} from "./scenario-kit.ts";
import {
  axePage,
  contentScriptWorlds,
  DASHBOARD_URL,
  expectNoSeriousViolations,
  openPage,
  openPopup,
  OVERLAY_HOST_ID,
  OverlayProbe,
  screenshot,
} from "./ui-kit.ts";
import { sendByHand } from "./zero-setup-kit.ts";

let e2e: ChromiumE2E;
let runId: string | undefined;
const opened: Page[] = [];
const turns = new HeldTurns();
const held = () => turns.hold();

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

beforeEach(() => {
  e2e.fake.reset();
  runId = undefined;
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
  // Leave nothing running for the next test, and no popup or dashboard re-reading in the background.
  if (runId) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  turns.releaseAll();
  await e2e.fake.settled();
  for (const p of opened.splice(0)) await p.close().catch(() => undefined);
});

afterAll(async () => {
  await e2e?.close();
});

const reasons = (w: WorkerOut) => w.attempts.map((a) => a.reason);

interface PolicyOut {
  worker: { policy: { mode: string } };
}
interface RunOut {
  run: { defaultPolicy: { mode: string } };
}
interface SummaryOut {
  autoResume: { enabled: boolean; on: boolean; automatic: number };
}
/** The worker's liveness as worker_get reports it (shared/liveness.ts). */
const liveness = (w: WorkerOut) =>
  (w.worker as { liveness?: { state: string; reason: string; until?: number } | null }).liveness ?? null;

/**
 * Polls the host's record until `until` (ms since the epoch): every poll must satisfy `ok`. This is the negative
 * check "nothing more is sent" — a deadline on a condition that must stay true, not a sleep that synchronises.
 */
async function stays(workerId: string, what: string, ok: (w: WorkerOut) => boolean, until: number) {
  for (;;) {
    const w = await e2e.worker(workerId);
    expect(ok(w), `${what} (${until - Date.now()} ms before the end of the window)`).toBe(true);
    if (Date.now() > until) return w;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function track<T extends Page>(p: T | Promise<T>): Promise<T> {
  const page = await p;
  opened.push(page);
  return page;
}

/** The time of the worker's latest durable event of `type` at or after `after` (host clock). */
async function lastEventAt(workerId: string, type: string, after = 0): Promise<number> {
  return waitFor(async () => {
    const { events } = await tool<{ events: { type: string; at: number }[] }>(e2e.mcp, "events_list", {
      cursor: 0,
      workerId,
      limit: 500,
    });
    return events.filter((e) => e.type === type && e.at >= after).at(-1)?.at;
  }, `event ${type} of ${workerId}`);
}

describe("operator UI in Chromium", { timeout: 120_000 }, () => {
  it("the popup's global Auto Resume switch: off, the next idle does not resume; on, exactly one resume", async () => {
    const second = held();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return workingTurn(turn, "step 1");
      if (turn.index === 2) {
        await turn.say("Still working.");
        await second.promise;
        return turn.say(`\n\n${block("working", "step 2")}`);
      }
      return completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const tab = await e2e.pageFor(await e2e.conversationOf(workerId));
    // On: the first idle resumes by itself.
    await e2e.waitWorker(
      workerId,
      "the automatic second turn generating",
      (w) => w.attempts.length === 2 && w.worker.conversation.state === "generating",
    );

    const popup = await track(openPopup(e2e, tab));
    const toggle = popup.getByTestId("auto-resume");
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe("true");
    await toggle.click();
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe("false");
    await expect.poll(() => toggle.textContent()).toBe("Off");
    // The global switch (auto_resume_set): nothing continues by itself, and no policy was changed for it.
    const summary = await tool<SummaryOut>(e2e.mcp, "ui_summary", {});
    expect(summary.autoResume).toMatchObject({ enabled: false, on: false });
    const run = await tool<RunOut>(e2e.mcp, "run_get", { runId });
    expect(run.run.defaultPolicy.mode).toBe("auto");
    expect((await tool<PolicyOut>(e2e.mcp, "worker_get", { workerId })).worker.policy.mode).toBe("auto");

    // Off: the second turn ends, the host sees the idle, and no third attempt follows (idle grace 300 ms;
    // the window is several times what a resume takes: idle → user turn ~1 s on this machine).
    second.resolve();
    const idle = await e2e.waitWorker(
      workerId,
      "the second turn ended",
      (w) => w.attempts[1]?.state === "idle" && w.worker.conversation.state === "idle",
    );
    const idleAt = await lastEventAt(workerId, "execution.idle");
    expect(idle.worker.pause).toBeNull();
    await stays(
      workerId,
      "no attempt while Auto Resume is off",
      (w) => w.attempts.length === 2 && w.worker.attempt?.state === "idle" && w.worker.label === "Idle",
      Math.max(Date.now(), idleAt) + 2500,
    );
    expect(e2e.fake.stored()).toHaveLength(2);
    // The popup says so: Idle (the turn is held for a person, not Resuming), and Continue now is offered.
    const current = popup.getByTestId("current-tab");
    await expect.poll(() => current.getByTestId("state").getAttribute("data-state")).toBe("Idle");
    await expect.poll(() => current.getByTestId("liveness-line").textContent()).toBe("Auto Resume off");
    await expect.poll(() => current.getByTestId("continue-now").isEnabled()).toBe(true);

    // On again: exactly one resume, which completes the worker.
    await toggle.click();
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe("true");
    const done = await e2e.waitWorker(
      workerId,
      "complete, last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(done)).toEqual(["initial", "auto_resume", "auto_resume"]);
    expect(e2e.fake.stored()).toHaveLength(3);
    expectCleanRun(e2e.fake);
  });

  it("the popup shows a rate limit's countdown to its local time and its remedy, Continue now: one turn goes", async () => {
    e2e.fake.setAssistant(async (turn) => {
      // The first turn hits ChatGPT's "Too many requests" dialog; the host waits (2 min without a reset time).
      if (turn.index === 1) return turn.rateLimit();
      return completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const tab = await e2e.pageFor(await e2e.conversationOf(workerId));
    const limited = await e2e.waitWorker(
      workerId,
      "rate limited",
      (w) => liveness(w)?.reason === "rate_limited",
    );
    expect(liveness(limited)).toMatchObject({ state: "due" });

    const popup = await track(openPopup(e2e, tab));
    const row = popup.locator(`[data-testid="worker"][data-worker-id="${workerId}"]`);
    const line = row.getByTestId("liveness-line");
    await expect.poll(() => row.getByTestId("state").getAttribute("data-state")).toBe("Waiting");
    // "Rate limited — resumes at 14:05 (in 1 min 58 s)": the host's due time in the browser's local time.
    await expect
      .poll(() => line.textContent())
      .toMatch(/^Rate limited — resumes at .+ \(in (2 min|1 min( \d+ s)?)\)$/);
    const until = liveness(limited)?.until ?? 0;
    const local = await popup.evaluate(
      (at) => new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }),
      until,
    );
    expect(await line.textContent()).toContain(`resumes at ${local} (in `);
    // The countdown moves by itself, once a second.
    const first = await line.textContent();
    await waitFor(
      async () => ((await line.textContent()) !== first ? true : undefined),
      "the countdown to move",
      3_000,
    );
    await expect
      .poll(() => row.getByTestId("remedy-text").textContent())
      .toContain("Continue now tries once earlier");
    expectNoSeriousViolations(await axePage(popup), "popup (rate limited)");
    await screenshot(popup, "popup-rate-limited");

    // A person reads ChatGPT's notice and closes it (the page refuses to send while it shows), then uses the
    // remedy in the worker's row: one manual turn, which completes the worker.
    await tab.getByRole("button", { name: "Got it" }).click();
    expect(liveness(await e2e.worker(workerId))?.reason).toBe("rate_limited");
    await row.getByTestId("continue-now").click();
    const done = await e2e.waitWorker(
      workerId,
      "complete, last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    // The remedy made the one manual turn after the limit. What follows is not the UI's business: under load the
    // fake page has reported that turn idle before its answer streamed, and Auto Resume then sent one more.
    expect(reasons(done).slice(0, 2)).toEqual(["initial", "manual_resume"]);
    expect(reasons(done).filter((r) => r === "manual_resume")).toHaveLength(1);
    expectCleanRun(e2e.fake);
  });

  it("held workers in the popup say why and offer their remedy: Release for a dependency wait, Resume for a pause", async () => {
    let childId = "";
    const childKnown = held();
    const childGate = held();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.workerId === childId) {
        if (turn.index === 1) {
          await turn.say("Building the backend.");
          await childGate.promise;
          return turn.say(`\n\n${block("working", "backend half done")}`);
        }
        return completingTurn(turn, "backend done");
      }
      if (turn.index === 1) {
        await childKnown.promise;
        await turn.say("I need the backend first.");
        await turn.tool("worker_await_dependency", {
          workerId: turn.workerId,
          condition: "the backend lands",
          onWorkerIds: [childId],
        });
        return turn.say(`\n\n${block("working", "waiting for the backend")}`);
      }
      return completingTurn(turn, "frontend done");
    });
    runId = await e2e.createRun(FAST_POLICY);
    const rootId = await e2e.spawn(runId, "/root", "build the frontend");
    childId = await e2e.spawn(runId, "/root/backend", "build the backend");
    childKnown.resolve();
    await e2e.waitWorker(
      rootId,
      "waiting for /root/backend, turn ended",
      (w) => liveness(w)?.reason === "waiting_for_workers" && w.worker.conversation.state === "idle",
    );
    await e2e.waitWorker(
      childId,
      "the child generating",
      (w) => w.worker.conversation.state === "generating",
    );
    await tool(e2e.mcp, "worker_pause", { workerId: childId });
    await e2e.waitWorker(childId, "paused while generating", (w) => liveness(w)?.reason === "paused");

    const tab = await e2e.pageFor(await e2e.conversationOf(rootId));
    const popup = await track(openPopup(e2e, tab));
    const rootRow = popup.locator(`[data-testid="worker"][data-worker-id="${rootId}"]`);
    const childRow = popup.locator(`[data-testid="worker"][data-worker-id="${childId}"]`);
    await expect
      .poll(() => rootRow.getByTestId("liveness-line").textContent())
      .toBe("Waiting for workers: /root/backend (the backend lands)");
    await expect.poll(() => childRow.getByTestId("liveness-line").textContent()).toBe("Paused by you");
    expect(await rootRow.getByTestId("release-wait").textContent()).toBe("Release");
    expect(await childRow.getByTestId("resume").textContent()).toBe("Resume");
    expectNoSeriousViolations(await axePage(popup), "popup (held)");
    await screenshot(popup, "popup-held");

    // Release ends the wait: the root goes on while its child is still unfinished.
    await rootRow.getByTestId("release-wait").click();
    const rootDone = await e2e.waitWorker(
      rootId,
      "the root complete, last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(rootDone)).toHaveLength(2);
    expect((await e2e.worker(childId)).worker.status).toBe("active");
    // Resume lifts the pause: once the child's turn ends, Auto Resume sends its next one.
    await childRow.getByTestId("resume").click();
    await e2e.waitWorker(childId, "pause lifted", (w) => w.worker.pause === null);
    childGate.resolve();
    const childDone = await e2e.waitWorker(
      childId,
      "the child complete, last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(childDone)).toEqual(["initial", "auto_resume"]);
    expectCleanRun(e2e.fake);
  });

  it("Pause in the overlay, then Continue now in the popup: exactly one resume", async () => {
    const gate = held();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        await gate.promise;
        return turn.say(`\n\n${block("working", "half way")}`);
      }
      return completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    const tab = await e2e.pageFor(conversationId);
    await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");

    const overlay = await OverlayProbe.attach(tab);
    try {
      await overlay.waitBadge("Working", (t) => t.includes("Working"));
      await overlay.openDrawer();
      // The overlay, drawer open, covers none of the page's own controls: a pointer at the composer and its
      // buttons (Send or Stop, voice, dictation) still reaches the page's element, not the overlay's host.
      const hits = await tab.evaluate((hostId) => {
        const host = document.getElementById(hostId);
        const controls = document.querySelectorAll(
          'form [contenteditable="true"], form button, [data-testid="send-button"], [data-testid="stop-button"]',
        );
        return [...controls].map((el) => {
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return {
            visible: r.width > 0 && r.height > 0,
            onOverlay: hit !== null && host?.contains(hit) === true,
          };
        });
      }, OVERLAY_HOST_ID);
      expect(hits.filter((h) => h.visible).length).toBeGreaterThanOrEqual(2);
      expect(hits.filter((h) => h.onOverlay)).toEqual([]);
      await overlay.click("pause");
      await e2e.waitWorker(workerId, "paused by the operator", (w) => w.worker.pause?.source === "operator");
      gate.resolve();
      await e2e.waitWorker(
        workerId,
        "paused after the turn",
        (w) => w.worker.label === "Paused" && w.worker.attempt?.state === "idle",
      );
      await overlay.waitBadge("Paused", (t) => t.includes("Paused"));
    } finally {
      await overlay.close();
    }
    expect(e2e.fake.stored()).toHaveLength(1);

    const popup = await track(openPopup(e2e, tab));
    const current = popup.getByTestId("current-tab");
    await expect.poll(() => current.getByTestId("state").getAttribute("data-state")).toBe("Paused");
    await current.getByTestId("continue-now").click();
    const done = await e2e.waitWorker(
      workerId,
      "complete, last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(done)).toEqual(["initial", "manual_resume"]);
    expect(done.worker.pause).toBeNull();
    expect(e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(e2e.fake.stored()).toHaveLength(2);
    expectCleanRun(e2e.fake);
  });

  it("answering Needs you in the dashboard releases the worker: one turn follows, carrying the answer", async () => {
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("I need a decision first.");
        await turn.tool("worker_await_human", {
          workerId: turn.workerId,
          reason: "choice",
          question: "Postgres or SQLite?",
        });
        return turn.say(`\n\n${block("blocked", "waiting for a database choice")}`);
      }
      expect(turn.text).toContain("Use SQLite, keep it small.");
      return completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    await e2e.waitWorker(
      workerId,
      "Needs you, turn ended",
      (w) => w.worker.label === "Needs you" && w.worker.conversation.state === "idle",
    );

    const dashboard = await track(openPage(e2e, DASHBOARD_URL, "dashboard"));
    const item = dashboard.locator(`[data-testid="needs-you-item"][data-worker-id="${workerId}"]`);
    await expect.poll(() => item.textContent()).toContain("Postgres or SQLite?");
    await item.getByTestId("answer").fill("Use SQLite, keep it small.");
    await item.getByTestId("send-answer").click();
    const done = await e2e.waitWorker(
      workerId,
      "complete, last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(done)).toEqual(["initial", "followup"]);
    const stored = e2e.fake.stored();
    expect(stored).toHaveLength(2);
    expect(stored[1]!.text).toContain("Use SQLite, keep it small.");
    // The item is gone from the dashboard once the host has the answer.
    await expect.poll(() => item.count()).toBe(0);
    expectCleanRun(e2e.fake);
  });

  it("the overlay exists only in managed tabs: none in a conversation opened by hand, until it is adopted", async () => {
    const gate = held();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.text.startsWith("Hello")) return turn.say("Hello to you too.");
      await turn.say("Working on it.");
      await gate.promise;
      return turn.say(`\n\n${block("working", "half way")}`);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const managed = await e2e.pageFor(await e2e.conversationOf(workerId));
    const managedProbe = await OverlayProbe.attach(managed);
    const byHand = await track(e2e.context.newPage());
    const handProbe = await OverlayProbe.attach(byHand);
    try {
      await managedProbe.waitBadge("Working", (t) => t.includes("Working"));
      expect(await managedProbe.shadowInfo()).toMatchObject({ type: "closed" });

      // A person's own conversation in another tab.
      await sendByHand(e2e, byHand, "Hello, just chatting.");
      // The content script runs there (the extension's world exists), yet no overlay element was added.
      expect(await contentScriptWorlds(byHand)).toContain("ChatGPT Orchestrator");
      expect(await byHand.locator(`#chatgpt-orchestrator-overlay`).count()).toBe(0);
      expect(await handProbe.shadowInfo()).toBeUndefined();
      // The managed tab still has it: both tabs are live at the same time.
      expect(await managedProbe.find("overlay-badge")).toBeDefined();

      // Adopting the conversation makes the same tab managed: now it has the overlay; Release removes it.
      const popup = await track(openPopup(e2e, byHand));
      await popup.getByTestId("adopt-button").click();
      await handProbe.waitBadge("an adopted worker", (t) => t.length > 0);
      await popup.reload();
      await popup.getByTestId("release-button").click();
      await waitFor(
        async () => (await handProbe.shadowInfo()) === undefined,
        "the overlay removed on release",
      );
      expect(await byHand.locator(`#chatgpt-orchestrator-overlay`).count()).toBe(0);
    } finally {
      gate.resolve();
      await managedProbe.close();
      await handProbe.close();
    }
  });

  it("a state change reaches an open popup within 1 s", async () => {
    const gate = held();
    e2e.fake.setAssistant(async (turn) => {
      await turn.say("Working on it.");
      await gate.promise;
      await turn.say(`\n\n${block("working", "half way")}`);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const tab = await e2e.pageFor(await e2e.conversationOf(workerId));
    await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");
    const popup = await track(openPopup(e2e, tab));
    const row = popup.locator(`[data-testid="worker"][data-worker-id="${workerId}"]`);
    await expect.poll(() => row.getByTestId("state").getAttribute("data-state")).toBe("Working");
    // The popup records, in its own clock (the same system clock as the host's), when the row says Paused.
    await popup.evaluate((id) => {
      const w = window as unknown as { __pausedAt?: number };
      const seen = () => {
        const el = document.querySelector(
          `[data-testid="worker"][data-worker-id="${id}"] [data-testid="state"]`,
        );
        if (el?.getAttribute("data-state") === "Paused" && w.__pausedAt === undefined)
          w.__pausedAt = Date.now();
      };
      new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true });
    }, workerId);

    const actedAt = Date.now();
    await tool(e2e.mcp, "worker_pause", { workerId }); // an operator elsewhere (here: MCP) pauses the worker
    const pausedAt = await waitFor(
      () => popup.evaluate(() => (window as unknown as { __pausedAt?: number }).__pausedAt),
      "the popup to show Paused",
    );
    const hostAt = await lastEventAt(workerId, "execution.paused", actedAt - 1000);
    const lag = pausedAt - hostAt;
    console.log(`popup update: ${lag} ms after the host's event, ${pausedAt - actedAt} ms after the call`);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThanOrEqual(1000);
    gate.resolve();
  });
});
