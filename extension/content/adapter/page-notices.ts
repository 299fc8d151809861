// Page-level conditions outside the turns: rate-limit, usage-cap and length-limit notices (dialogs, toasts, alerts,
// banners by the composer) and tool approval cards that wait for a person.
import { closestAny, collapse, queryAll } from "./dom.ts";
import { classifyNoticeText, LIMIT_CODES, MAX_ERROR_TEXT } from "./errors.ts";
import { textExcluding } from "./page-text.ts";
import { DIALOGS, turnOrMessage, type ScanScope } from "./scan-scope.ts";
import type { ErrorFinding, TurnScan } from "./scan-types.ts";
import { LABELS } from "./selectors.ts";

const NOTICE_HINT = /limit|too many|too quickly|wait a few minutes|slow down|maximum length|too long|요청/i;

/** `skipLimits`: look past rate-limit and usage-cap notices (what the page shows besides them). */
export function noticeError(
  scope: ScanScope,
  turns: TurnScan,
  editor: Element | null,
  skipLimits = false,
): ErrorFinding | undefined {
  const { table } = scope;
  const page = scope.pageWide();
  for (const notice of page.notice) {
    // Inside a turn or message it is the turn's own (old turns are not searched at all).
    if (turns.newest?.contains(notice) || closestAny(notice, turnOrMessage(table))) continue;
    const text = notice.textContent ?? "";
    const code = classifyNoticeText(text);
    if (!code || (skipLimits && LIMIT_CODES.has(code)) || !scope.visible(notice)) continue;
    const detail = `notice: ${notice.getAttribute("role") ?? notice.tagName.toLowerCase()}`;
    if (!LIMIT_CODES.has(code)) return { code, detail };
    const modal = closestAny(notice, DIALOGS) !== null;
    return { code, detail, limit: { element: notice, text: collapse(text), modal } };
  }
  if (skipLimits) return undefined;
  // Banners by the composer (usage cap): short blocks of the composer's container, never the draft itself.
  for (const container of page.composerContainer) {
    if (!NOTICE_HINT.test(container.textContent ?? "")) continue; // cheap pre-check; the draft is excluded below
    if (!NOTICE_HINT.test(textExcluding(container, editor, 20_000))) continue;
    for (const block of container.querySelectorAll("p, div, span")) {
      if (editor && (block.contains(editor) || editor.contains(block))) continue;
      const text = collapse(block.textContent ?? "");
      if (text.length < 12 || text.length > MAX_ERROR_TEXT || !NOTICE_HINT.test(text)) continue;
      const code = classifyNoticeText(text);
      if ((code === "USAGE_CAP" || code === "RATE_LIMITED") && scope.visible(block)) {
        return { code, detail: "banner by the composer", limit: { element: block, text, modal: false } };
      }
      // "You've reached the maximum length for this conversation…" where the composer was: no limit to wait out.
      if (code === "CONVERSATION_TOO_LONG" && scope.visible(block))
        return { code, detail: "banner by the composer" };
    }
  }
  return undefined;
}

/** Two visible buttons, approve-like and deny-like, close together: the card asks a person to decide. */
export function approvalIn(root: Element, scope: ScanScope): boolean {
  const { table } = scope;
  if (scope.visibleOf(queryAll(root, table.approvalCard)).length > 0) return true;
  const buttons = scope.buttons(root);
  const approves = scope.visibleOf(buttons.filter((b) => LABELS.approve.test(scope.label(b))));
  if (approves.length === 0) return false;
  const denies = scope.visibleOf(buttons.filter((b) => LABELS.deny.test(scope.label(b))));
  return approves.some((a) =>
    denies.some((d) => {
      let shared: Element | null = a.parentElement;
      for (let i = 0; shared && i < 4; i++, shared = shared.parentElement) {
        if (shared.contains(d)) return true;
      }
      return false;
    }),
  );
}
