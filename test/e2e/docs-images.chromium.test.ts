// The documentation pictures (docs/images/, shown by docs/ui.md and docs/operator-guide.md), taken from the real
// extension in Chromium against the fake chatgpt.com: the popup, the dashboard and the overlay on a managed tab with
// one worker in Working, Needs you, Paused and Complete, and the settings page. Every run takes every picture (into a
// temp dir, or into $ORCHESTRATOR_DOCS_IMAGES: `npm run docs:images` writes docs/images/), each after its view shows
// the state, so a broken view fails here. Icons: ⏸ needs a font that has it (Debian: fonts-symbola).
import { rmSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AssistantTurn } from "../fake-chatgpt/server.ts";
import { around, dressChatPage, expectPicture, imagesDir, overlayBox } from "./docs-images-kit.ts";
import { buildExtension, ChromiumE2E, tool, waitFor, type WorkerOut } from "./harness.ts";
import { block, expectCleanRun, FAST_POLICY, HeldTurns } from "./scenario-kit.ts";
import { DASHBOARD_URL, openPage, openPopup, OPTIONS_URL, OverlayProbe, walkFourStates } from "./ui-kit.ts";

const POPUP = { width: 360, height: 320 }; // the toolbar popup is 360 px wide; the picture grows to its content
const PAGE = { width: 1280, height: 800 };
const SETTINGS_WIDTH = 820; // the settings column is 760 px wide

let e2e: ChromiumE2E;
let runId: string | undefined;
const out = imagesDir();
const turns = new HeldTurns();

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
  if (runId) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  turns.releaseAll();
  await e2e.fake.settled();
});

afterAll(async () => {
  await e2e?.close();
  if (out.temp) rmSync(out.dir, { recursive: true, force: true });
});

/** The workers of the pictured run: the one walked through the states, and two beside it for a realistic list. */
const WORKERS = {
  coordinator: {
    path: "/root",
    name: "Coordinator",
    objective: "Upgrade the billing platform to Postgres 16 without downtime",
  },
  billing: {
    path: "/root/billing-db",
    name: "Billing database",
    objective: "Migrate the billing service to Postgres 16",
  },
  invoices: {
    path: "/root/invoice-api",
    name: "Invoice API",
    objective: "Update the invoice API for the Postgres 16 numeric types",
  },
} as const;
type Role = keyof typeof WORKERS;

describe("documentation pictures in Chromium", { timeout: 300_000 }, () => {
  it("popup, dashboard and overlay in Working, Needs you, Paused, Complete, and the settings page", async () => {
    const started = Date.now();
    const coordinatorTurn = turns.hold();
    const firstTurn = turns.hold();
    const secondTurn = turns.hold();
    const roles = new Map<string, Role>();

    const coordinator = async (turn: AssistantTurn) => {
      await turn.say("Splitting the upgrade into lanes: the billing database and the invoice API.");
      await turn.tool("worker_progress", {
        workerId: turn.workerId,
        summary: "Lanes assigned: billing-db, invoice-api",
      });
      await coordinatorTurn.promise; // the coordinator keeps generating for the whole walk
      await turn.say(`\n\n${block("working", "lanes running")}`);
    };
    const invoices = async (turn: AssistantTurn) => {
      await turn.say("Amounts are numeric(12,2) now; the contract tests pass against Postgres 16.");
      await turn.tool("worker_progress", {
        workerId: turn.workerId,
        summary: "Contract tests green on Postgres 16",
      });
      await turn.tool("worker_complete", {
        workerId: turn.workerId,
        summary: "Invoice API on numeric(12,2); contract tests green",
      });
      await turn.say(`\n\n${block("complete", "invoice API updated")}`);
    };
    const billing = async (turn: AssistantTurn) => {
      if (turn.index === 1) {
        await turn.say("Inventory first: 42 tables, 3 of them partitioned by month.");
        await turn.tool("worker_progress", {
          workerId: turn.workerId,
          summary: "Schema inventory done: 42 tables, 3 partitioned",
        });
        await firstTurn.promise;
        await turn.tool("worker_await_human", {
          workerId: turn.workerId,
          reason: "choice",
          question: "Cut over in Saturday's maintenance window, or now with logical replication?",
          choices: ["Saturday window", "Logical replication now"],
        });
        return turn.say(`\n\n${block("blocked", "waiting for the cut-over choice")}`);
      }
      if (turn.index === 2) {
        await turn.say("Setting up logical replication to the Postgres 16 cluster.");
        await turn.tool("worker_progress", {
          workerId: turn.workerId,
          summary: "Replication to Postgres 16 running, lag under 1 s",
        });
        await secondTurn.promise;
        return turn.say(`\n\n${block("working", "replication running")}`);
      }
      await turn.say("Cut over: writes go to Postgres 16, the old cluster is read-only.");
      await turn.tool("worker_complete", {
        workerId: turn.workerId,
        summary: "Billing runs on Postgres 16; old cluster read-only for a week",
      });
      return turn.say(`\n\n${block("complete", "billing on Postgres 16")}`);
    };
    const scripts: Record<Role, (turn: AssistantTurn) => Promise<void>> = { coordinator, billing, invoices };
    e2e.fake.setAssistant(async (turn) => {
      // The first turn may start before worker_spawn has answered the test: wait for its role.
      const role = await waitFor(() => roles.get(turn.workerId), `the role of worker ${turn.workerId}`);
      return scripts[role](turn);
    });

    const { run } = await tool<{ run: { id: string } }>(e2e.mcp, "run_create", {
      name: "Billing platform upgrade",
      objective: "Move billing and invoicing to Postgres 16 with no downtime",
      policy: FAST_POLICY,
    });
    runId = run.id;
    const ids = {} as Record<Role, string>;
    for (const role of ["coordinator", "invoices", "billing"] as const) {
      const { worker } = await tool<WorkerOut>(e2e.mcp, "worker_spawn", { runId, ...WORKERS[role] });
      ids[role] = worker.id;
      roles.set(worker.id, role);
    }
    const workerId = ids.billing;
    const tab = await e2e.pageFor(await e2e.conversationOf(workerId));
    await tab.setViewportSize(PAGE);
    await dressChatPage(tab);
    await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");
    await e2e.waitWorker(ids.invoices, "the invoice API complete", (w) => w.worker.label === "Complete");

    const popup = await openPopup(e2e, tab);
    await popup.setViewportSize(POPUP);
    const dashboard = await openPage(e2e, DASHBOARD_URL, "dashboard");
    await dashboard.setViewportSize(PAGE);
    const overlay = await OverlayProbe.attach(tab);
    const written: Record<string, number> = {};
    try {
      await overlay.openDrawer();
      await tab.mouse.move(PAGE.width / 2, PAGE.height / 2); // off the badge: no hover look in the pictures
      const row = dashboard.locator(`[data-testid="worker-row"][data-worker-id="${workerId}"]`);
      const popupRow = popup.getByTestId("current-tab");

      /** Each view shows `state` (popup: `popupState`, or the worker gone from it), then its picture is taken. */
      const shoot = async (state: string, slug: string, popupState: string | null) => {
        if (popupState !== null)
          await expect.poll(() => popupRow.getByTestId("state").getAttribute("data-state")).toBe(popupState);
        else {
          await expect.poll(() => popup.locator(`[data-worker-id="${workerId}"]`).count()).toBe(0);
          await expect.poll(() => popupRow.textContent()).toContain("No unfinished worker in this tab");
        }
        await expect.poll(() => row.getByTestId("state").getAttribute("data-state")).toBe(state);
        await expect(row.getByTestId("state").isVisible()).resolves.toBe(true);
        await overlay.waitBadge(state, (t) => t.includes(state));
        await waitFor(async () => (await overlay.find("overlay-drawer"))?.text.includes(state), "the drawer");
        for (const p of [popup, dashboard, tab])
          await p.evaluate(() => document.fonts.ready.then(() => true));

        // The whole popup, as tall as its content (a real one scrolls past 600 px; the picture shows all of it).
        await popup.screenshot({ path: file(`popup-${slug}`), fullPage: true });
        written[`popup-${slug}`] = expectPicture(file(`popup-${slug}`), POPUP.width, 300);

        // The dashboard down to its diagnostics, which show this test's temp paths and ports, not a reader's.
        const diagnosticsTop = await dashboard
          .getByTestId("diagnostics")
          .evaluate((el) => el.getBoundingClientRect().top);
        const dashboardClip = {
          x: 0,
          y: 0,
          width: PAGE.width,
          height: Math.min(diagnosticsTop, PAGE.height),
        };
        await dashboard.screenshot({ path: file(`dashboard-${slug}`), clip: dashboardClip });
        written[`dashboard-${slug}`] = expectPicture(file(`dashboard-${slug}`), PAGE.width, 400);

        // The overlay with the thread beside it, the newest prompt scrolled up under the header as ChatGPT scrolls it.
        const threadLeft = await tab.evaluate(async () => {
          const turns = document.querySelectorAll('[data-turn="user"]');
          const last = turns[turns.length - 1]!;
          window.scrollTo(0, last.getBoundingClientRect().top + window.scrollY - 72);
          // Two frames, so the scrolled thread is painted before the shot.
          for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(r));
          return document.getElementById("thread")!.getBoundingClientRect().left;
        });
        const box = await overlayBox(overlay);
        const clip = around(box, { left: box.x - threadLeft, top: 64, right: 16, bottom: 40 }, PAGE);
        await tab.screenshot({ path: file(`overlay-${slug}`), clip });
        written[`overlay-${slug}`] = expectPicture(file(`overlay-${slug}`), clip.width, 300);
      };

      await walkFourStates(
        e2e,
        workerId,
        { first: firstTurn, second: secondTurn, answer: "Logical replication now" },
        dashboard,
        shoot,
      );
    } finally {
      await overlay.close();
    }

    const settings: Page = await openPage(e2e, OPTIONS_URL, "options");
    await settings.setViewportSize({ width: SETTINGS_WIDTH, height: PAGE.height });
    await settings.getByTestId("max-generating").waitFor();
    await expect(settings.getByTestId("pref-overlay").isVisible()).resolves.toBe(true);
    await settings.screenshot({ path: file("settings"), fullPage: true });
    written.settings = expectPicture(file("settings"), SETTINGS_WIDTH, PAGE.height);

    expect(Object.keys(written).sort()).toEqual(EXPECTED_FILES);
    console.log(
      `docs pictures in ${out.dir} after ${((Date.now() - started) / 1000).toFixed(1)} s:\n` +
        Object.entries(written)
          .map(([name, bytes]) => `  ${name}.png ${(bytes / 1024).toFixed(1)} KB`)
          .join("\n"),
    );
    expectCleanRun(e2e.fake);
  });
});

const EXPECTED_FILES = [
  ...["popup", "dashboard", "overlay"].flatMap((view) =>
    ["working", "needs-you", "paused", "complete"].map((state) => `${view}-${state}`),
  ),
  "settings",
].sort();

function file(name: string): string {
  return path.join(out.dir, `${name}.png`);
}
