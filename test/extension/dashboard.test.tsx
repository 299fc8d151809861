// @vitest-environment happy-dom
// The dashboard in every worker state and disconnected: run list and run controls (17.5), Needs-you answers,
// stall recovery actions (16.4), worker table with overrides distinct from the run default, drill-down, axe-core.
import { afterEach, describe, expect, it } from "vitest";
import { Dashboard } from "../../extension/dashboard/dashboard-view.tsx";
import type { WorkerView } from "../../extension/ui/view-models.ts";
import {
  button,
  byTestId,
  expectAccessible,
  mount,
  NOW,
  run,
  ScriptedBackground,
  settle,
  STATES,
  status,
  until,
  worker,
} from "./ui-kit.ts";

afterEach(() => {
  document.body.innerHTML = "";
});

function dashboard(
  workers: WorkerView[],
  bg = new ScriptedBackground(),
): { root: HTMLElement; bg: ScriptedBackground } {
  bg.answer("run_list", { runs: [run(), run({ id: "run-0", name: "Older", status: "completed" })] });
  bg.answer("run_get", { run: run(), workers });
  bg.answer("ui_worker_detail", (p: Record<string, unknown>) => ({
    worker: { ...workers.find((w) => w.id === p.workerId), worktrees: ["repo/wt-a"] },
    attempts: [
      {
        seq: 1,
        reason: "initial",
        state: "completed",
        promptKind: "initial",
        promptId: "initial@1",
        executorId: "chromium-profile-1",
        wakeReasons: [],
        scheduledAt: NOW - 60_000,
        submittedAt: NOW - 59_000,
        terminalAt: NOW - 30_000,
        outcome: "idle",
        errorCode: null,
      },
    ],
    events: [{ seq: 7, type: "execution.submitted", at: NOW - 59_000, data: {} }],
  }));
  const root = mount(<Dashboard client={bg.client} now={() => NOW} />);
  return { root, bg };
}

describe("dashboard in each worker state", () => {
  for (const label of STATES) {
    it(`${label}: table row with state words, the right recovery tools, accessible`, async () => {
      const { root } = dashboard([worker(label)]);
      await until(() => byTestId(root, "worker-row").length === 1, "row");
      const row = byTestId(root, "worker-row")[0]!;
      expect(byTestId(row, "state")[0]!.textContent).toContain(
        label === "Stalled" ? "Paused for stall" : label,
      );
      expect(byTestId(root, "needs-you").length).toBe(label === "Needs you" ? 1 : 0);
      expect(byTestId(root, "stalls").length).toBe(label === "Stalled" ? 1 : 0);
      expect(byTestId(row, "stop-worker").length).toBe(label === "Complete" ? 0 : 1);
      await expectAccessible(root);
    });
  }

  it("diagnostics show the data directory and the MCP connector URL masked, with a copy button", async () => {
    const bg = new ScriptedBackground();
    bg.answer("host_settings", (p: Record<string, unknown>) => ({
      hostVersion: "0.1.0",
      dataDir: "/home/me/.orchestrator",
      mcp: {
        port: 8765,
        url: "http://127.0.0.1:8765/mcp",
        connectorUrl: `http://127.0.0.1:8765/mcp/${p.reveal === true ? "f".repeat(64) : "••••••••ffff"}`,
        token: p.reveal === true ? "f".repeat(64) : "••••••••ffff",
        revealed: p.reveal === true,
      },
    }));
    const { root } = dashboard([worker("Working")], bg);
    await until(() => byTestId(root, "data-dir")[0]?.textContent === "/home/me/.orchestrator", "data dir");
    expect(byTestId(root, "diag-mcp")[0]!.textContent).toBe("http://127.0.0.1:8765/mcp/••••••••ffff");
    expect(byTestId(root, "mcp-copy")).toHaveLength(1);
    expect(bg.callsOf("host_settings")).toEqual([{}]); // never asked to reveal just to show it
    await expectAccessible(root);
  });

  it("disconnected: the banner with the fix, no run data, diagnostics still shown", async () => {
    const bg = new ScriptedBackground(status({ connection: "host-not-installed", error: "not found" }));
    const { root } = dashboard([worker("Working")], bg);
    await settle();
    expect(byTestId(root, "connection-banner")[0]!.textContent).toContain("npx orchestrator install");
    expect(byTestId(root, "worker-row")).toHaveLength(0);
    expect(bg.calls).toHaveLength(0);
    expect(byTestId(root, "diagnostics")[0]!.textContent).toContain("chromium-0a1b2c3d");
    await expectAccessible(root);
  });
});

describe("dashboard actions", () => {
  it("run controls: Auto Resume, pause all, resume all, and Stop run only after confirmation", async () => {
    const { root, bg } = dashboard([worker("Working")]);
    bg.answer("run_continuation_set_default", {}).answer("run_pause_all", {}).answer("run_resume_all", {});
    bg.answer("run_stop", {});
    await until(() => byTestId(root, "run-controls").length === 1, "controls");
    byTestId(root, "run-auto-resume")[0]!.click();
    byTestId(root, "pause-all")[0]!.click();
    byTestId(root, "resume-all")[0]!.click();
    byTestId(root, "stop-run")[0]!.click();
    await settle();
    expect(bg.callsOf("run_stop")).toHaveLength(0);
    // The confirmation takes focus on Cancel (the safe choice); Escape would close it.
    expect(document.activeElement?.textContent).toBe("Cancel");
    byTestId(root, "stop-run-confirm")[0]!.click();
    await until(() => bg.callsOf("run_stop").length === 1, "stop run");
    expect(bg.callsOf("run_continuation_set_default")).toEqual([
      { runId: "run-1", patch: { mode: "manual" } },
    ]);
    expect(bg.callsOf("run_pause_all")).toEqual([{ runId: "run-1" }]);
    expect(bg.callsOf("run_resume_all")).toEqual([{ runId: "run-1" }]);
  });

  it("Escape cancels a destructive confirmation without calling anything", async () => {
    const { root, bg } = dashboard([worker("Working")]);
    await until(() => byTestId(root, "stop-worker").length === 1, "stop");
    byTestId(root, "stop-worker")[0]!.click();
    await settle();
    document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    expect(byTestId(root, "stop-worker-confirm")).toHaveLength(0);
    expect(document.activeElement).toBe(byTestId(root, "stop-worker")[0]);
    expect(bg.callsOf("worker_stop")).toHaveLength(0);
  });

  it("answers a Needs-you item with a typed answer, a choice, or resolves it without one", async () => {
    const w = worker("Needs you");
    const { root, bg } = dashboard([w]);
    bg.answer("human_resolve", {});
    await until(() => byTestId(root, "needs-you-item").length === 1, "item");
    const item = byTestId(root, "needs-you-item")[0]!;
    expect(item.textContent).toContain("Ship A or B?");
    const send = byTestId(item, "send-answer")[0] as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    const box = byTestId(item, "answer")[0] as HTMLTextAreaElement;
    box.value = "Ship B, and say why";
    box.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    send.click();
    button(item, "A").click();
    button(item, "Resolve without answer").click();
    await until(() => bg.callsOf("human_resolve").length === 3, "three resolves");
    expect(bg.callsOf("human_resolve")).toEqual([
      { workerId: w.id, answer: "Ship B, and say why" },
      { workerId: w.id, answer: "A" },
      { workerId: w.id },
    ]);
  });

  it("stall warning offers Continue anyway, Open conversation and a confirmed Stop worker", async () => {
    const w = worker("Stalled");
    const { root, bg } = dashboard([w]);
    bg.answer("worker_resume", {});
    await until(() => byTestId(root, "stall-item").length === 1, "stall");
    const item = byTestId(root, "stall-item")[0]!;
    expect(item.textContent).toContain("20 turns without progress");
    byTestId(item, "continue-anyway")[0]!.click();
    byTestId(item, "open-conversation")[0]!.click();
    await until(() => bg.callsOf("worker_resume").length === 1, "resume");
    expect(bg.other).toContainEqual({ type: "open-conversation", workerId: w.id, url: w.conversation.url });
    // A warned worker that still runs can be paused from the warning too.
    const warned = worker("Working", { stallWarning: true, noProgressAttempts: 11 });
    const again = dashboard([warned]);
    await until(() => byTestId(again.root, "stall-pause").length === 1, "pause offered");
  });

  it("worker override of Auto Resume is visibly and textually distinct from the run default", async () => {
    const own = worker("Working", { id: "own", policyOverride: { mode: "manual" } });
    own.policy.mode = "manual";
    const { root } = dashboard([own, worker("Resuming")]);
    await until(() => byTestId(root, "policy").length === 2, "policies");
    const [overridden, inherited] = byTestId(root, "policy");
    expect(overridden!.textContent).toContain("Off (worker override; run default On)");
    expect(overridden!.querySelector(".override")).not.toBeNull();
    expect(inherited!.textContent).toBe("On (run default)");
  });

  it("drill-down shows execution attempts with reason, times, outcome and prompt version, and the event trail", async () => {
    const { root, bg } = dashboard([worker("Working")]);
    await until(() => byTestId(root, "drill-down").length === 1, "row");
    byTestId(root, "drill-down")[0]!.click();
    await until(() => byTestId(root, "attempts").length === 1, "attempts");
    const drill = byTestId(root, "drill")[0]!;
    expect(byTestId(drill, "attempts")[0]!.textContent).toContain("initial@1");
    expect(byTestId(drill, "attempts")[0]!.textContent).toContain("chromium-profile-1");
    expect(byTestId(drill, "provenance")[0]!.textContent).toContain("/root/working");
    expect(byTestId(drill, "provenance")[0]!.textContent).toContain("repo/wt-a");
    expect(byTestId(drill, "events")[0]!.textContent).toContain("execution submitted");
    expect(bg.callsOf("ui_worker_detail")[0]).toEqual({ workerId: "w-working", recentEvents: 50 });
    await expectAccessible(root);
  });

  it("re-reads the run on ui.changed", async () => {
    const { root, bg } = dashboard([worker("Working")]);
    await until(() => bg.callsOf("run_get").length === 1, "first read");
    bg.answer("run_get", { run: run(), workers: [worker("Paused")] });
    bg.changed(9);
    await until(() => byTestId(root, "state")[0]?.textContent?.includes("Paused") === true, "updated");
  });
});

describe("dashboard while the host cannot save changes", () => {
  it("shows the host's reason above the runs, accessibly, and drops it once saving works again", async () => {
    const bg = new ScriptedBackground();
    let storage: Record<string, unknown> = {
      writable: false,
      code: "STORE_IO",
      message: "writing /data/store.journal failed: an I/O error on the device holding /data (EIO)",
      path: "/data/store.journal",
      since: NOW - 5_000,
      nextRetryAt: NOW + 9_000,
    };
    bg.answer("ui_summary", () => ({ runs: [run()], workers: [], eventSeq: 1, storage }));
    const { root } = dashboard([worker("Working")], bg);
    await until(() => byTestId(root, "storage-banner").length === 1, "the storage banner");
    const banner = byTestId(root, "storage-banner")[0]!;
    expect(banner.textContent).toContain("an I/O error on the device holding /data");
    expect(banner.textContent).toContain("within 9 s");
    await expectAccessible(root);
    storage = { writable: true };
    bg.changed(2);
    await until(() => byTestId(root, "storage-banner").length === 0, "the banner to go");
  });
});
