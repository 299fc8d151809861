// @vitest-environment happy-dom
// The popup (spec 17.2) in every worker state and with the host disconnected: words and icons, the right controls,
// Auto Resume across runs, calls it makes, live re-reads on `ui.changed`, axe-core, and a keyboard-only walkthrough.
import { afterEach, describe, expect, it } from "vitest";
import { Popup } from "../../extension/popup/popup-view.tsx";
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

function popup(bg: ScriptedBackground, opened: string[] = []): HTMLElement {
  return mount(<Popup client={bg.client} openPage={(p) => opened.push(p)} now={() => NOW} />);
}

describe("popup in each worker state", () => {
  for (const label of STATES) {
    it(`${label}: state in words, attempt line, the right controls, accessible`, async () => {
      const w = worker(label);
      const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
      bg.answer("ui_summary", { runs: [run()], workers: label === "Complete" ? [] : [w], eventSeq: 5 });
      const root = popup(bg);
      await until(() => byTestId(root, "counts").length > 0, "counts");
      expect(byTestId(root, "connection")[0]!.textContent).toContain("Live");
      if (label === "Complete") {
        // Finished workers leave the popup's list (it shows unfinished ones); nothing to control.
        expect(byTestId(root, "worker")).toHaveLength(0);
        expect(byTestId(root, "current-tab")[0]!.textContent).toContain("No unfinished worker in this tab");
        await expectAccessible(root);
        return;
      }
      const card = byTestId(root, "worker")[0]!;
      const words = label === "Stalled" ? "Paused for stall" : label;
      expect(byTestId(card, "state")[0]!.textContent).toContain(words);
      // Never colour alone: an icon and the word, the icon hidden from screen readers.
      expect(card.querySelector('[data-testid="state"] [aria-hidden="true"]')?.textContent).toBeTruthy();
      expect(card.textContent).toContain("Attempt 3 · 2 auto resumes");
      const tab = byTestId(root, "current-tab")[0]!;
      expect(tab.textContent).toContain(w.name);
      expect(tab.textContent).toContain("Auto Resume on");
      const paused = label === "Paused" || label === "Stalled";
      expect(byTestId(card, "pause").length).toBe(paused ? 0 : 1);
      expect(byTestId(card, "resume").length).toBe(paused ? 1 : 0);
      const canContinue = label !== "Needs you" && label !== "Waiting";
      expect(byTestId(tab, "continue-now").length).toBe(canContinue ? 1 : 0);
      if (label === "Working")
        expect(byTestId(tab, "continue-now")[0]!.textContent).toBe("Continue after this turn");
      if (label === "Needs you") expect(card.textContent).toContain("Ship A or B?");
      if (label === "Needs you") expect(byTestId(root, "count-needs-you")[0]!.textContent).toBe("1");
      await expectAccessible(root);
    });
  }
});

describe("popup: a tool-confirmation card", () => {
  it("shows the worker as Needs you and says where to answer, without a Continue now", async () => {
    const w = worker("Needs you", {
      wait: null,
      conversation: { ...worker("Needs you").conversation, state: "error", errorCode: "AWAITING_APPROVAL" },
    });
    const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [w], eventSeq: 5 });
    const root = popup(bg);
    await until(() => byTestId(root, "worker").length > 0, "worker card");
    const card = byTestId(root, "worker")[0]!;
    expect(byTestId(card, "state")[0]!.textContent).toContain("Needs you");
    expect(card.textContent).toContain("Approve or deny the tool call in its ChatGPT conversation.");
    expect(byTestId(root, "count-needs-you")[0]!.textContent).toBe("1");
    expect(byTestId(byTestId(root, "current-tab")[0]!, "continue-now")).toHaveLength(0);
  });
});

describe("popup and the host connection", () => {
  for (const [connection, words] of [
    ["reconnecting", "Reconnecting…"],
    ["host-not-installed", "Host not installed"],
    ["connecting", "Connecting…"],
    ["incompatible", "Host needs an update"],
  ] as const) {
    it(`${connection}: says so, shows the fix and no stale worker data`, async () => {
      const bg = new ScriptedBackground(status({ connection, error: "Native host has exited." }));
      bg.answer("ui_summary", { runs: [run()], workers: [worker("Working")], eventSeq: 1 });
      const root = popup(bg);
      await settle();
      expect(byTestId(root, "connection")[0]!.textContent).toContain(words);
      expect(byTestId(root, "connection-banner")[0]!.textContent).toContain(words);
      if (connection === "host-not-installed") expect(root.textContent).toContain("npx orchestrator install");
      expect(byTestId(root, "worker")).toHaveLength(0);
      expect(bg.callsOf("ui_summary")).toHaveLength(0);
      button(root, "Reconnect").click();
      expect(bg.other).toContainEqual({ type: "retry" });
      await expectAccessible(root);
    });
  }

  it("reads again when the host reconnects and after every ui.changed, showing the newest state", async () => {
    const bg = new ScriptedBackground(status({ connection: "reconnecting" }));
    let label: "Working" | "Needs you" = "Working";
    bg.answer("ui_summary", () => ({ runs: [run()], workers: [worker(label, { id: "w1" })], eventSeq: 1 }));
    const root = popup(bg);
    await settle();
    bg.setStatus({ connection: "connected" });
    await until(() => byTestId(root, "worker").length === 1, "worker after reconnect");
    expect(byTestId(root, "state")[0]!.textContent).toContain("Working");
    label = "Needs you";
    bg.changed(2);
    await until(() => byTestId(root, "state")[0]!.textContent.includes("Needs you"), "live update");
    // The live region announces the meaningful change (and nothing on the first render).
    await until(
      () => byTestId(root, "announcer")[0]!.textContent === "Needs you worker: Needs you",
      "announced",
    );
    expect(bg.callsOf("ui_summary").length).toBe(2);
  });
});

describe("popup actions", () => {
  it("Auto Resume switch turns every active run's default off, then on; it is a labelled switch", async () => {
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", { runs: [run({ id: "r1" }), run({ id: "r2" })], workers: [], eventSeq: 1 });
    bg.answer("run_continuation_set_default", {});
    const root = popup(bg);
    await until(() => byTestId(root, "auto-resume").length === 1, "switch");
    const sw = byTestId(root, "auto-resume")[0]!;
    expect(sw.getAttribute("role")).toBe("switch");
    expect(sw.getAttribute("aria-checked")).toBe("true");
    sw.click();
    await until(() => bg.callsOf("run_continuation_set_default").length === 2, "two runs");
    expect(bg.callsOf("run_continuation_set_default")).toEqual([
      { runId: "r1", patch: { mode: "manual" } },
      { runId: "r2", patch: { mode: "manual" } },
    ]);
  });

  it("per-worker Pause, and Continue now on the current tab's paused worker clears the pause once", async () => {
    const paused = worker("Paused");
    const bg = new ScriptedBackground(status({ tabWorkerId: paused.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [worker("Working"), paused], eventSeq: 1 });
    bg.answer("worker_pause", { worker: {} }).answer("worker_continue_now", { coalesced: false });
    const root = popup(bg);
    await until(() => byTestId(root, "worker").length === 2, "workers");
    byTestId(byTestId(root, "worker")[0]!, "pause")[0]!.click();
    byTestId(byTestId(root, "current-tab")[0]!, "continue-now")[0]!.click();
    await until(() => bg.calls.length >= 3, "calls");
    expect(bg.callsOf("worker_pause")).toEqual([{ workerId: "w-working" }]);
    expect(bg.callsOf("worker_continue_now")).toEqual([{ workerId: paused.id, clearPause: true }]);
  });

  it("offers 'Keep this conversation going' on an unmanaged conversation, with an optional objective", async () => {
    const bg = new ScriptedBackground(status({ tabWorkerId: null, tabAdoptable: true }));
    bg.answer("ui_summary", { runs: [], workers: [], eventSeq: 1 });
    bg.answer("conversation_adopt", { worker: { id: "w-new" }, run: { id: "r-new" } });
    const root = popup(bg);
    await until(() => byTestId(root, "adopt-button").length === 1, "adopt button");
    const input = byTestId(root, "adopt-objective")[0] as HTMLInputElement;
    input.value = "  finish the migration plan ";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    await expectAccessible(root);
    byTestId(root, "adopt-button")[0]!.click();
    await until(() => bg.callsOf("conversation_adopt").length === 1, "adopt call");
    expect(bg.callsOf("conversation_adopt")).toEqual([{ objective: "finish the migration plan" }]);
  });

  it("offers Release for an adopted conversation only", async () => {
    const adopted = { ...worker("Working"), adopted: true };
    const bg = new ScriptedBackground(status({ tabWorkerId: adopted.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [adopted], eventSeq: 1 });
    bg.answer("conversation_release", { worker: {} });
    const root = popup(bg);
    await until(() => byTestId(root, "release-button").length === 1, "release button");
    expect(byTestId(root, "adopt")).toHaveLength(0);
    byTestId(root, "release-button")[0]!.click();
    await until(() => bg.callsOf("conversation_release").length === 1, "release call");
    expect(bg.callsOf("conversation_release")).toEqual([{ workerId: adopted.id }]);
  });

  it("a spawned worker's tab shows no Release, and an unmanaged non-conversation tab no adopt", async () => {
    const spawned = worker("Working");
    const bg = new ScriptedBackground(status({ tabWorkerId: spawned.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [spawned], eventSeq: 1 });
    const root = popup(bg);
    await until(() => byTestId(root, "current-tab").length === 1, "current tab");
    await settle();
    expect(byTestId(root, "release-button")).toHaveLength(0);
    const bg2 = new ScriptedBackground(status({ tabWorkerId: null, tabAdoptable: false }));
    bg2.answer("ui_summary", { runs: [], workers: [], eventSeq: 1 });
    const root2 = popup(bg2);
    await until(() => byTestId(root2, "current-tab").length > 0, "current tab");
    expect(byTestId(root2, "adopt")).toHaveLength(0);
  });

  it("shows a refusal from the host next to the button instead of swallowing it", async () => {
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", { runs: [run()], workers: [worker("Working")], eventSeq: 1 });
    bg.refuse("worker_pause", "WORKER_TERMINAL", "worker /root/working has ended");
    const root = popup(bg);
    await until(() => byTestId(root, "pause").length === 1, "pause");
    byTestId(root, "pause")[0]!.click();
    await until(() => root.querySelector('[role="alert"]') !== null, "alert");
    expect(root.querySelector('[role="alert"]')!.textContent).toContain("has ended");
  });

  it("links open the dashboard and the settings", () => {
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", { runs: [], workers: [], eventSeq: 1 });
    const opened: string[] = [];
    const root = popup(bg, opened);
    button(root, "Open dashboard").click();
    button(root, "Settings").click();
    expect(opened).toEqual(["dashboard", "options"]);
  });
});

describe("popup keyboard-only walkthrough", () => {
  it("every control is a native, focusable button in reading order; Escape backs out of nothing destructive", async () => {
    const tabWorker = worker("Working");
    const bg = new ScriptedBackground(status({ tabWorkerId: tabWorker.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [tabWorker, worker("Needs you")], eventSeq: 1 });
    bg.answer("worker_pause", {})
      .answer("worker_continue_now", {})
      .answer("run_continuation_set_default", {});
    const opened: string[] = [];
    const root = popup(bg, opened);
    await until(() => byTestId(root, "worker").length === 2, "workers");
    // Tab order = document order of focusable elements (no positive tabindex, nothing click-only).
    expect(root.querySelectorAll("[tabindex]")).toHaveLength(0);
    expect(root.querySelectorAll("[onclick], div[role=button], span[role=button]")).toHaveLength(0);
    const order = [...root.querySelectorAll<HTMLButtonElement>("button:not([disabled])")].map((b) =>
      b.textContent.trim(),
    );
    expect(order).toEqual([
      "On", // Auto Resume
      "Pause", // Working worker
      "Pause", // Needs-you worker
      "Pause", // current conversation
      "Continue after this turn",
      "Open dashboard",
      "Settings",
    ]);
    // Walk it: focus each in turn and activate as Enter/Space would (a native button's click).
    for (const b of root.querySelectorAll<HTMLButtonElement>("button:not([disabled])")) {
      b.focus();
      expect(document.activeElement).toBe(b);
    }
    const current = byTestId(root, "current-tab")[0]!;
    const cont = byTestId(current, "continue-now")[0]!;
    cont.focus();
    cont.click();
    await until(() => bg.callsOf("worker_continue_now").length === 1, "continue now");
    button(root, "Open dashboard").focus();
    button(root, "Open dashboard").click();
    expect(opened).toEqual(["dashboard"]);
  });
});

describe("popup while the host cannot save changes", () => {
  it("says so with the host's reason and that it heals by itself, and drops the notice once it has", async () => {
    const bg = new ScriptedBackground(status());
    let storage: Record<string, unknown> = {
      writable: false,
      code: "STORE_IO",
      message: "writing /data/store.journal failed: no space left on the device holding /data (ENOSPC)",
      path: "/data/store.journal",
      since: NOW - 60_000,
      nextRetryAt: NOW + 4_000,
    };
    bg.answer("ui_summary", () => ({ runs: [run()], workers: [worker("Working")], eventSeq: 1, storage }));
    const root = popup(bg);
    await until(() => byTestId(root, "storage-banner").length === 1, "the storage banner");
    const banner = byTestId(root, "storage-banner")[0]!;
    expect(banner.getAttribute("role")).toBe("alert");
    expect(banner.textContent).toContain("Changes cannot be saved");
    expect(banner.textContent).toContain("no space left on the device holding /data");
    expect(banner.textContent).toContain("within 4 s");
    await expectAccessible(root);
    storage = { writable: true };
    bg.changed(2);
    await until(() => byTestId(root, "storage-banner").length === 0, "the banner to go");
  });
});
