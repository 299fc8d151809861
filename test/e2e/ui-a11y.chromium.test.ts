// The operator UI's accessibility (docs/ui.md, "Accessibility") and review screenshots in real Chromium (one
// browser for the file): one worker walked through Working, Needs you, Paused and Complete, with axe-core (0 serious/critical) on the popup, dashboard, settings
// and the open overlay, and screenshots of each in each state into test-results/screenshots/; and a keyboard-only
// walkthrough of the popup (Tab / Enter / Space): every main control reached with visible focus, no trap, and
// Auto Resume, Pause and Continue now operated with the host's record to show for it.
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, tool, waitFor, type WorkerOut } from "./harness.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY, HeldTurns } from "./scenario-kit.ts";
import {
  axePage,
  DASHBOARD_URL,
  expectNoSeriousViolations,
  openPage,
  openPopup,
  OPTIONS_URL,
  OverlayProbe,
  screenshot,
  walkFourStates,
} from "./ui-kit.ts";

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
  if (runId) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  turns.releaseAll();
  await e2e.fake.settled();
  for (const p of opened.splice(0)) await p.close().catch(() => undefined);
});

afterAll(async () => {
  await e2e?.close();
});

async function track(p: Promise<Page>): Promise<Page> {
  const page = await p;
  opened.push(page);
  return page;
}

const reasons = (w: WorkerOut) => w.attempts.map((a) => a.reason);

describe("operator UI accessibility and screenshots in Chromium", { timeout: 180_000 }, () => {
  it("Working, Needs you, Paused, Complete: axe finds nothing serious on popup, dashboard, settings, overlay; screenshots", async () => {
    const first = held();
    const second = held();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Reading the repository first.");
        await turn.tool("worker_progress", { workerId: turn.workerId, summary: "read the code" });
        await first.promise;
        await turn.tool("worker_await_human", {
          workerId: turn.workerId,
          reason: "choice",
          question: "Postgres or SQLite?",
          choices: ["Postgres", "SQLite"],
        });
        return turn.say(`\n\n${block("blocked", "waiting for a database choice")}`);
      }
      if (turn.index === 2) {
        await turn.say("Migrating to SQLite.");
        await second.promise;
        return turn.say(`\n\n${block("working", "schema drafted")}`);
      }
      return completingTurn(turn, "migration done");
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root", "migrate the database");
    const tab = await e2e.pageFor(await e2e.conversationOf(workerId));
    await tab.setViewportSize({ width: 1100, height: 800 });
    await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");

    const popup = await track(openPopup(e2e, tab));
    const dashboard = await track(openPage(e2e, DASHBOARD_URL, "dashboard"));
    const overlay = await OverlayProbe.attach(tab);
    try {
      await overlay.openDrawer();
      const row = dashboard.locator(`[data-testid="worker-row"][data-worker-id="${workerId}"]`);
      // Every view shows the state before it is audited and photographed.
      const check = async (state: string, slug: string, popupState: string | null) => {
        if (popupState !== null)
          await expect
            .poll(() => popup.getByTestId("current-tab").getByTestId("state").getAttribute("data-state"))
            .toBe(popupState);
        // The popup lists unfinished workers only: a completed one has left it.
        else await expect.poll(() => popup.locator(`[data-worker-id="${workerId}"]`).count()).toBe(0);
        await expect.poll(() => row.getByTestId("state").getAttribute("data-state")).toBe(state);
        await overlay.waitBadge(state, (t) => t.includes(state));
        await waitFor(async () => (await overlay.find("overlay-drawer"))?.text.includes(state), "the drawer");
        expectNoSeriousViolations(await axePage(popup), `popup (${state})`);
        expectNoSeriousViolations(await axePage(dashboard), `dashboard (${state})`);
        expectNoSeriousViolations(await overlay.axe(), `overlay (${state})`);
        await screenshot(popup, `popup-${slug}`);
        await screenshot(dashboard, `dashboard-${slug}`);
        await screenshot(tab, `overlay-${slug}`, false);
      };

      await walkFourStates(e2e, workerId, { first, second, answer: "SQLite" }, dashboard, check);
    } finally {
      await overlay.close();
    }

    const settings = await track(openPage(e2e, OPTIONS_URL, "options"));
    await settings.getByTestId("max-generating").waitFor();
    expectNoSeriousViolations(await axePage(settings), "settings");
    await screenshot(settings, "settings");
    expectCleanRun(e2e.fake);
  });

  it("keyboard only: the popup's controls are reached in order with visible focus, no trap, and operate", async () => {
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
    const tab = await e2e.pageFor(await e2e.conversationOf(workerId));
    await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");
    const popup = await track(openPopup(e2e, tab));
    await popup.getByTestId("current-tab").getByTestId("pause").waitFor();

    /** What has the keyboard focus: its test id with the section it is in, and whether focus is visible. */
    const focused = () =>
      popup.evaluate(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return { key: "body", visible: false };
        const section = el.closest("[data-testid=current-tab]") ? "tab:" : "";
        const style = getComputedStyle(el);
        const visible =
          el.matches(":focus-visible") &&
          style.outlineStyle !== "none" &&
          parseFloat(style.outlineWidth) >= 2;
        return { key: section + (el.getAttribute("data-testid") ?? el.tagName.toLowerCase()), visible };
      });

    // One full cycle of Tab from the top: every stop shows its focus, and Tab leaves the last control.
    const order: string[] = [];
    for (let i = 0; i < 40; i++) {
      await popup.keyboard.press("Tab");
      const f = await focused();
      if (f.key === "body") {
        if (order.length > 0) break; // past the last control: focus left the page, nothing held it
        continue;
      }
      if (order.includes(f.key)) break; // wrapped round to the first control
      expect(f.visible, `focus visible on ${f.key}`).toBe(true);
      order.push(f.key);
    }
    expect(order).toEqual([
      "auto-resume",
      "pause", // the worker's row
      "tab:pause",
      "tab:continue-now",
      "open-dashboard",
      "open-settings",
    ]);

    /** Tab (from wherever focus is) until `key` has the focus, as a keyboard user would. */
    const tabTo = async (key: string) => {
      for (let i = 0; i < 20; i++) {
        if ((await focused()).key === key) return;
        await popup.keyboard.press("Tab");
      }
      throw new Error(`Tab never reached ${key}; focus is on ${(await focused()).key}`);
    };
    // Shift+Tab walks back the same way.
    await tabTo("open-settings");
    const back: string[] = [];
    for (let i = 0; i < order.length - 1; i++) {
      await popup.keyboard.press("Shift+Tab");
      back.push((await focused()).key);
    }
    expect(back).toEqual(order.slice(0, -1).reverse());
    const autoResumeEnabled = async () =>
      (await tool<{ autoResume: { enabled: boolean } }>(e2e.mcp, "ui_summary", {})).autoResume.enabled;

    // Space toggles the global Auto Resume off, Enter back on; the host's switch follows.
    await tabTo("auto-resume");
    await popup.keyboard.press("Space");
    await expect.poll(autoResumeEnabled).toBe(false);
    await expect.poll(() => popup.getByTestId("auto-resume").getAttribute("aria-checked")).toBe("false");
    expect((await focused()).key, "focus stays on the switch").toBe("auto-resume");
    await popup.keyboard.press("Enter");
    await expect.poll(autoResumeEnabled).toBe(true);
    await expect.poll(() => popup.getByTestId("auto-resume").getAttribute("aria-checked")).toBe("true");

    // Enter on the current conversation's Pause pauses the worker after its turn.
    await tabTo("tab:pause");
    await popup.keyboard.press("Enter");
    await e2e.waitWorker(workerId, "paused by the operator", (w) => w.worker.pause?.source === "operator");
    // The same button now says Resume, and the keyboard focus is still on it.
    await expect.poll(() => popup.getByTestId("current-tab").getByTestId("resume").count()).toBe(1);
    expect(await focused()).toEqual({ key: "tab:resume", visible: true });
    gate.resolve();
    await e2e.waitWorker(
      workerId,
      "paused after the turn",
      (w) => w.worker.label === "Paused" && w.worker.conversation.state === "idle",
    );
    expect(e2e.fake.stored()).toHaveLength(1);

    // Space on Continue now: exactly one more turn.
    await expect
      .poll(() => popup.getByTestId("current-tab").getByTestId("continue-now").isEnabled())
      .toBe(true);
    await tabTo("tab:continue-now");
    await popup.keyboard.press("Space");
    const done = await e2e.waitWorker(
      workerId,
      "complete, last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(done)).toEqual(["initial", "manual_resume"]);
    expect(e2e.fake.stored()).toHaveLength(2);

    // Enter on "Open dashboard" opens it, and the popup closes itself as a toolbar popup does.
    const dashboardOpened = e2e.context.waitForEvent("page", { predicate: (p) => p.url() === DASHBOARD_URL });
    const popupClosed = popup.waitForEvent("close");
    await tabTo("open-dashboard");
    // The key's release may reach a page that has already closed itself: only that failure is expected.
    await popup.keyboard.press("Enter").catch((e: unknown) => {
      if (!popup.isClosed()) throw e;
    });
    opened.push(await dashboardOpened);
    await popupClosed;
    expectCleanRun(e2e.fake);
  });
});
