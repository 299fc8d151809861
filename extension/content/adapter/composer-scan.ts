// The composer as one scan sees it: the single visible editor, its form, the primary, Send and Stop controls
// (classified by label and test id), pasted-text chips and Work mode; and whether Send can be clicked now.
import { closestAny, innermost, isDisabled, labelOf, matchesAny } from "./dom.ts";
import type { ScanScope } from "./scan-scope.ts";
import type { ButtonKind, ComposerScan } from "./scan-types.ts";
import { LABELS, type SelectorTable } from "./selectors.ts";

export function buttonKind(btn: Element, table: SelectorTable): ButtonKind {
  const label = labelOf(btn);
  const testid = btn.getAttribute("data-testid") ?? "";
  if (LABELS.voice.test(label) || /speech|voice|dictat/i.test(testid) || matchesAny(btn, table.voiceButton)) {
    return "voice";
  }
  if (LABELS.stop.test(label) || /stop/i.test(testid)) return "stop";
  if (LABELS.send.test(label) || /send/i.test(testid) || btn.hasAttribute("data-composer-submit"))
    return "send";
  if (btn.getAttribute("type") === "submit") return "send";
  return "unknown";
}

export function scanComposer(scope: ScanScope): ComposerScan {
  const { table } = scope;
  const none: ComposerScan = {
    form: null,
    editor: null,
    primary: null,
    primaryKind: "none",
    send: null,
    stopVisible: false,
    chips: 0,
    workMode: false,
  };
  const candidates = scope.visibleOf(
    scope.pageWide().editor.filter((el) => !matchesAny(el, table.decoyInput)),
  );
  let editors = innermost(candidates);
  if (editors.length > 1) {
    const inForm = editors.filter((el) => closestAny(el, table.composerForm));
    if (inForm.length > 0) editors = inForm;
  }
  if (editors.length === 0) return { ...none, problem: "no visible composer editor" };
  if (editors.length > 1) return { ...none, problem: `${editors.length} visible composer editors` };
  const editor = editors[0]!;
  const form = closestAny(editor, table.composerForm) ?? editor.closest("form");
  if (!form) return { ...none, editor, problem: "the composer editor is not inside a form" };

  const inForm = (key: keyof SelectorTable, byPriority = false) => scope.lookup(form, key, byPriority);
  // The kind (attributes) is checked before visibility (style), and only until the first match.
  const primary = scope.firstVisible(inForm("primaryButton", true)) ?? null;
  const primaryKind = primary ? buttonKind(primary, table) : "none";
  const send =
    scope.firstVisible(inForm("sendButton", true), (b) => buttonKind(b, table) === "send") ??
    (primary && primaryKind === "send" ? primary : null);
  let stopVisible =
    primaryKind === "stop" ||
    scope.firstVisible(inForm("stopButton"), (b) => buttonKind(b, table) === "stop") !== undefined;
  if (!stopVisible) {
    // GPT Pro's Stop in a trailing slot: only within the composer's container, never the whole document.
    const container = closestAny(form, table.composerContainer) ?? form;
    stopVisible =
      scope.firstVisible(
        scope.lookup(container, "trailingStop"),
        (b) => buttonKind(b, table) === "stop" && !closestAny(b, table.actionBarContainer),
      ) !== undefined;
  }
  const chips = inForm("pastedChip").length;
  const workMode = scope.pageWide().workMode.length > 0;
  return { form, editor, primary, primaryKind, send, stopVisible, chips, workMode };
}

/** Whether a send control can be clicked now (visible, enabled, send-like, in the form). */
export function sendReady(scan: ComposerScan, table: SelectorTable): Element | null {
  const send = scan.send;
  if (!send || isDisabled(send) || buttonKind(send, table) !== "send") return null;
  return send;
}
