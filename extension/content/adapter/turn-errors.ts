// The error of the current region (the newest turn and everything after it): error cards, cards around a Retry, an
// alert in the newest turn, an error sentence as the answer, "Thinking failed". Errors before the newest turn are stale.
import { closestAny, collapse, isElement, matchesAny, queryAll, startsAfter } from "./dom.ts";
import { classifyAnswerText, classifyCardText, MAX_ERROR_TEXT, type PageErrorCode } from "./errors.ts";
import type { ScanScope } from "./scan-scope.ts";
import type { ErrorFinding, TurnScan } from "./scan-types.ts";
import { LABELS, type SelectorTable } from "./selectors.ts";
import { answerRoot } from "./turn-scan.ts";
import { weakMemo } from "./weak-memo.ts";

/**
 * The current region (docs/adapter.md, "Error classification"): the newest turn and everything after it in the
 * document. An error anywhere else sits before a newer turn, so it is stale. Without turns, everything is current.
 */
function inCurrentRegion(el: Element, turns: TurnScan): boolean {
  const newest = turns.newest;
  return !newest || newest === el || newest.contains(el) || startsAfter(el, newest);
}

/**
 * The current region as subtrees: the newest turn, then every subtree after it in document order (its following
 * siblings and those of each ancestor). Old turns, most of a long conversation, are never walked.
 */
function currentRegionRoots(doc: Document, turns: TurnScan): (Document | Element)[] {
  const newest = turns.newest;
  if (!newest) return [doc];
  const roots: Element[] = [newest];
  for (let cur: Element | null = newest; cur; cur = cur.parentElement) {
    for (let sib = cur.nextElementSibling; sib; sib = sib.nextElementSibling) roots.push(sib);
  }
  return roots;
}

/**
 * `queryAll` over the current region, in document order (a region root that matches counts too), keeping only what
 * `keep` accepts (it must depend on the element's own subtree alone: the result is kept per root under `key`).
 */
function queryRegion(
  scope: ScanScope,
  roots: readonly (Document | Element)[],
  key: string,
  chain: readonly string[],
  keep?: (el: Element) => boolean,
  deps: readonly string[] = chain,
): Element[] {
  const out: Element[] = [];
  for (const root of roots) {
    const inRoot = () => {
      const found = queryAll(root, chain);
      if (isElement(root) && matchesAny(root, chain)) found.unshift(root);
      return keep ? found.filter(keep) : found;
    };
    out.push(...(isElement(root) ? scope.under(root, key, deps, inRoot) : inRoot()));
  }
  return out;
}

const BUTTONS = ["button"];

/** What the Retry lookup depends on: buttons, and the table's error Retry chain. */
const retryLookupDeps = weakMemo((table: SelectorTable): string[] => [...BUTTONS, ...table.errorRetryButton]);

/** Within the newest turn, a later non-empty message (a newer answer section) supersedes an error card. */
function supersededInTurn(el: Element, turns: TurnScan): boolean {
  if (!turns.newest?.contains(el)) return false;
  return turns.newestMessages.some(
    (m) => !m.contains(el) && !el.contains(m) && startsAfter(m, el) && collapse(m.textContent ?? "") !== "",
  );
}

/**
 * From an error card's Retry, the largest ancestor still short enough to be the card: at most 8 levels up, while its
 * text stays under `MAX_ERROR_TEXT` and it is no turn, message, form or main (docs/adapter.md, "Selector table").
 */
function cardAround(button: Element, table: SelectorTable): Element {
  let card: Element = button;
  let cur = button.parentElement;
  for (let depth = 0; cur && depth < 8; depth++, cur = cur.parentElement) {
    if (matchesAny(cur, table.turn) || matchesAny(cur, table.message) || cur.tagName === "MAIN") break;
    if (cur.tagName === "BODY" || matchesAny(cur, table.composerForm)) break;
    if (collapse(cur.textContent ?? "").length >= MAX_ERROR_TEXT) break;
    card = cur;
  }
  return card;
}

/**
 * Error cards and cards around a Retry under `roots` (in order), as findings. `reusable` is false when a card reaches
 * around the newest turn (a short thread climbed from a Retry after it): its text then changes with that turn.
 */
export interface RegionErrors {
  cards: ErrorFinding[];
  retries: ErrorFinding[];
  reusable: boolean;
}

function regionErrors(
  scope: ScanScope,
  turns: TurnScan,
  roots: readonly (Document | Element)[],
): RegionErrors {
  const { table } = scope;
  const out: RegionErrors = { cards: [], retries: [], reusable: true };
  const consider = (into: ErrorFinding[], el: Element, code: PageErrorCode | undefined, what: string) => {
    if (code && !supersededInTurn(el, turns)) into.push({ code, detail: what });
  };
  const candidate = (el: Element) => inCurrentRegion(el, turns) && !closestAny(el, table.composerForm);
  const cards = queryRegion(scope, roots, "errorCard", table.errorCard);
  for (const card of scope.visibleOf(cards.filter(candidate))) {
    const text = collapse(card.textContent ?? "");
    const hasRetry = card.querySelector("button") !== null;
    consider(
      out.cards,
      card,
      classifyCardText(text) ?? (hasRetry ? "RESPONSE_FAILED" : undefined),
      "error card",
    );
  }
  const retryLike = (b: Element) =>
    LABELS.errorRetry.test(scope.label(b)) || matchesAny(b, table.errorRetryButton);
  const retries = queryRegion(
    scope,
    roots,
    "retryButtons",
    BUTTONS,
    retryLike,
    retryLookupDeps(table),
  ).filter(candidate);
  for (const retry of scope.visibleOf(retries)) {
    if (closestAny(retry, table.actionBarContainer)) continue;
    const card = cardAround(retry, table);
    if (turns.newest && card.contains(turns.newest)) out.reusable = false;
    consider(
      out.retries,
      card,
      classifyCardText(collapse(card.textContent ?? "")) ?? "RESPONSE_FAILED",
      "card with a Retry",
    );
  }
  return out;
}

/**
 * The error of the current region: cards (the newest turn's, then those after it), cards around a Retry (same order),
 * an alert in the newest turn, an error sentence as the answer, "Thinking failed". `after`: what the region after
 * the newest turn held at an earlier scan, when nothing there changed since (see `OutsideParts`).
 */
export function turnError(
  scope: ScanScope,
  turns: TurnScan,
  after?: RegionErrors,
): { error: ErrorFinding | undefined; after: RegionErrors | undefined } {
  const { table } = scope;
  let inNewest: RegionErrors;
  if (turns.newest) {
    inNewest = regionErrors(scope, turns, [turns.newest]);
    after ??= regionErrors(scope, turns, currentRegionRoots(scope.doc, turns).slice(1));
  } else {
    inNewest = regionErrors(scope, turns, [scope.doc]);
    after = undefined;
  }
  const found: ErrorFinding[] = [
    ...inNewest.cards,
    ...(after?.cards ?? []),
    ...inNewest.retries,
    ...(after?.retries ?? []),
  ];
  const consider = (el: Element, code: PageErrorCode | undefined, what: string) => {
    if (code && !supersededInTurn(el, turns)) found.push({ code, detail: what });
  };
  if (turns.newest) {
    for (const alert of scope.visibleOf(queryAll(turns.newest, ['[role="alert"]']))) {
      consider(alert, classifyCardText(alert.textContent ?? ""), "alert in the newest turn");
    }
  }
  const newest = turns.newestAssistant;
  if (newest) {
    const root = answerRoot(newest, table);
    if (root) consider(root, classifyAnswerText(root.textContent ?? ""), "error text in the answer");
    for (const b of scope.buttons(newest)) {
      if (!LABELS.thinkingFailed.test(scope.label(b)) || closestAny(b, table.assistantMarkdown)) continue;
      if (scope.visible(b)) consider(b, "THINKING_FAILED", '"Thinking failed"');
    }
  }
  return { error: found[0], after };
}
