// The conversation's turns: the list (kept by the turn tracker, or queried), each turn's role in both layouts, the
// newest answer's body, and the marker search that proves a submission landed (user turns only).
import { innermost, matchesAny, queryAll } from "./dom.ts";
import type { Role, TurnScan } from "./scan-types.ts";
import type { SelectorTable } from "./selectors.ts";
import type { TurnTracker } from "./turn-tracker.ts";

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
 * The conversation's text length: every turn's text, summed (screen-reader labels included; a size, not a count of
 * what a person reads exactly). Read once per turn end for the rollover's size budget, never on every scan.
 */
export function conversationTextLength(turns: TurnScan): number {
  let chars = 0;
  for (const turn of turns.turns) chars += (turn.textContent ?? "").length;
  return chars;
}
