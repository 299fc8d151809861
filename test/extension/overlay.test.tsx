// @vitest-environment happy-dom
// The in-page overlay: mounted only in managed tabs and only while not hidden, in a closed Shadow DOM outside
// <body>; collapsed text per state; the drawer's controls; synthetic (untrusted) events ignored; a
// confirmed Stop worker; top-right placement away from the composer; axe-core on the open drawer.
import { afterEach, describe, expect, it } from "vitest";
import {
  startOverlay,
  OVERLAY_HOST_ID,
  type OverlayHandle,
} from "../../extension/content/overlay/mount-overlay.tsx";
import { collapsedText, Overlay, OVERLAY_CSS } from "../../extension/content/overlay/overlay-view.tsx";
import { DEFAULT_LOCAL_PREFS } from "../../extension/ui/ui-protocol.ts";
import { livenessOf } from "../../shared/liveness.ts";
import type { WorkerView } from "../../shared/operations/views.ts";
import {
  byTestId,
  expectAccessible,
  mount,
  NOW,
  ScriptedBackground,
  settle,
  STATES,
  status,
  until,
  worker,
} from "./ui-kit.ts";

let overlay: OverlayHandle | undefined;
afterEach(() => {
  overlay?.stop();
  overlay = undefined;
  document.documentElement.querySelectorAll(`#${OVERLAY_HOST_ID}`).forEach((e) => e.remove());
});

function start(w: WorkerView | null, opts: { trustAll?: boolean } = {}): ScriptedBackground {
  const bg = new ScriptedBackground(null);
  if (w)
    bg.answer("ui_worker_detail", {
      worker: w,
      attempts: [],
      events: [{ seq: 3, type: "execution.idle", at: NOW, data: {} }],
    });
  overlay = startOverlay({
    api: { runtime: { connect: () => bg.port } },
    document,
    now: () => NOW,
    ...(opts.trustAll ? { acceptEvent: () => true } : {}),
  });
  bg.setStatus({ tabWorkerId: w?.id ?? null });
  return bg;
}

const shadow = () => overlay!.shadow()!;
const badge = () => byTestId(shadow(), "overlay-badge")[0]!;

describe("overlay presence", () => {
  it("is absent in a tab that is not managed", async () => {
    start(null);
    await settle();
    expect(document.getElementById(OVERLAY_HOST_ID)).toBeNull();
  });

  it("is mounted outside <body> in a closed shadow root for a managed tab, and removed when hidden globally", async () => {
    const w = worker("Working");
    const bg = start(w, { trustAll: true });
    await until(() => document.getElementById(OVERLAY_HOST_ID) !== null, "mounted");
    const host = document.getElementById(OVERLAY_HOST_ID)!;
    expect(host.parentElement).toBe(document.documentElement);
    expect(host.shadowRoot).toBeNull(); // closed: page scripts cannot reach in
    bg.setStatus({ tabWorkerId: w.id, prefs: { ...DEFAULT_LOCAL_PREFS, overlay: false } });
    await until(() => document.getElementById(OVERLAY_HOST_ID) === null, "hidden");
    bg.setStatus({ tabWorkerId: w.id });
    await until(() => document.getElementById(OVERLAY_HOST_ID) !== null, "shown again");
    bg.setStatus({ tabWorkerId: null });
    await until(() => document.getElementById(OVERLAY_HOST_ID) === null, "tab no longer managed");
  });

  it("removes itself when the extension context is gone (extension reloaded under the page)", async () => {
    const w = worker("Working");
    const bg = new ScriptedBackground(null);
    bg.answer("ui_worker_detail", { worker: w, attempts: [], events: [] });
    let connects = 0;
    overlay = startOverlay({
      api: {
        runtime: {
          connect: () => {
            connects += 1;
            if (connects > 1) throw new Error("Extension context invalidated.");
            return bg.port;
          },
        },
      },
      document,
    });
    bg.setStatus({ tabWorkerId: w.id });
    await until(() => document.getElementById(OVERLAY_HOST_ID) !== null, "mounted");
    (bg.port.onDisconnect as unknown as { emit(p: unknown): void }).emit(bg.port);
    await until(() => document.getElementById(OVERLAY_HOST_ID) === null, "removed");
    expect(connects).toBe(2);
  });

  it("sits top right with a bounded drawer, away from the composer at the bottom", () => {
    expect(OVERLAY_CSS).toMatch(/position: fixed; top: 64px; right: 16px/);
    expect(OVERLAY_CSS).toMatch(/max-height: 50vh/);
    expect(OVERLAY_CSS).not.toMatch(/bottom:/);
  });
});

/** The overlay component in the light DOM (axe-core cannot enter a closed shadow root). */
function renderOverlay(
  w: WorkerView,
  over: Parameters<typeof status>[0] = {},
): { root: HTMLElement; bg: ScriptedBackground } {
  const bg = new ScriptedBackground(status({ tabWorkerId: w.id, ...over }));
  bg.answer("ui_worker_detail", {
    worker: w,
    attempts: [],
    events: [{ seq: 3, type: "execution.idle", at: NOW, data: {} }],
  });
  const root = mount(<Overlay client={bg.client} workerId={w.id} now={() => NOW} acceptEvent={() => true} />);
  return { root, bg };
}

describe("overlay in each state", () => {
  for (const label of STATES) {
    it(`${label}: collapsed words, drawer with details and controls, accessible`, async () => {
      const w = worker(label);
      const { root } = renderOverlay(w);
      const badgeOf = () => byTestId(root, "overlay-badge")[0]!;
      await until(() => badgeOf().textContent !== "Orchestrated", "badge");
      expect(badgeOf().textContent).toContain(collapsedText(w));
      if (label === "Working") expect(badgeOf().textContent).toContain("Working · Attempt 3 · Auto Resume");
      if (label === "Resuming") expect(badgeOf().textContent).toContain("Continuing · Attempt 3");
      // Held or ended: nothing resumes by itself now, whatever the policy says.
      if (["Paused", "Stalled", "Complete", "Failed", "Stopped"].includes(label))
        expect(badgeOf().textContent).not.toContain("Auto Resume");
      expect(badgeOf().getAttribute("aria-expanded")).toBe("false");
      await expectAccessible(root);
      badgeOf().click();
      await until(() => byTestId(root, "overlay-drawer").length === 1, "drawer");
      const drawer = byTestId(root, "overlay-drawer")[0]!;
      expect(badgeOf().getAttribute("aria-expanded")).toBe("true");
      expect(drawer.textContent).toContain(w.name);
      expect(drawer.textContent).toContain("Attempt 3 · 2 auto resumes");
      expect(drawer.textContent).toContain("execution idle");
      expect(byTestId(drawer, "stop-worker").length).toBe(label === "Complete" ? 0 : 1);
      await expectAccessible(root);
    });
  }

  it("host disconnected: says offline and offers no controls", async () => {
    const { root } = renderOverlay(worker("Working"), { connection: "reconnecting" });
    const badgeOf = () => byTestId(root, "overlay-badge")[0]!;
    expect(badgeOf().textContent).toBe("Orchestrator offline");
    badgeOf().click();
    await until(() => byTestId(root, "overlay-drawer").length === 1, "drawer");
    expect(byTestId(root, "overlay-drawer")[0]!.textContent).toContain("not connected");
    expect(byTestId(root, "pause")).toHaveLength(0);
    await expectAccessible(root);
  });
});

describe("overlay liveness", () => {
  it("the drawer says what holds the worker and offers the remedies the overlay may use", async () => {
    const limited = worker("Waiting", {
      wait: null,
      liveness: livenessOf("rate_limited", NOW - 1000, { until: NOW + 5_000, detail: { code: "USAGE_CAP" } }),
    });
    const { root, bg } = renderOverlay(limited);
    bg.answer("worker_continue_now", {});
    const badgeOf = () => byTestId(root, "overlay-badge")[0]!;
    await until(() => badgeOf().textContent !== "Orchestrated", "badge");
    badgeOf().click();
    await until(() => byTestId(root, "liveness-line").length === 1, "the liveness line");
    expect(byTestId(root, "liveness-line")[0]!.textContent).toBe("Rate limited (USAGE_CAP) — resumes in 5 s");
    byTestId(root, "continue-now")[0]!.click();
    await until(() => bg.callsOf("worker_continue_now").length === 1, "continue now");
    await expectAccessible(root);
  });

  it("in its own tab there is no conversation to open: the remedy is said in words; Release works", async () => {
    const approval = worker("Needs you", { wait: null, liveness: livenessOf("approval", NOW - 1000) });
    const first = renderOverlay(approval);
    byTestId(first.root, "overlay-badge")[0]!.click();
    await until(() => byTestId(first.root, "remedy-text").length === 1, "the remedy");
    expect(byTestId(first.root, "remedy-text")[0]!.textContent).toBe(
      "Open the conversation and approve or deny the tool call there.",
    );
    expect(byTestId(first.root, "open-conversation")).toHaveLength(0);
    expect(byTestId(first.root, "continue-now")).toHaveLength(0);
    const waiting = worker("Waiting", {
      liveness: livenessOf("waiting_for_workers", NOW, { detail: { workerPaths: ["/root/b"] } }),
    });
    const { root, bg } = renderOverlay(waiting);
    bg.answer("worker_resume", {});
    byTestId(root, "overlay-badge")[0]!.click();
    await until(() => byTestId(root, "release-wait").length === 1, "release");
    expect(byTestId(root, "liveness-line")[0]!.textContent).toBe("Waiting for workers: /root/b");
    byTestId(root, "release-wait")[0]!.click();
    await until(() => bg.callsOf("worker_resume").length === 1, "released");
    expect(bg.callsOf("worker_resume")).toEqual([{ workerId: waiting.id }]);
  });
});

describe("overlay controls", () => {
  it("ignores synthetic (untrusted) clicks: the page cannot open the drawer or press Stop", async () => {
    const w = worker("Working");
    const bg = start(w);
    await until(() => overlay?.shadow() !== undefined && badge().textContent !== "Orchestrated", "badge");
    badge().click(); // a script-made click: isTrusted is false
    await settle();
    expect(byTestId(shadow(), "overlay-drawer")).toHaveLength(0);
    expect(bg.calls.filter((c) => c.op !== "ui_worker_detail")).toHaveLength(0);
  });

  it("Pause and Continue now act on this tab's worker; Stop worker needs a confirmation; Escape closes", async () => {
    const w = worker("Idle");
    const bg = start(w, { trustAll: true });
    bg.answer("worker_pause", {}).answer("worker_continue_now", {}).answer("worker_stop", {});
    await until(() => overlay?.shadow() !== undefined && badge().textContent !== "Orchestrated", "badge");
    badge().click();
    await until(() => byTestId(shadow(), "pause").length === 1, "controls");
    byTestId(shadow(), "pause")[0]!.click();
    byTestId(shadow(), "continue-now")[0]!.click();
    byTestId(shadow(), "stop-worker")[0]!.click();
    await settle();
    expect(bg.callsOf("worker_stop")).toHaveLength(0);
    byTestId(shadow(), "stop-worker-confirm")[0]!.click();
    await until(() => bg.callsOf("worker_stop").length === 1, "stopped");
    expect(bg.callsOf("worker_pause")).toEqual([{ workerId: w.id }]);
    expect(bg.callsOf("worker_continue_now")).toEqual([{ workerId: w.id, clearPause: true }]);
    byTestId(shadow(), "overlay-drawer")[0]!.dispatchEvent(
      new KeyboardEvent("keydown", { key: "Escape", bubbles: true }),
    );
    await until(() => byTestId(shadow(), "overlay-drawer").length === 0, "closed");
  });
});
