// What tells a running turn from a finished one (docs/adapter.md, "States"): busy signals (a thinking label, "Answer
// now") and finished-turn evidence (a "Response complete" live region, a composer that takes a prompt).
import { closestAny, collapse, isTextArea, queryAll } from "./dom.ts";
import { sendReady } from "./composer-scan.ts";
import type { ScanMemory } from "./scan-memory.ts";
import { turnOrMessage, type ScanScope } from "./scan-scope.ts";
import type { ComposerScan, LiveStatus } from "./scan-types.ts";
import { LABELS, type SelectorTable } from "./selectors.ts";

/** The elements a thinking label can be: the tags of `thinkingLabel`'s walk. */
const LABEL_TAGS = new Set(["SPAN", "DIV", "BUTTON", "P"]);

/** An active thinking label ("Thinking", "Pro thinking"…) in the turn, outside the answer text. */
export function thinkingLabel(turn: Element, scope: ScanScope): boolean {
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

/** A visible "Answer now" (Pro thinking) under `root`. */
export function answerNowIn(root: Element, scope: ScanScope): boolean {
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
export function liveStatusOf(scope: ScanScope, memory: ScanMemory, regions: readonly Element[]): LiveStatus {
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
export function draftSendable(composer: ComposerScan, table: SelectorTable): boolean {
  const editor = composer.editor;
  if (composer.stopVisible || !editor || !sendReady(composer, table)) return false;
  const text = isTextArea(editor) ? editor.value : (editor.textContent ?? "");
  return text.trim() !== "";
}
