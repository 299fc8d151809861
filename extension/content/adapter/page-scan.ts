// One snapshot of the page: composer, turns, busy signals, the finished-turn evidence and the current error, each
// found through the selector table and scoped as research §2/§3/§5 require. Pure reading; the state machine adds time.
import {
  closestAny,
  collapse,
  innermost,
  isElement,
  isDisabled,
  isTextArea,
  hiddenByMarkup,
  labelOf,
  matchesAny,
  queryAll,
  queryByPriority,
  renderedByStyle,
  startsAfter,
} from "./dom.ts";
import { queryRegionChains, regionWithoutOldTurns, type RegionMemo } from "./page-region.ts";
import type { MarkupMemo } from "./markup-memo.ts";
import { cacheableChain, type SubtreeCache } from "./subtree-cache.ts";
import { weakMemo } from "./weak-memo.ts";
import { textExcluding } from "./page-text.ts";
import {
  classifyAnswerText,
  classifyCardText,
  classifyNoticeText,
  LIMIT_CODES,
  MAX_ERROR_TEXT,
  type PageErrorCode,
} from "./errors.ts";
import { LABELS, type SelectorTable } from "./selectors.ts";
import type { TurnTracker } from "./turn-tracker.ts";
import type { Layout, PageWindow } from "./types.ts";
import { classifyUrl, isLoginPath, type PageUrl } from "./url.ts";

export type ButtonKind = "send" | "stop" | "voice" | "unknown";
export type Role = "user" | "assistant" | "unknown";

export interface ComposerScan {
  form: Element | null;
  editor: Element | null;
  /** Set when no single usable composer was found (the reason is shown in HOST_UI_CHANGED details). */
  problem?: string;
  primary: Element | null;
  primaryKind: ButtonKind | "none";
  /** The visible send control of the form (enabled or not). */
  send: Element | null;
  stopVisible: boolean;
  chips: number;
  workMode: boolean;
}

export interface TurnScan {
  turns: readonly Element[];
  /** Message nodes inside the newest turn (a later one supersedes an error card before it). */
  newestMessages: Element[];
  newest: Element | null;
  newestRole: Role | null;
  /** The newest turn when it is an assistant turn. */
  newestAssistant: Element | null;
}

export interface ErrorFinding {
  code: PageErrorCode;
  detail: string;
  /** Set for a rate-limit or usage-cap notice (RATE_LIMITED, USAGE_CAP). */
  limit?: LimitNotice;
}

/** A rate-limit or usage-cap notice: the state machine reads its reset time and decides when it no longer applies. */
export interface LimitNotice {
  /** The notice (dialog, toast, alert, or the banner's block by the composer). */
  element: Element;
  /** Its visible words, whitespace collapsed: what the reset time is read from (reset-time.ts). */
  text: string;
  /** Inside a dialog: it covers the page, and a submission is refused while it shows (docs/adapter.md). */
  modal: boolean;
}

export interface PageScan {
  url: PageUrl;
  layout: Layout;
  composer: ComposerScan;
  turns: TurnScan;
  /** A strong busy signal (Stop, streaming marker, thinking label, "Answer now"), with its name. */
  busy?: string;
  /** `data-markdown-animated` on the newest answer: busy only while its content changes (machine decides). */
  animated: boolean;
  /** A thinking/Pro signal ("Answer now", a thinking label); it is busy too (`busy` names it). */
  thinking: boolean;
  /** The newest turn is an assistant turn showing its finished action bar (finished-turn evidence). */
  actionBar: boolean;
  /** The page's live status regions that announce "Response complete" (finished-turn evidence once it changes). */
  liveStatus: LiveStatus;
  /** Send is enabled and no Stop shows while the composer holds text (finished-turn evidence). */
  draftSendable: boolean;
  /** Changes whenever the newest turn's content or the number of turns changes. */
  contentSig: string;
  error?: ErrorFinding;
  /**
   * When `error` is a limit notice: what the page shows besides it (another notice, a tool approval, a turn error), the
   * error once that notice is left out (the state machine leaves out a notice a submission of ours went past).
   */
  behindLimit?: ErrorFinding;
  dialogOpen: boolean;
}

/**
 * The `[role=status]` regions saying "Response complete". `sig` names them and their child nodes, so it changes when
 * the page announces it again (it writes the words anew, or clears them first); "" when none says it.
 */
export interface LiveStatus {
  sig: string;
  complete: boolean;
}

/** Node identities across ticks (a remounted node is a new node even if it looks the same), the last URL. */
export class ScanMemory {
  private readonly ids = new WeakMap<Node, number>();
  private next = 1;
  private url: { href: string; url: PageUrl } | undefined;

  /** `classifyUrl` of the location, parsed again only when its href changed (Location's getters are not cheap). */
  urlOf(loc: Location, href = loc.href): PageUrl {
    if (this.url?.href !== href) this.url = { href, url: classifyUrl(loc) };
    return this.url.url;
  }

  idOf(node: Node): number {
    let id = this.ids.get(node);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(node, id);
    }
    return id;
  }
}

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

/** The page-wide lookups of a scan, made together over the page without its old turns (page-region.ts). */
export interface PageWide {
  editor: Element[];
  workMode: Element[];
  dialog: Element[];
  notice: Element[];
  loginControl: Element[];
  composerContainer: Element[];
  liveStatus: Element[];
}

const DIALOGS = ['[role="dialog"]', '[role="alertdialog"]'];

/** The page-wide chains of a table (one object per table: lookups memoize on it). */
const pageWideChains = weakMemo((table: SelectorTable): Record<keyof PageWide, readonly string[]> => ({
  editor: table.editor,
  workMode: table.workModeSelected,
  dialog: DIALOGS,
  notice: table.notice,
  loginControl: table.loginControl,
  composerContainer: table.composerContainer,
  liveStatus: table.liveStatus,
}));

/** Every page-wide chain in one list (memoized per table, so `matchesAny` reuses its joined selector). */
const pageWideAll = weakMemo((table: SelectorTable): string[] => Object.values(pageWideChains(table)).flat());

/**
 * The page-wide chains whose hits inside the newest turn would be read from it (a Log in link, an alert): while that
 * turn holds one, what was found around it cannot be reused. Live status regions are read outside the turns only.
 */
const readInTurn = weakMemo((table: SelectorTable): string[] =>
  Object.entries(pageWideChains(table)).flatMap(([key, chain]) => (key === "liveStatus" ? [] : chain)),
);

/** Whether anything a page-wide lookup reads from the newest turn is inside `el` (or is `el`). */
function holdsPageWide(el: Element, table: SelectorTable): boolean {
  const all = readInTurn(table);
  return matchesAny(el, all) || queryAll(el, all).length > 0;
}

/** `cacheableChain`, memoized per chain array (the table's arrays live as long as the adapter). */
const isCacheable = weakMemo(cacheableChain);

/**
 * Per-scan lookups shared by every check: the visually hidden containers, a visibility cache, page-wide hits, and
 * the adapter's `SubtreeCache` (lookups under a subtree that did not change since an earlier scan are not made again)
 * and `MarkupMemo` (each element's own hidden markup, while its attributes did not change).
 */
export class ScanScope {
  private readonly isHidden: (el: Element) => boolean;
  /** `hiddenByMarkup` of the element itself (from `MarkupMemo` when the hidden classes are the element's own). */
  private readonly selfHidden: (el: Element) => boolean;
  private readonly cache = new Map<Element, boolean>();
  private readonly markup = new Map<Element, boolean>();
  private readonly labels = new Map<Element, string>();
  private readonly buttonLists = new Map<Element, readonly Element[]>();
  private readonly subtrees: SubtreeCache | undefined;
  private readonly regions: RegionMemo | undefined;
  private pageHits: PageWide | undefined;

  /**
   * `turns`: the conversation's turns (their old ones are left out of page-wide lookups); none = whole page. `kept`:
   * what the adapter keeps across scans (none: everything is looked up afresh).
   */
  constructor(
    readonly doc: Document,
    readonly win: PageWindow,
    readonly table: SelectorTable,
    private readonly turns: readonly Element[] = [],
    kept: Pick<ScanKept, "subtrees" | "markup" | "regions"> = {},
  ) {
    this.subtrees = kept.subtrees;
    this.regions = kept.regions;
    const markupMemo = kept.markup;
    // Plain class selectors (the built-in `.sr-only`) are checked on each ancestor's class list; anything
    // else a remote table supplies is resolved once per scan.
    const classes = table.visuallyHidden.map((css) => /^\.([\w-]+)$/.exec(css)?.[1]);
    const isHidden = classes.every((c): c is string => c !== undefined)
      ? (el: Element) => classes.some((c) => el.classList.contains(c))
      : undefined;
    if (isHidden) {
      this.isHidden = isHidden;
      this.selfHidden = markupMemo
        ? (el) => markupMemo.selfHidden(el, isHidden)
        : (el) => hiddenByMarkup(el, isHidden);
    } else {
      // A selector that depends on other elements can change without a record on this one: nothing is remembered.
      const hidden = new Set(queryAll(doc, table.visuallyHidden));
      this.isHidden = (el) => hidden.has(el);
      this.selfHidden = (el) => hiddenByMarkup(el, this.isHidden);
    }
  }

  /** Editors, Work mode, dialogs, notices, login controls and composer containers outside the old turns. */
  pageWide(): PageWide {
    if (this.pageHits) return this.pageHits;
    const cache = this.subtrees;
    const kept = cache !== undefined && isCacheable(pageWideAll(this.table));
    // The region is kept only where its subtrees' lookups are: that is what puts its elements on the cache's spine.
    const region =
      kept && this.regions
        ? this.regions.region(this.doc, this.turns, cache.spineVersion)
        : regionWithoutOldTurns(this.doc, this.turns);
    const memo = kept
      ? <T>(root: Element, compute: () => T) => cache.get(root, "pageWide", compute)
      : undefined;
    this.pageHits = queryRegionChains(region, pageWideChains(this.table), memo);
    return this.pageHits;
  }

  /**
   * `compute()` (a lookup of `chain` under `root`, `key` naming it), kept from an earlier scan while nothing under
   * `root` changed. The same key must always mean the same lookup.
   */
  under<T>(root: Element, key: string, chain: readonly string[], compute: () => T): T {
    const cache = this.subtrees;
    return cache && isCacheable(chain) ? cache.get(root, key, compute) : compute();
  }

  /** The table's chain `key` under `root` (in priority order when `byPriority`), through `under`. */
  lookup(root: Element, key: keyof SelectorTable, byPriority = false): Element[] {
    const chain = this.table[key];
    return this.under(root, key, chain, () =>
      byPriority ? queryByPriority(root, chain) : queryAll(root, chain),
    );
  }

  /** `labelOf`, read once per element in a scan: the newest turn's buttons are looked at by several checks. */
  label(el: Element): string {
    let label = this.labels.get(el);
    if (label === undefined) {
      label = labelOf(el);
      this.labels.set(el, label);
    }
    return label;
  }

  /** The buttons under `root`, queried once per scan. */
  buttons(root: Element): readonly Element[] {
    let found = this.buttonLists.get(root);
    if (!found) {
      found = [...root.querySelectorAll("button")];
      this.buttonLists.set(root, found);
    }
    return found;
  }

  /** The visibility rule (dom.ts, above `hiddenByMarkup`), with shared ancestors' markup checked once per scan. */
  visible(el: Element): boolean {
    let v = this.cache.get(el);
    if (v === undefined) {
      v = el.isConnected && !this.markupHidden(el) && renderedByStyle(el, this.win);
      this.cache.set(el, v);
    }
    return v;
  }

  /** Whether the element or an ancestor is hidden by markup (`hiddenByMarkup`), memoized per element. */
  private markupHidden(el: Element): boolean {
    let hidden = this.markup.get(el);
    if (hidden === undefined) {
      const parent = el.parentElement;
      hidden = this.selfHidden(el) || (parent !== null && this.markupHidden(parent));
      this.markup.set(el, hidden);
    }
    return hidden;
  }

  visibleOf(els: Iterable<Element>): Element[] {
    return [...els].filter((el) => this.visible(el));
  }

  /** The first element that passes `test` (cheap, checked first) and is visible. */
  firstVisible(els: Iterable<Element>, test: (el: Element) => boolean = () => true): Element | undefined {
    for (const el of els) if (test(el) && this.visible(el)) return el;
    return undefined;
  }

  inHidden(el: Element): boolean {
    for (let cur: Element | null = el; cur; cur = cur.parentElement) if (this.isHidden(cur)) return true;
    return false;
  }
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

function roleOf(el: Element, table: SelectorTable): Role {
  const direct = el.getAttribute("data-turn") ?? el.getAttribute("data-message-author-role");
  if (direct === "user" || direct === "assistant") return direct;
  const units = queryAll(el, table.roleUnit);
  if (matchesAny(el, table.roleUnit)) units.unshift(el);
  for (const unit of units.reverse()) {
    // Unit keys read "<turn>:<i>:<role>" (data-content-search-unit-key / data-chatgpt-search-unit-key).
    for (const attr of unit.getAttributeNames()) {
      if (!attr.endsWith("unit-key")) continue;
      const role = unit.getAttribute(attr)?.split(":").pop();
      if (role === "user" || role === "assistant") return role;
    }
  }
  const authored = el.querySelectorAll("[data-message-author-role]");
  const last = authored[authored.length - 1]?.getAttribute("data-message-author-role");
  if (last === "user" || last === "assistant") return last;
  if (
    el.matches("[data-chatgpt-selection-message-id]") ||
    el.querySelector("[data-chatgpt-selection-message-id]")
  ) {
    return "assistant";
  }
  if (el.matches("[data-user-message-bubble]") || el.querySelector("[data-user-message-bubble]"))
    return "user";
  const heading = el.querySelector("[data-conversation-role]")?.getAttribute("data-conversation-role");
  if (heading === "user" || heading === "assistant") return heading;
  return "unknown";
}

/** `tracker`: the adapter's incrementally kept turn list (without one, the document is queried). */
export function scanTurns(doc: Document, table: SelectorTable, tracker?: TurnTracker): TurnScan {
  let turns = tracker ? tracker.turns(doc) : innermost(queryAll(doc, table.turn));
  if (turns.length === 0) turns = innermost(queryAll(doc, table.message));
  const newest = turns[turns.length - 1] ?? null;
  const newestRole = newest ? roleOf(newest, table) : null;
  return {
    turns,
    newestMessages: newest ? queryAll(newest, table.message) : [],
    newest,
    newestRole,
    newestAssistant: newestRole === "assistant" ? newest : null,
  };
}

/**
 * Whether a user turn (or user message node) contains `needle`: the marker search and submission proof. It reads the
 * text of the whole conversation (submit searches before every click), so each text is read once: a message inside a
 * turn can only hold the needle if the turn does, so messages are read only inside turns that hold it and outside
 * every turn. Newest first: a marker that landed is near the end.
 */
export function userTurnContains(doc: Document, table: SelectorTable, needle: string): boolean {
  if (needle === "") return false;
  // Message nodes are searched too: a container holding both roles reads as its last message's role.
  const holds = (node: Element) => userNodeHolds(node, table, needle);
  const turns = queryAll(doc, table.turn);
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (!(turn.textContent ?? "").includes(needle)) continue;
    if (roleOf(turn, table) === "user" || queryAll(turn, table.message).some(holds)) return true;
  }
  const inTurn = new Set<Node>(turns);
  const outside = (el: Element) => {
    for (let cur = el.parentElement; cur; cur = cur.parentElement) if (inTurn.has(cur)) return false;
    return true;
  };
  return queryAll(doc, table.message).some((m) => !inTurn.has(m) && outside(m) && holds(m));
}

/** A turn or message node whose text holds `needle` and whose role is user (an assistant quoting it is no proof). */
function userNodeHolds(node: Element, table: SelectorTable, needle: string): boolean {
  // Text first (cheap), role only for the few nodes that contain the marker.
  return (node.textContent ?? "").includes(needle) && roleOf(node, table) === "user";
}

/** How many of the newest turns the proof after a click searches (see `recentUserTurnContains`). */
const RECENT_TURNS = 4;

/**
 * `userTurnContains` over the newest few turns and their message nodes: the proof polled after our click. Our turn
 * lands as one of the newest; one further back was there before the click, where the whole page was searched.
 */
export function recentUserTurnContains(turns: TurnScan, table: SelectorTable, needle: string): boolean {
  if (needle === "") return false;
  const nodes = turns.turns.slice(-RECENT_TURNS).flatMap((t) => [t, ...queryAll(t, table.message)]);
  return nodes.some((node) => userNodeHolds(node, table, needle));
}

/**
 * Our submission (the turn carrying `needle`) is already answered: a later turn exists and the newest is an
 * assistant turn. A container holding both roles never counts (its index is the newest), which is the safe side.
 */
export function answerFollows(turns: TurnScan, needle: string): boolean {
  if (needle === "" || turns.newestRole !== "assistant") return false;
  // Any turn before the newest carrying it (newest first: ours is among the last few).
  for (let i = turns.turns.length - 2; i >= 0; i--) {
    if ((turns.turns[i]!.textContent ?? "").includes(needle)) return true;
  }
  return false;
}

/** User turns and user message nodes (selfTest). */
export function userNodes(doc: Document, table: SelectorTable): Element[] {
  const { turns } = scanTurns(doc, table);
  const users = turns.filter((t) => roleOf(t, table) === "user");
  for (const m of queryAll(doc, table.message)) {
    if (roleOf(m, table) === "user" && !users.some((u) => u.contains(m))) users.push(m);
  }
  return users;
}

/** The last rendered answer body of an assistant turn (continuation block, error-in-markdown). */
export function answerRoot(turn: Element, table: SelectorTable): Element | null {
  const roots = queryAll(turn, table.assistantMarkdown);
  return roots[roots.length - 1] ?? null;
}

/**
 * The current region (research §5 scoping): the newest turn and everything after it in the document. An
 * error anywhere else sits before a newer turn, so it is stale. Without turns, everything is current.
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

/** From an error card's Retry, the largest ancestor still short enough to be the card (≤8 levels, S3). */
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
interface RegionErrors {
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
function turnError(
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

/** The turn and message chains as one (a notice inside either is the turn's own; one walk up instead of two). */
const turnOrMessage = weakMemo((table: SelectorTable): string[] => [...table.turn, ...table.message]);

const NOTICE_HINT = /limit|too many|too quickly|wait a few minutes|slow down|요청/i;

/** `skipLimits`: look past rate-limit and usage-cap notices (what the page shows besides them). */
function noticeError(
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
    }
  }
  return undefined;
}

/** Two visible buttons, approve-like and deny-like, close together: the card asks a person to decide. */
function approvalIn(root: Element, scope: ScanScope): boolean {
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

/** The elements a thinking label can be: the tags of `thinkingLabel`'s walk. */
const LABEL_TAGS = new Set(["SPAN", "DIV", "BUTTON", "P"]);

/** An active thinking label ("Thinking", "Pro thinking"…) in the turn, outside the answer text. */
function thinkingLabel(turn: Element, scope: ScanScope): boolean {
  // The answer text is never the label: the walk steps over each answer's subtree without entering it, so its cost
  // follows the turn's controls, not the length of the answer (a long answer holds thousands of elements).
  const answers = new Set(queryAll(turn, scope.table.assistantMarkdown));
  let checked = 0;
  let el = turn.firstElementChild;
  while (el) {
    const inside = answers.has(el);
    if (!inside && LABEL_TAGS.has(el.tagName)) {
      if (++checked > 400) return false;
      const text = el.textContent ?? "";
      if (text.length <= 60 && LABELS.thinking.test(collapse(text))) {
        if (!closestAny(el, scope.table.assistantMarkdown) && !scope.inHidden(el)) return true;
      }
    }
    // Document order: into the children (not an answer's), else the next sibling of the element or an ancestor.
    let next = inside ? null : el.firstElementChild;
    for (let cur: Element | null = el; !next && cur && cur !== turn; cur = cur.parentElement) {
      next = cur.nextElementSibling;
    }
    el = next;
  }
  return false;
}

function layoutOf(doc: Document, composer: ComposerScan): Layout {
  const form = composer.form;
  if (form?.matches("form[data-chatgpt-composer]")) return "composer-2026";
  if (form?.matches('form[data-type="unified-composer"]') || composer.editor?.id === "prompt-textarea") {
    return "classic";
  }
  if (doc.querySelector("form[data-chatgpt-composer], [data-turn-key]")) return "composer-2026";
  if (doc.querySelector('#prompt-textarea, [data-testid^="conversation-turn-"]')) return "classic";
  return "unknown";
}

/**
 * What a scan found outside the newest turn: the composer, the layout, dialogs, the page-level error (login page or
 * control, notices, banners) and the error cards after the newest turn. The next scan reuses them instead of looking
 * again when the turn tracker saw only changes inside this same newest (assistant) turn since (see `scanPage`).
 */
export interface OutsideParts {
  /** The newest turn they were found around (an assistant turn when reusable). */
  readonly newest: Element | null;
  readonly composer: ComposerScan;
  readonly layout: Layout;
  /** A visible "Answer now" in the composer form. */
  readonly formAnswerNow: boolean;
  /** The live status regions' announcement (`PageScan.liveStatus`). */
  readonly liveStatus: LiveStatus;
  /** `PageScan.draftSendable`. */
  readonly draftSendable: boolean;
  readonly dialogs: readonly Element[];
  readonly pageError: ErrorFinding | undefined;
  /** When `pageError` is a limit notice: another notice shown besides it (`PageScan.behindLimit`). */
  readonly pageBehindLimit: ErrorFinding | undefined;
  /** Whether a dialog holds a tool approval (looked at once, when first needed). */
  dialogApproval: boolean | undefined;
  /** The error cards after the newest turn (found once, when first needed). */
  after: RegionErrors | undefined;
}

/** What the adapter keeps from scan to scan, each fed by its mutation records (all optional: tests scan afresh). */
export interface ScanKept {
  tracker?: TurnTracker;
  /** Outside parts of an earlier scan, young enough and on the same URL. */
  reuse?: OutsideParts;
  /** Lookups per subtree, kept current by the records. */
  subtrees?: SubtreeCache;
  /** Each element's own hidden markup, kept current by the records. */
  markup?: MarkupMemo;
  /** The page region around the thread, kept while the subtree cache's spine is unchanged (needs `subtrees`). */
  regions?: RegionMemo;
  /** The location's href, when the caller has just read it (each read of it builds a new string). */
  href?: string;
}

export interface ScanResult {
  scan: PageScan;
  /** What the next scan may reuse; undefined when this page's state outside the newest turn cannot be reused. */
  outside: OutsideParts | undefined;
  /** Whether this scan reused `OutsideParts` of an earlier one. */
  reused: boolean;
}

/** A visible "Answer now" (Pro thinking) under `root`. */
function answerNowIn(root: Element, scope: ScanScope): boolean {
  const buttons = scope.buttons(root).filter((b) => LABELS.answerNow.test(scope.label(b)));
  return buttons.length > 0 && scope.visibleOf(buttons).length > 0;
}

/** The node and everything under it, by identity, up to `max` nodes (a live region holds a few). */
function nodeIds(memory: ScanMemory, root: Node, max = 64): string {
  const ids: number[] = [];
  const walk = (node: Node): void => {
    if (ids.length >= max) return;
    ids.push(memory.idOf(node));
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child);
  };
  walk(root);
  return ids.join(".");
}

/**
 * The live status regions outside the turns that say "Response complete" (`LiveStatus`). Each region's answer is kept
 * while no record touched it, so a scan reads the words of a changed region only.
 */
function liveStatusOf(scope: ScanScope, memory: ScanMemory, regions: readonly Element[]): LiveStatus {
  const { table } = scope;
  let sig = "";
  for (const el of regions) {
    const said = scope.under(el, "liveStatus", table.liveStatus, () =>
      LABELS.responseComplete.test(collapse(el.textContent ?? "")) ? nodeIds(memory, el) : "",
    );
    if (said === "" || closestAny(el, turnOrMessage(table))) continue;
    sig = sig === "" ? said : `${sig} ${said}`;
  }
  return { sig, complete: sig !== "" };
}

/** Send enabled with no Stop while the composer holds text: the page takes a prompt now, so no turn runs. */
function draftSendable(composer: ComposerScan, table: SelectorTable): boolean {
  const editor = composer.editor;
  if (composer.stopVisible || !editor || !sendReady(composer, table)) return false;
  const text = isTextArea(editor) ? editor.value : (editor.textContent ?? "");
  return text.trim() !== "";
}

/** The full lookups outside the newest turn; `reusable` says whether a later scan may rely on them. */
function scanOutside(
  win: PageWindow,
  scope: ScanScope,
  turns: TurnScan,
  memory: ScanMemory,
): { parts: Omit<OutsideParts, "newest">; reusable: boolean } {
  const composer = scanComposer(scope);
  const page = scope.pageWide();
  const dialogs = scope.visibleOf(page.dialog);
  let pageError: ErrorFinding | undefined;
  if (isLoginPath(win.location.pathname)) {
    pageError = { code: "NOT_SIGNED_IN", detail: "the login page is shown" };
  } else if (scope.firstVisible(page.loginControl)) {
    pageError = { code: "NOT_SIGNED_IN", detail: "a Log in control is shown" };
  }
  pageError ??= noticeError(scope, turns, composer.editor);
  const pageBehindLimit = pageError?.limit ? noticeError(scope, turns, composer.editor, true) : undefined;
  // Reusable only around an assistant turn that holds nothing a page-wide lookup found (a Log in link or an alert
  // quoted in the answer), with a composer form (else the layout is guessed from the whole document).
  const newest = turns.newestAssistant;
  const reusable =
    newest !== null &&
    composer.form !== null &&
    !Object.entries(page).some(
      ([key, hits]: [string, Element[]]) => key !== "liveStatus" && hits.some((el) => newest.contains(el)),
    );
  return {
    parts: {
      composer,
      layout: layoutOf(scope.doc, composer),
      formAnswerNow: composer.form !== null && answerNowIn(composer.form, scope),
      liveStatus: liveStatusOf(scope, memory, page.liveStatus),
      draftSendable: draftSendable(composer, scope.table),
      dialogs,
      pageError,
      pageBehindLimit,
      dialogApproval: undefined,
      after: undefined,
    },
    reusable,
  };
}

/**
 * One snapshot of the page. `reuse`: the outside parts of an earlier scan (the caller passes them only while they are
 * young and the URL is the same); they are taken instead of looking again when the tracker's records since were all
 * inside the same newest assistant turn (streaming text) and that turn holds nothing page-wide lookups look for. A
 * change outside the turn (Stop in the form, a dialog, a notice, an error card after the turn, a new turn) makes
 * records there, so the next scan is a full one. What can change outside without records (style through `:has()` or a
 * media query) waits for the next full scan, at most the caller's reuse age: the same bound the adapter already has
 * for changes that make no records at all (its poll).
 */
export function scanPage(
  win: PageWindow,
  table: SelectorTable,
  memory: ScanMemory,
  kept: ScanKept = {},
): ScanResult {
  const { tracker, reuse, subtrees, markup, regions, href } = kept;
  const doc = win.document;
  const turns = scanTurns(doc, table, tracker);
  const scope = new ScanScope(doc, win, table, turns.turns, { subtrees, markup, regions });
  const url = memory.urlOf(win.location, href);
  const newest = turns.newest;
  const newestAssistant = turns.newestAssistant;

  let parts: OutsideParts;
  let keep: boolean;
  const reused =
    reuse !== undefined &&
    tracker?.insideNewest === true &&
    newestAssistant !== null &&
    reuse.newest === newestAssistant &&
    !holdsPageWide(newestAssistant, table);
  if (reused) {
    parts = reuse;
    keep = true;
  } else {
    const fresh = scanOutside(win, scope, turns, memory);
    parts = { newest: newestAssistant, ...fresh.parts };
    keep = fresh.reusable;
  }

  const composer = parts.composer;
  let busy: string | undefined = composer.stopVisible ? "stop button" : undefined;
  let thinking = false;
  let animated = false;
  let actionBar = false;
  if (parts.formAnswerNow || (newest !== null && answerNowIn(newest, scope))) {
    thinking = true;
    busy ??= '"Answer now" (Pro thinking)';
  }
  if (newestAssistant) {
    if (queryAll(newestAssistant, table.streaming).some((el) => !scope.inHidden(el)))
      busy ??= "streaming marker";
    animated = queryAll(newestAssistant, table.markdownAnimated).length > 0;
    if (thinkingLabel(newestAssistant, scope)) {
      thinking = true;
      busy ??= "thinking label";
    }
    actionBar = queryAll(newestAssistant, table.actionBar).length > 0;
  }

  const contentSig = newest
    ? `${turns.turns.length}:${memory.idOf(newest)}:${(newest.textContent ?? "").length}:${animated ? 1 : 0}`
    : `${turns.turns.length}`;

  // Below the page-level errors: a tool approval (in the newest turn or a dialog), then the current region's errors.
  const belowPage = (): ErrorFinding | undefined => {
    const approval = {
      code: "AWAITING_APPROVAL",
      detail: "a tool confirmation card waits for a person",
    } as const;
    if (newest && approvalIn(newest, scope)) return approval;
    parts.dialogApproval ??= parts.dialogs.some((root) => approvalIn(root, scope));
    if (parts.dialogApproval) return approval;
    const found = turnError(scope, turns, parts.after);
    if (found.after?.reusable) parts.after = found.after;
    else if (found.after) keep = false;
    return found.error;
  };
  let error = parts.pageError;
  let behindLimit: ErrorFinding | undefined;
  if (!error) error = belowPage();
  else if (error.limit) behindLimit = parts.pageBehindLimit ?? belowPage();

  const scan: PageScan = {
    url,
    layout: parts.layout,
    composer,
    turns,
    ...(busy !== undefined ? { busy } : {}),
    animated,
    thinking,
    actionBar,
    liveStatus: parts.liveStatus,
    draftSendable: parts.draftSendable,
    contentSig,
    ...(error ? { error } : {}),
    ...(behindLimit ? { behindLimit } : {}),
    dialogOpen: parts.dialogs.length > 0,
  };
  return { scan, outside: keep ? parts : undefined, reused };
}

/** Whether a send control can be clicked now (visible, enabled, send-like, in the form). */
export function sendReady(scan: ComposerScan, table: SelectorTable): Element | null {
  const send = scan.send;
  if (!send || isDisabled(send) || buttonKind(send, table) !== "send") return null;
  return send;
}
