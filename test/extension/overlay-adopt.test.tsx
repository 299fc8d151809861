// @vitest-environment happy-dom
// "Keep this conversation going" from the page (zero-setup mode, docs/operator-guide.md): the overlay's adoption
// offer appears only on an unmanaged saved conversation and only while the user enabled it; it adopts through the
// background, shows refusals, turns into the managed overlay with focus kept; both adoption flows (overlay offer
// and popup) walked by keyboard only; axe-core with 0 serious/critical on the new overlay states.
import { afterEach, describe, expect, it } from "vitest";
import { AdoptOffer } from "../../extension/content/overlay/adopt-offer.tsx";
import {
  OVERLAY_HOST_ID,
  overlayMode,
  startOverlay,
  type OverlayHandle,
} from "../../extension/content/overlay/mount-overlay.tsx";
import { Popup } from "../../extension/popup/popup-view.tsx";
import { DEFAULT_LOCAL_PREFS, type UiStatus } from "../../extension/ui/ui-protocol.ts";
import {
  autoResume,
  byTestId,
  expectAccessible,
  mount,
  NOW,
  ScriptedBackground,
  settle,
  status,
  until,
  worker,
} from "./ui-kit.ts";

const OFFER_ON = { ...DEFAULT_LOCAL_PREFS, offerAdopt: true };

let overlay: OverlayHandle | undefined;
afterEach(() => {
  overlay?.stop();
  overlay = undefined;
  document.documentElement.querySelectorAll(`#${OVERLAY_HOST_ID}`).forEach((e) => e.remove());
  document.body.innerHTML = "";
});

// ── keyboard model ──────────────────────────────────────────────────────────────────────────────
// happy-dom has no sequential focus navigation or key activation; these follow the browser's rules: Tab moves to
// the next focusable element in document order (no positive tabindex is used anywhere), Enter on a button
// activates it unless the keydown was cancelled, typed characters land in the focused input. Real keys in real
// Chromium are exercised by test/e2e/zero-setup-overlay.chromium.test.ts.

const FOCUSABLE = "button:not([disabled]), input:not([disabled]), textarea:not([disabled]), a[href]";

function focusables(root: ParentNode): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];
}

/** The focused element inside `root` (a shadow root's own activeElement, or the document's). */
function focused(root: ParentNode): Element | null {
  return root instanceof ShadowRoot ? root.activeElement : document.activeElement;
}

/** Tab: the next focusable after the focused one, or the first when focus is not in `root` yet. */
function tab(root: ParentNode): HTMLElement {
  const all = focusables(root);
  const at = all.indexOf(focused(root) as HTMLElement);
  const next = all[at + 1]; // at is -1 when focus is elsewhere
  if (!next) throw new Error("Tab would leave the component");
  next.focus();
  return next;
}

function press(root: ParentNode, key: string): void {
  const target = focused(root) as HTMLElement;
  const down = new KeyboardEvent("keydown", { key, bubbles: true, composed: true, cancelable: true });
  target.dispatchEvent(down);
  if (key === "Enter" && !down.defaultPrevented && target instanceof HTMLButtonElement) target.click();
}

/** Types into the focused input, letting the view re-render between keys as a person's typing does. */
async function type(root: ParentNode, text: string): Promise<void> {
  const input = focused(root) as HTMLInputElement;
  for (const ch of text) {
    input.dispatchEvent(new KeyboardEvent("keydown", { key: ch, bubbles: true, composed: true }));
    input.value += ch;
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    await settle(1);
  }
}

// ── mounting in the page ────────────────────────────────────────────────────────────────────────

function start(initial: Partial<UiStatus>): ScriptedBackground {
  const bg = new ScriptedBackground(null);
  overlay = startOverlay({
    api: { runtime: { connect: () => bg.port } },
    document,
    now: () => NOW,
    acceptEvent: () => true,
  });
  bg.setStatus(initial);
  return bg;
}

const shadow = () => overlay!.shadow()!;

describe("the adoption offer in the page", () => {
  it("decides what a tab shows: the managed overlay, the offer (only when enabled), or nothing", () => {
    const adoptable = status({ tabWorkerId: null, tabAdoptable: true });
    expect(overlayMode(adoptable)).toBeNull(); // default: off
    expect(overlayMode({ ...adoptable, prefs: OFFER_ON })).toBe("adopt");
    expect(overlayMode({ ...adoptable, prefs: { ...OFFER_ON, overlay: false } })).toBeNull();
    expect(overlayMode({ ...adoptable, tabAdoptable: false, prefs: OFFER_ON })).toBeNull();
    expect(overlayMode(status({ tabWorkerId: "w-1", prefs: OFFER_ON }))).toEqual({ workerId: "w-1" });
  });

  it("nothing on an unmanaged conversation by default, nor on a new chat with the offer on", async () => {
    const bg = start({ tabWorkerId: null, tabAdoptable: true });
    await settle();
    expect(overlay!.client.status.value?.tabAdoptable).toBe(true);
    expect(document.getElementById(OVERLAY_HOST_ID)).toBeNull();
    bg.setStatus({ tabWorkerId: null, tabAdoptable: false, prefs: OFFER_ON });
    await settle();
    expect(overlay!.client.status.value?.prefs.offerAdopt).toBe(true);
    expect(document.getElementById(OVERLAY_HOST_ID)).toBeNull();
    bg.setStatus({ tabWorkerId: null, tabAdoptable: true, prefs: OFFER_ON });
    await until(() => document.getElementById(OVERLAY_HOST_ID) !== null, "offered once enabled");
    bg.setStatus({ tabWorkerId: null, tabAdoptable: true });
    await until(() => document.getElementById(OVERLAY_HOST_ID) === null, "withdrawn when turned off");
  });

  it("by keyboard: badge, Enter, Tab to the objective, type, Tab, Enter adopts; focus moves on to the worker's badge", async () => {
    const bg = start({ tabWorkerId: null, tabAdoptable: true, prefs: OFFER_ON });
    const adopted = worker("Working", { id: "w-adopted", adopted: true });
    bg.answer("conversation_adopt", () => {
      // As in Chromium: focus has dropped to <body> from the button disabled while it runs, and the background's
      // status push (the tab is bound now) may arrive before the answer itself.
      (shadow().activeElement as HTMLElement).blur();
      queueMicrotask(() => bg.setStatus({ tabWorkerId: adopted.id, prefs: OFFER_ON }));
      return { worker: { id: adopted.id }, run: { id: "run-1" } };
    });
    bg.answer("ui_worker_detail", { worker: adopted, attempts: [], events: [] });
    await until(() => overlay?.shadow() !== undefined, "offer mounted");
    const host = document.getElementById(OVERLAY_HOST_ID)!;
    expect(host.parentElement).toBe(document.documentElement);
    const badge = byTestId(shadow(), "overlay-badge")[0]!;
    expect(badge.textContent).toBe("↻ Keep going?");
    expect(focusables(shadow())).toEqual([badge]); // collapsed: one small control
    badge.focus();
    press(shadow(), "Enter");
    await until(() => byTestId(shadow(), "overlay-drawer").length === 1, "opened");
    expect(badge.getAttribute("aria-expanded")).toBe("true");
    expect(tab(shadow())).toBe(byTestId(shadow(), "adopt-objective")[0]);
    await type(shadow(), "tidy the notes");
    expect(tab(shadow())).toBe(byTestId(shadow(), "adopt-button")[0]);
    press(shadow(), "Enter");
    await until(() => bg.callsOf("conversation_adopt").length === 1, "adopt call");
    // Only the objective goes out: the background takes the tab from the port's sender.
    expect(bg.callsOf("conversation_adopt")).toEqual([{ objective: "tidy the notes" }]);
    // The background bound the tab and pushed the new status: the same host now shows the managed overlay.
    await until(() => byTestId(shadow(), "overlay").length === 1, "managed overlay");
    expect(document.getElementById(OVERLAY_HOST_ID)).toBe(host);
    const managed = byTestId(shadow(), "overlay-badge")[0]!;
    await until(() => managed.textContent.includes("Working"), "worker state");
    expect(shadow().activeElement).toBe(managed);
    expect(document.activeElement).toBe(host);
  });

  it("Escape closes the offer and returns focus to the badge; keys typed in it do not reach the page", async () => {
    start({ tabWorkerId: null, tabAdoptable: true, prefs: OFFER_ON });
    await until(() => overlay?.shadow() !== undefined, "offer mounted");
    const pageKeys: string[] = [];
    const listener = (e: KeyboardEvent) => void pageKeys.push(e.key);
    document.addEventListener("keydown", listener);
    try {
      const badge = byTestId(shadow(), "overlay-badge")[0]!;
      badge.focus();
      press(shadow(), "Enter");
      await until(() => byTestId(shadow(), "overlay-drawer").length === 1, "opened");
      tab(shadow());
      await type(shadow(), "ab");
      press(shadow(), "Escape");
      await until(() => byTestId(shadow(), "overlay-drawer").length === 0, "closed");
      expect(shadow().activeElement).toBe(badge);
      expect(pageKeys).toEqual([]);
    } finally {
      document.removeEventListener("keydown", listener);
    }
  });

  it("ignores synthetic (untrusted) clicks: the page cannot open the offer or adopt", async () => {
    const bg = new ScriptedBackground(null);
    overlay = startOverlay({ api: { runtime: { connect: () => bg.port } }, document });
    bg.setStatus({ tabWorkerId: null, tabAdoptable: true, prefs: OFFER_ON });
    await until(() => overlay?.shadow() !== undefined, "offer mounted");
    byTestId(shadow(), "overlay-badge")[0]!.click(); // script-made: isTrusted is false
    await settle();
    expect(byTestId(shadow(), "overlay-drawer")).toHaveLength(0);
    expect(bg.calls).toHaveLength(0);
  });
});

// ── the offer's states, in the light DOM (axe-core cannot enter a closed shadow root) ──────────────

function renderOffer(over: Partial<UiStatus> = {}): { root: HTMLElement; bg: ScriptedBackground } {
  const bg = new ScriptedBackground(
    status({ tabWorkerId: null, tabAdoptable: true, prefs: OFFER_ON, ...over }),
  );
  const root = mount(<AdoptOffer client={bg.client} acceptEvent={() => true} />);
  return { root, bg };
}

describe("the adoption offer's states", () => {
  it("collapsed and open are accessible; a refusal (already adopted) is shown next to the button", async () => {
    const { root, bg } = renderOffer();
    bg.refuse("conversation_adopt", "CONFLICT", "This conversation is already kept going by a worker.");
    const badge = byTestId(root, "overlay-badge")[0]!;
    expect(badge.getAttribute("aria-expanded")).toBe("false");
    await expectAccessible(root);
    badge.focus();
    press(root, "Enter");
    await until(() => byTestId(root, "overlay-drawer").length === 1, "opened");
    const drawer = byTestId(root, "overlay-drawer")[0]!;
    expect(drawer.getAttribute("role")).toBe("region");
    expect(drawer.textContent).toContain("Keep this conversation going");
    expect(drawer.textContent).toContain("turned off in the orchestrator's settings");
    const input = byTestId(root, "adopt-objective")[0]!;
    expect(root.querySelector(`label[for="${input.id}"]`)?.textContent).toBe("Objective (optional)");
    await expectAccessible(root);
    tab(root);
    const adopt = tab(root);
    press(root, "Enter");
    adopt.blur(); // Chromium drops focus from a focused button that becomes disabled while it runs
    await until(() => root.querySelector('[role="alert"]') !== null, "refusal shown");
    await until(() => document.activeElement === adopt, "focus back on the button, next to the refusal");
    expect(root.querySelector('[role="alert"]')!.textContent).toBe(
      "This conversation is already kept going by a worker.",
    );
    expect(bg.callsOf("conversation_adopt")).toEqual([{}]);
    await expectAccessible(root);
  });

  it("host disconnected: says so and the button is disabled (skipped by Tab)", async () => {
    const { root, bg } = renderOffer({ connection: "reconnecting" });
    byTestId(root, "overlay-badge")[0]!.focus();
    press(root, "Enter");
    await until(() => byTestId(root, "overlay-drawer").length === 1, "opened");
    expect(root.querySelector('[role="alert"]')!.textContent).toContain("not connected");
    expect((byTestId(root, "adopt-button")[0] as HTMLButtonElement).disabled).toBe(true);
    expect(focusables(root).map((e) => e.dataset.testid)).toEqual(["overlay-badge", "adopt-objective"]);
    expect(bg.calls).toHaveLength(0);
    await expectAccessible(root);
  });
});

describe("popup adoption by keyboard only", () => {
  it("Tab reaches the objective and the button in reading order; Enter adopts with the typed objective", async () => {
    const bg = new ScriptedBackground(status({ tabWorkerId: null, tabAdoptable: true }));
    bg.answer("ui_summary", { runs: [], workers: [], autoResume: autoResume(0), eventSeq: 1 });
    bg.answer("conversation_adopt", { worker: { id: "w-new" }, run: { id: "r-new" } });
    const root = mount(<Popup client={bg.client} openPage={() => undefined} now={() => NOW} />);
    await until(() => byTestId(root, "adopt-button").length === 1, "adopt panel");
    expect(root.querySelectorAll("[tabindex]")).toHaveLength(0);
    const order = focusables(root).map((e) => e.dataset.testid ?? e.textContent.trim());
    // The Auto Resume switch is disabled with no run, so the objective is where Tab lands first.
    expect(order).toEqual(["adopt-objective", "adopt-button", "open-dashboard", "open-settings"]);
    (document.activeElement as HTMLElement | null)?.blur();
    expect(tab(root)).toBe(byTestId(root, "adopt-objective")[0]);
    await type(root, "finish the plan");
    expect(tab(root)).toBe(byTestId(root, "adopt-button")[0]);
    press(root, "Enter");
    await until(() => bg.callsOf("conversation_adopt").length === 1, "adopt call");
    expect(bg.callsOf("conversation_adopt")).toEqual([{ objective: "finish the plan" }]);
    await expectAccessible(root);
  });
});
