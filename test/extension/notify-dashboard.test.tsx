// @vitest-environment happy-dom
// The dashboard's side of notifications: the deep link every notification carries (`#worker=<id>` opens that
// worker's drill-down, choosing its run, on load and on a hash change; an unknown worker is said in words) and the
// Notifications health line (each enabled channel's delivery, a failing one in words and announced; hidden without
// channels); axe-core.
import { afterEach, describe, expect, it } from "vitest";
import { Dashboard } from "../../extension/dashboard/dashboard-view.tsx";
import type { WorkerView } from "../../shared/operations/views.ts";
import { maskedView, OK, scriptNotify } from "./notify-kit.ts";
import {
  byTestId,
  expectAccessible,
  mount,
  NOW,
  run,
  ScriptedBackground,
  settle,
  until,
  worker,
} from "./ui-kit.ts";

afterEach(() => {
  window.history.replaceState(null, "", "/");
  document.body.innerHTML = "";
});

/** Two runs: the active run-1 (chosen by default) and the older run-0, each with its workers. */
function dashboard(bg = new ScriptedBackground()): { root: HTMLElement; bg: ScriptedBackground } {
  const byRun: Record<string, WorkerView[]> = {
    "run-1": [worker("Working")],
    "run-0": [
      worker("Needs you", { runId: "run-0", name: "Billing database" }),
      worker("Paused", { runId: "run-0", name: "Docs" }),
    ],
  };
  const all = Object.values(byRun).flat();
  const older = run({ id: "run-0", name: "Older" });
  bg.answer("run_list", { runs: [run(), older] });
  bg.answer("run_get", (p: Record<string, unknown>) => ({
    run: p.runId === "run-0" ? older : run(),
    workers: byRun[p.runId as string] ?? [],
  }));
  // A test that scripted its own answer (a refusal) keeps it.
  if (!bg.answers.has("worker_get"))
    bg.answer("worker_get", (p: Record<string, unknown>) => ({
      worker: all.find((x) => x.id === p.workerId),
      attempts: [],
    }));
  bg.answer("ui_worker_detail", (p: Record<string, unknown>) => ({
    worker: all.find((w) => w.id === p.workerId),
    attempts: [],
    events: [],
  }));
  const root = mount(<Dashboard client={bg.client} now={() => NOW} />);
  return { root, bg };
}

const drillTitle = (root: HTMLElement) => byTestId(root, "drill")[0]?.querySelector("h2")?.textContent ?? "";

describe("dashboard deep link", () => {
  it("opens the drill-down of #worker=<id> on load, in that worker's run, and follows a hash change", async () => {
    window.location.hash = "#worker=w-needs-you";
    const { root, bg } = dashboard();
    await until(() => drillTitle(root) === "Worker Billing database", "the linked worker's drill-down");
    expect(bg.callsOf("worker_get")).toEqual([{ workerId: "w-needs-you" }]);
    // Its run is the one shown (not the active run chosen by default).
    const pressed = byTestId(root, "run").find((b) => b.getAttribute("aria-pressed") === "true");
    expect(pressed?.textContent).toContain("Older");
    expect(bg.callsOf("ui_worker_detail").at(-1)).toMatchObject({ workerId: "w-needs-you" });
    await expectAccessible(root);

    // A second notification's link, in the same tab.
    window.location.hash = "#worker=w-paused";
    await until(() => drillTitle(root) === "Worker Docs", "the newly linked worker");
    // Closing it drops the hash, so the same link opens it again.
    [...byTestId(root, "drill")[0]!.querySelectorAll("button")]
      .find((b) => b.textContent === "Close details")!
      .click();
    await until(() => byTestId(root, "drill").length === 0, "closed");
    expect(window.location.hash).toBe("");
    window.location.hash = "#worker=w-paused";
    await until(() => drillTitle(root) === "Worker Docs", "opened again by the same link");
  });

  it("a link to a worker the host does not know is said in words, and nothing else changes", async () => {
    window.location.hash = "#worker=w-gone";
    const bg = new ScriptedBackground();
    bg.refuse("worker_get", "NOT_FOUND", "no worker w-gone");
    const { root } = dashboard(bg);
    await until(() => root.querySelector('[role="alert"]') !== null, "the refusal");
    expect(root.querySelector('[role="alert"]')!.textContent).toBe(
      "The linked worker w-gone cannot be shown: no worker w-gone",
    );
    await until(() => byTestId(root, "worker-row").length === 1, "the default run");
    expect(byTestId(root, "drill")).toHaveLength(0);
  });

  it("without a #worker hash nothing is opened and no worker is asked for", async () => {
    window.location.hash = "#something-else";
    const { root, bg } = dashboard();
    await until(() => byTestId(root, "worker-row").length === 1, "rows");
    await settle();
    expect(bg.callsOf("worker_get")).toHaveLength(0);
    expect(byTestId(root, "drill")).toHaveLength(0);
  });
});

describe("dashboard Notifications line", () => {
  it("shows each enabled channel's last delivery, a failing one in words, and announces the failure", async () => {
    const bg = new ScriptedBackground();
    scriptNotify(bg, maskedView(NOW));
    const { root } = dashboard(bg);
    await until(() => byTestId(root, "notify-health").length === 1, "the line");
    const parts = byTestId(root, "notify-health-channel").map((e) => e.textContent);
    // The ntfy channel is off: not listed.
    expect(parts).toEqual([
      "● Phone (Telegram): Delivered 3 min ago",
      " · ✕ Team hook (Webhook): Failing: HTTP 500 from hooks.example.com · 1 waiting",
    ]);
    expect(byTestId(root, "notify-health")[0]!.textContent).not.toContain("•"); // no secret, even masked
    await until(
      () => byTestId(root, "announcer")[0]!.textContent.includes("Notifications to Team hook are failing"),
      "announced",
    );
    await expectAccessible(root);
  });

  it("is re-read on every change and hidden when no channel is on (or the host does not answer it)", async () => {
    const bg = new ScriptedBackground();
    const notify = scriptNotify(bg, maskedView(NOW));
    const { root } = dashboard(bg);
    await until(() => byTestId(root, "notify-health").length === 1, "the line");
    const reads = bg.callsOf("notify_settings").length;
    // The failing channel recovers; the host says so on the next read.
    notify.current().channels[1]!.status = {
      ...OK,
      lastAttemptAt: NOW - 60_000,
      lastDeliveredAt: NOW - 60_000,
    };
    bg.changed(2);
    await until(() => !byTestId(root, "notify-health")[0]!.textContent.includes("Failing"), "recovered");
    expect(bg.callsOf("notify_settings").length).toBeGreaterThan(reads);
    expect(byTestId(root, "notify-health")[0]!.textContent).toContain(
      "Team hook (Webhook): Delivered 1 min ago",
    );

    const none = new ScriptedBackground();
    scriptNotify(none, { ...maskedView(NOW), channels: [] });
    const empty = dashboard(none).root;
    await until(
      () => none.callsOf("notify_settings").length > 0 && byTestId(empty, "worker-row").length === 1,
      "read",
    );
    await settle();
    expect(byTestId(empty, "notify-health")).toHaveLength(0);

    const old = new ScriptedBackground(); // an older host: no answer for notify_settings
    const quiet = dashboard(old).root;
    await until(
      () => old.callsOf("notify_settings").length > 0 && byTestId(quiet, "worker-row").length === 1,
      "read",
    );
    await settle();
    expect(byTestId(quiet, "notify-health")).toHaveLength(0);
    expect(quiet.querySelector('[role="alert"]')).toBeNull();
  });
});
