// The page as the adapter reads it: one MutationObserver on the document feeds the record readers (turn tracker,
// subtree cache, hidden-markup memo), and a scan is reused while nothing in the document or the URL changed.
import { scanPage, type OutsideParts } from "./page-scan.ts";
import { RegionMemo } from "./page-region.ts";
import { MarkupMemo } from "./markup-memo.ts";
import { ScanMemory } from "./scan-memory.ts";
import type { PageScan } from "./scan-types.ts";
import type { SelectorTable } from "./selectors.ts";
import { SubtreeCache } from "./subtree-cache.ts";
import { TurnTracker } from "./turn-tracker.ts";
import type { PageWindow } from "./types.ts";

export interface ObservedScan {
  /** A scan of the page now: the last one while nothing changed since, for less than `pollMs`. */
  scan(): PageScan;
  /** When the last mutation record was delivered: the page changed then (the state machine's `changedAt`). */
  readonly lastMutationAt: number | undefined;
  /** Disconnects the observer and forgets what the records kept; the next scan attaches it again. */
  detach(): void;
}

/**
 * The observer is attached by the first scan: every mutation marks the last scan stale and feeds the record readers,
 * then `onBatch` gets the records (the adapter schedules a tick from them). A scan is reused while nothing in the
 * document or the URL changed (a hidden tab polls cheaply); any mutation, even one whose record is still queued,
 * forces a fresh one, and so does age (`pollMs`). The records also keep the turn list current (turn-tracker.ts); the
 * tracker starts over whenever the observer was not attached. When they all fell inside the newest answer
 * (streaming), the fresh scan reuses what the last full scan found outside it (page-scan.ts `OutsideParts`), for at
 * most `pollMs` and on the same URL. Otherwise lookups under subtrees without records since they were made are kept
 * (subtree-cache.ts).
 */
export function observePage(
  win: PageWindow,
  table: SelectorTable,
  pollMs: number,
  now: () => number,
  onBatch: (records: readonly MutationRecord[]) => void,
): ObservedScan {
  const memory = new ScanMemory();
  // The record readers: fed by the observer that marks the last scan stale, so a scan reads only what changed.
  const tracker = new TurnTracker(table.turn);
  const subtrees = new SubtreeCache();
  const markup = new MarkupMemo();
  const regions = new RegionMemo();

  /** When the last mutation record was delivered: the page changed then (the state machine's `changedAt`). */
  let lastMutationAt: number | undefined;
  let observer: MutationObserver | undefined;
  let lastScan: { scan: PageScan; at: number; href: string } | undefined;
  let outside: { parts: OutsideParts; at: number; href: string } | undefined;
  /** The records' readers, fed as records are delivered; all start over whenever records may have been missed. */
  const noteRecords = (records: readonly MutationRecord[]): void => {
    tracker.note(records);
    subtrees.note(records);
    markup.note(records);
  };
  const forgetRecords = (): void => {
    tracker.reset();
    subtrees.clear();
    markup.clear();
  };
  const scanNow = (): PageScan => {
    if (!observer) {
      forgetRecords();
      observer = new win.MutationObserver((records) => {
        lastScan = undefined;
        lastMutationAt = now();
        noteRecords(records);
        onBatch(records);
      });
      observer.observe(win.document, {
        childList: true,
        subtree: true,
        characterData: true,
        attributes: true,
      });
    }
    const queued = observer.takeRecords();
    if (queued.length > 0) {
      lastScan = undefined;
      lastMutationAt = now();
      noteRecords(queued);
    }
    const at = now();
    const href = win.location.href;
    if (lastScan && lastScan.href === href && at - lastScan.at < pollMs) return lastScan.scan;
    const reuse = outside && outside.href === href && at - outside.at < pollMs ? outside.parts : undefined;
    const kept = { tracker, reuse, subtrees, markup, regions, href };
    const { scan, outside: parts, reused } = scanPage(win, table, memory, kept);
    if (!parts) outside = undefined;
    else if (!reused) outside = { parts, at, href };
    lastScan = { scan, at, href };
    return scan;
  };

  return {
    scan: scanNow,
    get lastMutationAt() {
      return lastMutationAt;
    },
    detach() {
      lastMutationAt = undefined;
      observer?.disconnect();
      observer = undefined;
      forgetRecords();
      lastScan = undefined;
      outside = undefined;
    },
  };
}
