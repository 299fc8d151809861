// Runs in the node environment: each test builds its own happy-dom Window from a fixture (fixtures/fake-chatgpt.ts).
// The scan that reuses what the last full scan found outside the newest answer (page-scan.ts `OutsideParts`) and the
// lookups of unchanged subtrees (subtree-cache.ts): after every kind of change it must equal a scan that looks
// everything up again, and it must be the one taken while only the answer streams.
import { afterEach, describe, expect, it } from "vitest";
import { FakeChatGpt } from "./fixtures/fake-chatgpt.ts";
import { scanPage, type OutsideParts } from "./page-scan.ts";
import { ScanMemory } from "./scan-memory.ts";
import type { PageScan } from "./scan-types.ts";
import { selectorTable } from "./selectors.ts";
import { MarkupMemo } from "./markup-memo.ts";
import { RegionMemo } from "./page-region.ts";
import { SubtreeCache } from "./subtree-cache.ts";
import { TurnTracker } from "./turn-tracker.ts";

let pages: FakeChatGpt[] = [];
afterEach(() => {
  for (const p of pages) p.close();
  pages = [];
});

/** The scan's findings with elements as identities, for comparing two scans of the same page. */
function summary(scan: PageScan, memory: ScanMemory) {
  const id = (el: Element | null) => (el ? memory.idOf(el) : null);
  const { form, editor, primary, send, ...composer } = scan.composer;
  return {
    url: scan.url.url,
    layout: scan.layout,
    composer: { ...composer, form: id(form), editor: id(editor), primary: id(primary), send: id(send) },
    turns: scan.turns.turns.map(id),
    newestRole: scan.turns.newestRole,
    busy: scan.busy,
    animated: scan.animated,
    thinking: scan.thinking,
    actionBar: scan.actionBar,
    liveStatus: scan.liveStatus,
    draftSendable: scan.draftSendable,
    contentSig: scan.contentSig,
    error: scan.error,
    dialogOpen: scan.dialogOpen,
  };
}

/**
 * Scans as the adapter does (tracker, subtree cache and markup memo fed by a document observer, outside parts carried over),
 * checked each time.
 */
function scanner(page: FakeChatGpt) {
  const table = selectorTable();
  const memory = new ScanMemory();
  const tracker = new TurnTracker(table.turn);
  const subtrees = new SubtreeCache();
  const markup = new MarkupMemo();
  const regions = new RegionMemo();
  const observer = new page.win.MutationObserver((records) => {
    tracker.note(records);
    subtrees.note(records);
    markup.note(records);
  });
  observer.observe(page.doc, { childList: true, subtree: true, characterData: true, attributes: true });
  let outside: OutsideParts | undefined;
  const scan = (): { scan: PageScan; reused: boolean } => {
    const queued = observer.takeRecords();
    tracker.note(queued);
    subtrees.note(queued);
    markup.note(queued);
    const result = scanPage(page.win, table, memory, { tracker, reuse: outside, subtrees, markup, regions });
    outside = result.outside;
    // Everything looked up again: no tracker, nothing reused.
    const fresh = scanPage(page.win, table, memory).scan;
    expect(summary(result.scan, memory)).toEqual(summary(fresh, memory));
    return result;
  };
  return { scan, regions, stop: () => observer.disconnect() };
}

describe.each(["classic", "composer-2026"] as const)("%s layout", (layout) => {
  const open = () => {
    const page = new FakeChatGpt({ layout });
    pages.push(page);
    page.appendUserTurn("continue");
    const turn = page.appendAssistantTurn("First words", { streaming: true });
    page.setPrimary("stop");
    const s = scanner(page);
    expect(s.scan().reused).toBe(false);
    return { page, turn, ...s };
  };
  /** A template's element at the end of the turn, after its answer (the status slot is before it). */
  const addAfterAnswer = (page: FakeChatGpt, turn: Element, id: string, message?: string) =>
    turn.appendChild(page.fromTemplate(id, message ? { message } : {}));
  const stream = (page: FakeChatGpt, turn: Element, text: string) => {
    const p = page.doc.createElement("p");
    p.textContent = text;
    page.markdownOf(turn).append(p);
  };

  it("streaming text reuses the outside parts; Stop leaving or coming back in the form is seen at once", () => {
    const { page, turn, scan, stop } = open();
    for (let i = 0; i < 3; i++) {
      stream(page, turn, `more ${i}`);
      const r = scan();
      expect(r.reused).toBe(true);
      expect(r.scan.composer.stopVisible).toBe(true);
    }
    page.setPrimary("voice");
    stream(page, turn, "still streaming");
    const gone = scan();
    expect(gone.reused).toBe(false);
    expect(gone.scan.composer.stopVisible).toBe(false);
    stream(page, turn, "more");
    expect(scan().reused).toBe(true);
    page.setPrimary("stop"); // only the answer streamed since the last full scan; now the form changes
    const back = scan();
    expect(back.reused).toBe(false);
    expect(back.scan.busy).toBe("stop button");
    stop();
  });

  it('"Response complete" written anew into the live region while the answer streams is seen at once', () => {
    const { page, turn, scan, stop } = open();
    page.announce("Searching");
    const before = scan().scan.liveStatus;
    expect(before.complete).toBe(false);
    stream(page, turn, "more");
    expect(scan().reused).toBe(true);
    page.announce("Response complete");
    const said = scan();
    expect(said.reused).toBe(false);
    expect(said.scan.liveStatus.complete).toBe(true);
    stream(page, turn, "a late word");
    expect(scan().scan.liveStatus).toEqual(said.scan.liveStatus); // kept while the region has no record
    page.announce("Response complete"); // the same words again, in a new text node: a new announcement
    const again = scan().scan.liveStatus;
    expect(again.complete).toBe(true);
    expect(again.sig).not.toBe(said.scan.liveStatus.sig);
    stop();
  });

  it("the composer hidden by markup and shown again is seen at once, the element's own and an ancestor's", () => {
    const { page, turn, scan, stop } = open();
    const editor = scan().scan.composer.editor!;
    // Not the form itself: happy-dom's form is a Proxy, and its records name the object behind it.
    const container = editor.closest("form")!.parentElement!;
    for (const [el, hide] of [
      [editor, (e: Element) => e.setAttribute("aria-hidden", "true")],
      [container, (e: Element) => e.setAttribute("hidden", "")],
      [editor, (e: Element) => e.classList.add("sr-only")],
    ] as const) {
      hide(el);
      stream(page, turn, "more");
      expect(scan().scan.composer.editor).toBeNull();
      el.removeAttribute("aria-hidden");
      el.removeAttribute("hidden");
      el.classList.remove("sr-only");
      expect(scan().scan.composer.editor).toBe(editor);
    }
    stop();
  });

  it("an error card after the newest turn, a dialog or a notice outside the thread is found while the answer streams", () => {
    const { page, turn, scan, stop } = open();
    stream(page, turn, "a");
    expect(scan().reused).toBe(true);
    // A card rendered after the newest turn (outside it, in the thread). Without a Retry: in these short fixture
    // threads a Retry's card would climb to the whole thread (covered by the equality check, never reused).
    const card = page.doc.createElement("div");
    card.className = "text-token-text-error";
    card.textContent = "Something went wrong.";
    page.turnsRoot.appendChild(card);
    stream(page, turn, "b");
    const withCard = scan();
    expect(withCard.reused).toBe(false);
    expect(withCard.scan.error?.code).toBe("RESPONSE_FAILED");
    stream(page, turn, "c");
    expect(scan()).toMatchObject({ reused: true, scan: { error: { code: "RESPONSE_FAILED" } } });
    card.remove();
    expect(scan().scan.error).toBeUndefined();

    stream(page, turn, "d");
    expect(scan().reused).toBe(true);
    const dialog = page.addToPortal("rate-limit-dialog");
    const withDialog = scan();
    expect(withDialog.reused).toBe(false);
    expect(withDialog.scan).toMatchObject({ dialogOpen: true, error: { code: "RATE_LIMITED" } });
    stream(page, turn, "e");
    expect(scan()).toMatchObject({
      reused: true,
      scan: { dialogOpen: true, error: { code: "RATE_LIMITED" } },
    });
    dialog.remove();
    expect(scan().scan.error).toBeUndefined();

    stream(page, turn, "f");
    expect(scan().reused).toBe(true);
    const toast = page.addToPortal("toast-error", "Message delivery timed out. Please try again.");
    expect(scan().scan.error?.code).toBe("MESSAGE_DELIVERY_TIMEOUT");
    toast.remove();
    page.addBanner("usage-cap-banner");
    expect(scan().scan.error?.code).toBe("USAGE_CAP");
    stop();
  });

  it("changes inside the newest turn that page-wide lookups see (a Log in link, an alert) are never reused", () => {
    const { page, turn, scan, stop } = open();
    stream(page, turn, "a");
    expect(scan().reused).toBe(true);
    const login = page.doc.createElement("a");
    login.setAttribute("href", "/auth/login");
    login.textContent = "Log in";
    page.markdownOf(turn).append(login);
    const quoted = scan();
    expect(quoted.reused).toBe(false);
    login.remove(); // the full scan that saw it must not be reused with its finding
    stream(page, turn, "b");
    expect(scan().reused).toBe(false);
    stream(page, turn, "c");
    expect(scan().reused).toBe(true);
    addAfterAnswer(page, turn, "error-alert", "Message delivery timed out. Please try again.");
    const alerted = scan();
    expect(alerted.reused).toBe(false);
    expect(alerted.scan.error?.code).toBe("MESSAGE_DELIVERY_TIMEOUT");
    stop();
  });

  it("error cards, approval cards and the end of streaming inside the newest turn are found on the reused path", () => {
    const { page, turn, scan, stop } = open();
    stream(page, turn, "a");
    expect(scan().reused).toBe(true);
    const approval = addAfterAnswer(page, turn, "approval-card");
    expect(scan()).toMatchObject({ reused: true, scan: { error: { code: "AWAITING_APPROVAL" } } });
    approval.remove();
    const card = addAfterAnswer(page, turn, "error-card", "Message delivery timed out.");
    expect(scan()).toMatchObject({ reused: true, scan: { error: { code: "MESSAGE_DELIVERY_TIMEOUT" } } });
    card.remove();
    page.setStreaming(turn, false);
    page.addActionBar(turn);
    const ended = scan();
    expect(ended).toMatchObject({ reused: true, scan: { actionBar: true, animated: false } });
    expect(ended.scan.error).toBeUndefined();
    stop();
  });

  it("the page region is kept while the thread and its ancestors are unchanged, and built again after each change", () => {
    const { page, scan, regions, stop } = open();
    page.appendUserTurn("next");
    const answer = page.appendAssistantTurn("Next answer", { streaming: true });
    page.setPrimary("voice"); // full scans from here on: the region is what they look through
    scan();
    const built = regions.builds;
    page.setPrimary("stop");
    scan();
    stream(page, answer, "a");
    page.setPrimary("voice");
    scan();
    expect(regions.builds).toBe(built);
    // A notice in the thread after the newest turn, and one in a portal: records on the thread and on <body>.
    const inThread = page.doc.createElement("div");
    inThread.setAttribute("role", "alert");
    inThread.textContent = "Too many requests. Please slow down.";
    page.turnsRoot.appendChild(inThread);
    expect(scan().scan.error?.code).toBe("RATE_LIMITED");
    expect(regions.builds).toBe(built + 1);
    inThread.remove();
    expect(scan().scan.error).toBeUndefined();
    const dialog = page.addToPortal("rate-limit-dialog");
    expect(scan().scan.error?.code).toBe("RATE_LIMITED");
    dialog.remove();
    scan();
    // An ancestor of the thread that starts to match a page-wide chain itself (a record on it, attributes included).
    const ancestor = page.turnsRoot.parentElement!;
    ancestor.setAttribute("role", "dialog");
    expect(scan().scan.dialogOpen).toBe(true);
    ancestor.removeAttribute("role");
    expect(scan().scan.dialogOpen).toBe(false);
    // The first turn moved from one wrapper into the next: the records land on the two wrappers only (not on the thread),
    // and the region's old-turn range must now start at the second, so a notice left in the first is looked at.
    const first = page.turnsRoot.firstElementChild!;
    const wrapper = (children: Element[]) => {
      const w = page.doc.createElement("div");
      w.append(...children);
      return w;
    };
    const notice = page.doc.createElement("div");
    notice.setAttribute("role", "alert");
    notice.textContent = "Too many requests. Please slow down.";
    const holder = wrapper([notice]);
    page.turnsRoot.insertBefore(holder, first);
    holder.appendChild(first);
    const next = wrapper([]);
    page.turnsRoot.insertBefore(next, holder.nextElementSibling);
    expect(scan().scan.error).toBeUndefined(); // beside the first turn: among the old turns, not looked at
    const before = regions.builds;
    next.appendChild(first);
    expect(scan().scan.error?.code).toBe("RATE_LIMITED");
    expect(regions.builds).toBe(before + 1);
    stop();
  });

  it("a thinking label beside the answer is busy wherever it is nested; the same words inside the answer are not", () => {
    const { page, turn, scan, stop } = open();
    page.setPrimary("voice");
    stream(page, turn, "Thinking about it, the plan holds."); // in the answer: text, never a label
    expect(scan().scan.thinking).toBe(false);
    const label = page.addToNewestTurn("thinking-label");
    expect(scan().scan.thinking).toBe(true);
    // Deeper, after the answer, beside text long enough that no wrapper reads as the label: found by going down.
    const nest = page.doc.createElement("div");
    nest.appendChild(page.doc.createElement("span")).textContent = "Sources: ".repeat(10);
    nest.appendChild(page.doc.createElement("div")).appendChild(label);
    turn.appendChild(nest);
    expect(scan().scan.thinking).toBe(true);
    label.remove();
    expect(scan().scan.thinking).toBe(false);
    stop();
  });

  it("a new turn, an attribute of the newest turn or a user turn as the newest make a full scan", () => {
    const { page, turn, scan, stop } = open();
    stream(page, turn, "a");
    expect(scan().reused).toBe(true);
    page.appendUserTurn("next");
    expect(scan().reused).toBe(false);
    const answer = page.appendAssistantTurn("Next answer", { streaming: true });
    expect(scan().reused).toBe(false);
    stream(page, answer, "b");
    expect(scan().reused).toBe(true);
    answer.setAttribute("class", "changed");
    expect(scan().reused).toBe(false);
    answer.remove();
    expect(scan().reused).toBe(false);
    stream(page, turn, "c");
    expect(scan().reused).toBe(false); // the newest is the user turn now
    stop();
  });
});
