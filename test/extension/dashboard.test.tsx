// @vitest-environment happy-dom
// The dashboard in every worker state and disconnected: run list and run controls, Needs-you answers,
// stall recovery actions, worker table with overrides distinct from the run default, drill-down, axe-core.
import { afterEach, describe, expect, it } from "vitest";
import { Dashboard } from "../../extension/dashboard/dashboard-view.tsx";
import type { WorkerView } from "../../shared/operations/views.ts";
import { livenessOf } from "../../shared/liveness.ts";
import {
  autoResume,
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
    bg.answer("worker_continue_now", {});
    await until(() => byTestId(root, "stall-item").length === 1, "stall");
    const item = byTestId(root, "stall-item")[0]!;
    expect(item.textContent).toContain("20 turns without progress");
    // Continue anyway is the stall's remedy: clear the pause and make one attempt (or say why not).
    byTestId(item, "continue-anyway")[0]!.click();
    byTestId(item, "open-conversation")[0]!.click();
    await until(() => bg.callsOf("worker_continue_now").length === 1, "continue anyway");
    expect(bg.callsOf("worker_continue_now")).toEqual([{ workerId: w.id, clearPause: true }]);
    expect(bg.other).toContainEqual({ type: "open-conversation", workerId: w.id, url: w.conversation.url });
    // A warned worker that still runs can be paused from the warning too; it has no pause to continue from.
    const warned = worker("Working", { stallWarning: true, noProgressAttempts: 11 });
    const again = dashboard([warned]);
    await until(() => byTestId(again.root, "stall-pause").length === 1, "pause offered");
    expect(byTestId(byTestId(again.root, "stall-item")[0]!, "continue-anyway")).toHaveLength(0);
  });

  it("worker rows show the liveness with its details and the remedy: Release, Open conversation, Answer", async () => {
    const waiting = worker("Waiting", {
      id: "w-wait",
      liveness: livenessOf("waiting_for_workers", NOW - 1000, {
        detail: { workerIds: ["w-b"], workerPaths: ["/root/b"] },
      }),
    });
    const signedOut = worker("Needs you", {
      id: "w-out",
      wait: null,
      liveness: livenessOf("signed_out", NOW - 1000, { detail: { code: "NOT_SIGNED_IN" } }),
    });
    const queued = worker("Waiting", {
      id: "w-slot",
      wait: null,
      liveness: livenessOf("tab_slot", NOW - 1000, { detail: { position: 2 } }),
    });
    const asking = worker("Needs you", { id: "w-ask" });
    const { root, bg } = dashboard([waiting, signedOut, queued, asking]);
    bg.answer("worker_resume", {});
    await until(() => byTestId(root, "worker-row").length === 4, "rows");
    const row = (id: string) =>
      root.querySelector<HTMLElement>(`[data-testid="worker-row"][data-worker-id="${id}"]`)!;
    const line = (id: string) => byTestId(row(id), "liveness-line")[0]!.textContent;
    expect(line("w-wait")).toBe("Waiting for workers: /root/b");
    expect(line("w-out")).toBe("Signed out of ChatGPT (NOT_SIGNED_IN)");
    expect(line("w-slot")).toBe("Waiting for a tab slot (1 ahead)");
    expect(line("w-ask")).toBe("Needs your answer");
    byTestId(row("w-wait"), "release-wait")[0]!.click();
    await until(() => bg.callsOf("worker_resume").length === 1, "release");
    expect(bg.callsOf("worker_resume")).toEqual([{ workerId: "w-wait" }]);
    // Signed out: no Continue now (the host would refuse it); the remedy opens the conversation to sign in.
    expect(byTestId(row("w-out"), "continue-now")).toHaveLength(0);
    expect(byTestId(row("w-out"), "open-conversation")[0]!.textContent).toBe("Open conversation to sign in");
    byTestId(row("w-out"), "open-conversation")[0]!.click();
    expect(bg.other).toContainEqual({
      type: "open-conversation",
      workerId: "w-out",
      url: signedOut.conversation.url,
    });
    // A tab slot needs nothing but time: words only.
    expect(byTestId(row("w-slot"), "remedy-text")[0]!.textContent).toContain(
      "Starts when a generating tab finishes",
    );
    // Answer takes the keyboard to that worker's answer box in the Needs-you section.
    byTestId(row("w-ask"), "answer-remedy")[0]!.click();
    expect(document.activeElement?.id).toBe("answer-w-ask");
    await expectAccessible(root);
  });

  it("says next to the run's switch when the popup's global Auto Resume switch is Off", async () => {
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", { runs: [run()], workers: [], autoResume: autoResume(0, false), eventSeq: 1 });
    const { root } = dashboard([worker("Idle")], bg);
    await until(() => byTestId(root, "global-auto-resume-off").length === 1, "the note");
    expect(byTestId(root, "global-auto-resume-off")[0]!.textContent).toContain(
      "no worker continues by itself",
    );
    await expectAccessible(root);
  });

  it("drill-down: the liveness and since when, and what the completion signal means for this worker", async () => {
    const mcp = worker("Paused");
    const block = worker("Working", {
      id: "w-block",
      policy: { ...worker("Working").policy, completionSignal: "output_block" },
    });
    const { root } = dashboard([mcp, block]);
    await until(() => byTestId(root, "drill-down").length === 2, "rows");
    byTestId(root, "drill-down")[0]!.click();
    await until(() => byTestId(root, "completion-note").length === 1, "the note");
    const drill = () => byTestId(root, "drill")[0]!;
    expect(byTestId(drill(), "liveness-line")[0]!.textContent).toBe("Paused by you");
    expect(byTestId(drill(), "remedy-text")[0]!.textContent).toBe("Resume lets it continue.");
    expect(byTestId(drill(), "liveness-since")[0]!.textContent).toMatch(/^Since /);
    expect(byTestId(drill(), "completion-note")[0]!.textContent).toContain(
      "A continuation-state block counts only when it says blocked or complete; anything else in a block is ignored.",
    );
    byTestId(root, "drill-down")[1]!.click();
    await until(
      () => byTestId(drill(), "completion-note")[0]?.dataset.signal === "output_block",
      "the other",
    );
    expect(byTestId(drill(), "completion-note")[0]!.textContent).toContain(
      "Worker tools (worker_complete, worker_await_human, …) still work.",
    );
    await expectAccessible(root);
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
    bg.answer("ui_summary", () => ({
      runs: [run()],
      workers: [],
      autoResume: autoResume(),
      eventSeq: 1,
      storage,
    }));
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
