// The only place the adapter clicks anything: Send, the editor, and a rate-limit dialog's one "Got it". It refuses
// Retry/regenerate, "Answer now", "Use Work", voice and dictation, Stop, tool-approval buttons and anything inside an
// error card (docs/adapter.md, "Submission").
import type { PageWindow } from "./types.ts";
import { closestAny, collapse, hasBox, isContentEditable, isTextArea, labelOf, matchesAny } from "./dom.ts";
import { LABELS, type SelectorTable } from "./selectors.ts";

export type ClickPurpose = "send" | "focus-editor" | "dismiss-notice";

export type ClickResult = { clicked: true } | { clicked: false; reason: string };

/** Why an element must never be clicked, or undefined when nothing forbids it. */
export function refusalReason(el: Element, table: SelectorTable): string | undefined {
  const label = labelOf(el);
  const text = collapse(el.textContent ?? "");
  const testid = el.getAttribute("data-testid") ?? "";
  const either = (re: RegExp) => re.test(label) || re.test(text);
  if (/regenerate|retry/i.test(testid) || matchesAny(el, table.retryButton) || either(LABELS.retry)) {
    return "Retry/regenerate is never clicked (it can duplicate the message)";
  }
  if (either(LABELS.answerNow)) return '"Answer now" is never clicked';
  if (either(LABELS.useWork) || el.getAttribute("data-tpp-toggle-value") === "work") {
    return '"Use Work" is never clicked';
  }
  if (
    matchesAny(el, table.voiceButton) ||
    /speech|voice|dictat/i.test(testid) ||
    LABELS.voice.test(label) ||
    [...el.querySelectorAll("use")].some((u) =>
      (u.getAttribute("href") ?? u.getAttribute("xlink:href") ?? "").includes("microphone"),
    )
  ) {
    return "voice and dictation controls are never clicked";
  }
  if (/stop/i.test(testid) || LABELS.stop.test(label) || matchesAny(el, table.stopButton)) {
    return "Stop is never clicked (generation is not interrupted)";
  }
  if (either(LABELS.approve) || either(LABELS.deny) || closestAny(el, table.approvalCard)) {
    return "tool approval is a person's decision";
  }
  if (closestAny(el, table.errorCard)) return "nothing inside an error card is clicked";
  return undefined;
}

/**
 * Clicks `el` once if it is allowed for `purpose`: "send" must be a send control inside the composer form;
 * "focus-editor" must be the editor itself (the pointer sequence ProseMirror needs before inserting).
 */
export function guardedClick(
  el: Element,
  purpose: ClickPurpose,
  win: PageWindow,
  table: SelectorTable,
): ClickResult {
  const refused = refusalReason(el, table);
  if (refused) return { clicked: false, reason: refused };
  // Observation checks visibility from style alone (dom.ts isVisible); a click also needs a non-empty box.
  if (!hasBox(el)) return { clicked: false, reason: "the control has no visible box (zero width or height)" };
  if (purpose === "dismiss-notice") {
    // Only the single acknowledgement button of a dialog: it closes the notice and does nothing else.
    const dialog = el.closest('[role="dialog"], [role="alertdialog"], dialog');
    const buttons = dialog ? dialog.querySelectorAll("button, [role=button]") : [];
    if (!dialog || buttons.length !== 1 || buttons[0] !== el) {
      return { clicked: false, reason: "only a dialog's single acknowledgement button is clicked" };
    }
    if (!LABELS.acknowledge.test(labelOf(el)) && !LABELS.acknowledge.test(collapse(el.textContent ?? ""))) {
      return { clicked: false, reason: "the dialog's button is not an acknowledgement (Got it, OK)" };
    }
    (el as HTMLElement).click();
    return { clicked: true };
  }
  if (purpose === "send") {
    if (!closestAny(el, table.composerForm) && !el.closest("form")) {
      return { clicked: false, reason: "a send control must sit inside the composer form" };
    }
    (el as HTMLElement).click();
    return { clicked: true };
  }
  if (!isContentEditable(el) && !isTextArea(el)) {
    return { clicked: false, reason: "focus clicks go to the editor only" };
  }
  const init = { bubbles: true, cancelable: true, composed: true, view: win, button: 0 };
  const Pointer = (win as Window & { PointerEvent?: typeof MouseEvent }).PointerEvent ?? win.MouseEvent;
  el.dispatchEvent(new Pointer("pointerdown", init));
  el.dispatchEvent(new win.MouseEvent("mousedown", init));
  el.dispatchEvent(new Pointer("pointerup", init));
  el.dispatchEvent(new win.MouseEvent("mouseup", init));
  el.dispatchEvent(new win.MouseEvent("click", init));
  return { clicked: true };
}
