// @vitest-environment happy-dom
// The popup (docs/ui.md) in every worker state and with the host disconnected: words and icons, the right controls,
// Auto Resume across runs, calls it makes, live re-reads on `ui.changed`, axe-core, and a keyboard-only walkthrough.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render } from "preact";
import { autoResumeWords, Popup } from "../../extension/popup/popup-view.tsx";
import type { StateLabel } from "../../shared/operations/views.ts";
import { livenessOf } from "../../shared/liveness.ts";
import { clockShort } from "../../extension/ui/liveness-words.ts";
import { tickRunning } from "../../extension/ui/ticker.ts";
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

function popup(bg: ScriptedBackground, opened: string[] = []): HTMLElement {
  return mount(<Popup client={bg.client} openPage={(p) => opened.push(p)} now={() => NOW} />);
}

describe("popup in each worker state", () => {
  for (const label of STATES) {
    it(`${label}: state in words, attempt line, the right controls, accessible`, async () => {
      const w = worker(label);
      const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
      bg.answer("ui_summary", {
        runs: [run()],
        workers: label === "Complete" ? [] : [w],
        autoResume: autoResume(),
        eventSeq: 5,
      });
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
      // The host's liveness words under the label, and for a hold what to do about it.
      const lines: Partial<Record<StateLabel, string>> = {
        Working: "Generating",
        Resuming: "Resuming in 3 s",
        "Needs you": "Needs your answer",
        Waiting: "Waiting for a dependency: backend lands",
        Paused: "Paused by you",
        Stalled: "Stalled: no progress",
      };
      expect(byTestId(card, "liveness-line")[0]!.textContent).toBe(lines[label]);
      expect(byTestId(card, "remedy-text").length).toBe(["Working", "Resuming"].includes(label) ? 0 : 1);
      const tab = byTestId(root, "current-tab")[0]!;
      expect(tab.textContent).toContain(w.name);
      expect(tab.textContent).toContain("Auto Resume on");
      // Pause, or while paused the pause's remedy in its place: Resume, Continue anyway for a stall.
      const paused = label === "Paused" || label === "Stalled";
      expect(byTestId(card, "pause").length).toBe(paused ? 0 : 1);
      expect(byTestId(card, "resume").length).toBe(label === "Paused" ? 1 : 0);
      expect(byTestId(card, "continue-anyway").length).toBe(label === "Stalled" ? 1 : 0);
      expect(byTestId(card, "release-wait").length).toBe(label === "Waiting" ? 1 : 0);
      expect(byTestId(card, "answer-remedy").length).toBe(label === "Needs you" ? 1 : 0);
      // Continue now where it is no remedy's job: not for an answer, a release, or a stall's Continue anyway.
      const canContinue = label !== "Needs you" && label !== "Waiting" && label !== "Stalled";
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
      liveness: livenessOf("approval", NOW - 5_000),
      conversation: { ...worker("Needs you").conversation, state: "error", errorCode: "AWAITING_APPROVAL" },
    });
    const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [w], autoResume: autoResume(), eventSeq: 5 });
    const root = popup(bg);
    await until(() => byTestId(root, "worker").length > 0, "worker card");
    const card = byTestId(root, "worker")[0]!;
    expect(byTestId(card, "state")[0]!.textContent).toContain("Needs you");
    expect(byTestId(card, "liveness-line")[0]!.textContent).toBe("A tool confirmation waits in ChatGPT");
    expect(byTestId(card, "remedy-text")[0]!.textContent).toBe(
      "Open the conversation and approve or deny the tool call there.",
    );
    expect(byTestId(root, "count-needs-you")[0]!.textContent).toBe("1");
    expect(byTestId(byTestId(root, "current-tab")[0]!, "continue-now")).toHaveLength(0);
    // The remedy: bring the conversation's tab forward (or open its URL).
    byTestId(card, "open-conversation")[0]!.click();
    expect(bg.other).toContainEqual({ type: "open-conversation", workerId: w.id, url: w.conversation.url });
  });
});

/** Polls with real timeouts (Date is faked in the countdown test, so `until`'s deadline would never come). */
async function until_(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("popup: liveness and remedies", () => {
  it("a rate limit counts down to its local time once a second, without asking the host again, and offers Continue now", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    try {
      const now = Date.now();
      const until = now + 65_000;
      const w = worker("Waiting", {
        liveness: livenessOf("rate_limited", now - 60_000, { until, detail: { code: "RATE_LIMITED" } }),
      });
      const bg = new ScriptedBackground();
      bg.answer("ui_summary", { runs: [run()], workers: [w], autoResume: autoResume(), eventSeq: 1 });
      bg.answer("worker_continue_now", { coalesced: false });
      const root = mount(<Popup client={bg.client} openPage={() => undefined} now={() => Date.now()} />);
      await until_(() => byTestId(root, "liveness-line").length === 1, "the liveness line");
      const line = () => byTestId(root, "liveness-line")[0]!.textContent;
      expect(line()).toBe(`Rate limited — resumes at ${clockShort(until)} (in 1 min 5 s)`);
      expect(byTestId(root, "remedy-text")[0]!.textContent).toContain("Continue now tries once earlier");
      await until_(() => tickRunning(), "the shared tick to start (effects run after paint)");
      vi.advanceTimersByTime(1_000);
      await until_(() => line().endsWith("(in 1 min 4 s)"), "the countdown to move");
      vi.advanceTimersByTime(10_000);
      // Under a minute it says seconds only.
      await until_(() => line() === "Rate limited — resumes in 54 s", "ten seconds later");
      expect(bg.callsOf("ui_summary")).toHaveLength(1);
      // The remedy, in the worker's own row (the popup's rows otherwise offer no Continue now).
      const card = byTestId(root, "worker")[0]!;
      byTestId(card, "continue-now")[0]!.click();
      await until_(() => bg.callsOf("worker_continue_now").length === 1, "continue now");
      expect(bg.callsOf("worker_continue_now")).toEqual([{ workerId: w.id, clearPause: true }]);
      await expectAccessible(root);
      // Nothing on screen counts down: the shared tick stops.
      render(null, root);
      await until_(() => !tickRunning(), "the shared tick to stop");
    } finally {
      vi.useRealTimers();
    }
  });

  it("a worker waiting for others names them and offers Release; Resume for a pause; the host's refusal is shown", async () => {
    const waiting = worker("Waiting", {
      id: "w-wait",
      liveness: livenessOf("waiting_for_workers", NOW - 1000, {
        detail: { workerIds: ["w-b"], workerPaths: ["/root/b"], condition: "b lands" },
      }),
    });
    const paused = worker("Paused", { id: "w-paused" });
    const blocked = worker("Needs you", {
      id: "w-error",
      wait: null,
      liveness: livenessOf("page_error", NOW - 3000, { detail: { code: "RESPONSE_FAILED" } }),
    });
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", {
      runs: [run()],
      workers: [waiting, paused, blocked],
      autoResume: autoResume(),
      eventSeq: 1,
    });
    bg.answer("worker_resume", {});
    bg.refuse(
      "worker_continue_now",
      "CONVERSATION_BLOCKED",
      "/root/error: ChatGPT is signed out; sign in first",
    );
    const root = popup(bg);
    await until(() => byTestId(root, "worker").length === 3, "three workers");
    const [a, b, c] = byTestId(root, "worker");
    expect(byTestId(a!, "liveness-line")[0]!.textContent).toBe("Waiting for workers: /root/b (b lands)");
    expect(byTestId(a!, "remedy-text")[0]!.textContent).toBe(
      "Resumes when they end; Release lets it continue now.",
    );
    byTestId(a!, "release-wait")[0]!.click();
    byTestId(b!, "resume")[0]!.click();
    await until(() => bg.callsOf("worker_resume").length === 2, "release and resume");
    expect(bg.callsOf("worker_resume")).toEqual([{ workerId: "w-wait" }, { workerId: "w-paused" }]);
    expect(byTestId(c!, "liveness-line")[0]!.textContent).toBe("ChatGPT showed an error (RESPONSE_FAILED)");
    byTestId(c!, "continue-now")[0]!.click();
    await until(() => c!.querySelector('[role="alert"]') !== null, "the refusal");
    expect(c!.querySelector('[role="alert"]')!.textContent).toContain("sign in first");
    await expectAccessible(root);
  });

  it("the Answer remedy opens the dashboard, where the answer form is", async () => {
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", {
      runs: [run()],
      workers: [worker("Needs you")],
      autoResume: autoResume(),
      eventSeq: 1,
    });
    const opened: string[] = [];
    const root = popup(bg, opened);
    await until(() => byTestId(root, "answer-remedy").length === 1, "answer");
    expect(byTestId(root, "answer-remedy")[0]!.textContent).toBe("Answer in dashboard");
    byTestId(root, "answer-remedy")[0]!.click();
    expect(opened).toEqual(["dashboard"]);
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
      bg.answer("ui_summary", {
        runs: [run()],
        workers: [worker("Working")],
        autoResume: autoResume(),
        eventSeq: 1,
      });
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
    bg.answer("ui_summary", () => ({
      runs: [run()],
      workers: [worker(label, { id: "w1" })],
      autoResume: autoResume(),
      eventSeq: 1,
    }));
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
  it("the Auto Resume switch is the global one: On exactly when the host says something auto-resumes", async () => {
    let state = autoResume(2);
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", () => ({
      runs: [run({ id: "r1" }), run({ id: "r2" })],
      workers: [worker("Working"), worker("Idle")],
      autoResume: state,
      eventSeq: 1,
    }));
    bg.answer("auto_resume_set", (p: Record<string, unknown>) => {
      state = autoResume(p.enabled === true ? 2 : 0, p.enabled === true);
      return { autoResume: state };
    });
    const root = popup(bg);
    await until(() => byTestId(root, "auto-resume").length === 1, "switch");
    const sw = () => byTestId(root, "auto-resume")[0]!;
    expect(sw().getAttribute("role")).toBe("switch");
    expect(sw().getAttribute("aria-checked")).toBe("true");
    expect(sw().textContent).toBe("On");
    expect(byTestId(root, "popup")[0]!.textContent).toContain("2 workers continue by themselves.");
    sw().click();
    await until(() => bg.callsOf("auto_resume_set").length === 1, "off");
    expect(bg.callsOf("auto_resume_set")).toEqual([{ enabled: false }]);
    bg.changed(2);
    await until(() => sw().getAttribute("aria-checked") === "false", "shown off");
    expect(sw().textContent).toBe("Off");
    expect(byTestId(root, "popup")[0]!.textContent).toContain("Off: nothing continues by itself");
    sw().click();
    await until(() => bg.callsOf("auto_resume_set").length === 2, "on");
    expect(bg.callsOf("auto_resume_set")[1]).toEqual({ enabled: true });
    // No run setting is touched: the switch is not a run default any more.
    expect(bg.callsOf("run_continuation_set_default")).toHaveLength(0);
  });

  it("never reads Off while something auto-resumes, and On only while something does", async () => {
    const bg = new ScriptedBackground();
    // Allowed, but no unfinished worker continues by itself (every one is manual): the switch reads Off and
    // pressing it asks the host to turn it on (which sets the runs' default when none would).
    bg.answer("ui_summary", {
      runs: [run()],
      workers: [worker("Idle")],
      autoResume: autoResume(0),
      eventSeq: 1,
    });
    bg.answer("auto_resume_set", { autoResume: autoResume(1) });
    const root = popup(bg);
    await until(() => byTestId(root, "auto-resume").length === 1, "switch");
    const sw = byTestId(root, "auto-resume")[0]!;
    expect(sw.getAttribute("aria-checked")).toBe("false");
    expect(root.textContent).toContain("No unfinished worker has Auto Resume on.");
    sw.click();
    await until(() => bg.callsOf("auto_resume_set").length === 1, "on");
    expect(bg.callsOf("auto_resume_set")).toEqual([{ enabled: true }]);
    // Switched off globally: the current tab's worker says so, whatever its own policy.
    const tabWorker = worker("Idle");
    const bg2 = new ScriptedBackground(status({ tabWorkerId: tabWorker.id }));
    bg2.answer("ui_summary", {
      runs: [run()],
      workers: [tabWorker],
      autoResume: autoResume(0, false),
      eventSeq: 1,
    });
    const root2 = popup(bg2);
    await until(
      () => byTestId(root2, "current-tab")[0]?.textContent.includes("switched off") === true,
      "tab",
    );
    expect(byTestId(root2, "current-tab")[0]!.textContent).toContain(
      "Auto Resume off (switched off for every worker)",
    );
  });

  it("per-worker Pause, and Continue now on the current tab's paused worker clears the pause once", async () => {
    const paused = worker("Paused");
    const bg = new ScriptedBackground(status({ tabWorkerId: paused.id }));
    bg.answer("ui_summary", {
      runs: [run()],
      workers: [worker("Working"), paused],
      autoResume: autoResume(),
      eventSeq: 1,
    });
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
    bg.answer("ui_summary", { runs: [], workers: [], autoResume: autoResume(), eventSeq: 1 });
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
    bg.answer("ui_summary", { runs: [run()], workers: [adopted], autoResume: autoResume(), eventSeq: 1 });
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
    bg.answer("ui_summary", { runs: [run()], workers: [spawned], autoResume: autoResume(), eventSeq: 1 });
    const root = popup(bg);
    await until(() => byTestId(root, "current-tab").length === 1, "current tab");
    await settle();
    expect(byTestId(root, "release-button")).toHaveLength(0);
    const bg2 = new ScriptedBackground(status({ tabWorkerId: null, tabAdoptable: false }));
    bg2.answer("ui_summary", { runs: [], workers: [], autoResume: autoResume(), eventSeq: 1 });
    const root2 = popup(bg2);
    await until(() => byTestId(root2, "current-tab").length > 0, "current tab");
    expect(byTestId(root2, "adopt")).toHaveLength(0);
  });

  it("shows a refusal from the host next to the button instead of swallowing it", async () => {
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", {
      runs: [run()],
      workers: [worker("Working")],
      autoResume: autoResume(),
      eventSeq: 1,
    });
    bg.refuse("worker_pause", "WORKER_TERMINAL", "worker /root/working has ended");
    const root = popup(bg);
    await until(() => byTestId(root, "pause").length === 1, "pause");
    byTestId(root, "pause")[0]!.click();
    await until(() => root.querySelector('[role="alert"]') !== null, "alert");
    expect(root.querySelector('[role="alert"]')!.textContent).toContain("has ended");
  });

  it("links open the dashboard and the settings", () => {
    const bg = new ScriptedBackground();
    bg.answer("ui_summary", { runs: [], workers: [], autoResume: autoResume(), eventSeq: 1 });
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
    bg.answer("ui_summary", {
      runs: [run()],
      workers: [tabWorker, worker("Needs you")],
      autoResume: autoResume(),
      eventSeq: 1,
    });
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
      "Answer in dashboard", // its remedy
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
    bg.answer("ui_summary", () => ({
      runs: [run()],
      workers: [worker("Working")],
      autoResume: autoResume(),
      eventSeq: 1,
      storage,
    }));
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

describe("autoResumeWords", () => {
  it("never says a paused worker continues by itself", () => {
    expect(autoResumeWords({ enabled: true, on: true, automatic: 2 })).toBe(
      "2 workers continue by themselves.",
    );
    expect(autoResumeWords({ enabled: true, on: true, automatic: 1 })).toBe("1 worker continues by itself.");
    expect(autoResumeWords({ enabled: true, on: true, automatic: 0 })).toBe(
      "Every worker with Auto Resume on is paused.",
    );
  });
});
