// The newest events in memory, exactly as the live events table holds them: agents following events read from
// close to the head, and answering them here spares a sql.js query and a JSON.parse per event on every call.
import { freeze } from "immer";
import type { DomainEvent } from "../core/events.ts";

/** An event as the live table returns it, with its durable cursor. */
export interface StoredEvent extends DomainEvent {
  /** Durable, gap-free cursor for events_wait / events_list. */
  readonly seq: number;
}

export interface EventFilter {
  readonly runId?: string;
  readonly workerId?: string;
}

/** How many of the newest events are kept (about 1 KB each). */
export const RECENT_EVENTS = 2048;

/**
 * A window of the newest events with contiguous seqs. It answers a read only when every event after the cursor is
 * in it; otherwise (an old cursor, or just after archiving emptied it) the caller reads the table.
 */
export class RecentEvents {
  private events: StoredEvent[] = [];
  /** The seq the first kept event has, or would have when none is kept. */
  private first: number;

  constructor(
    lastSeq: number,
    private readonly capacity = RECENT_EVENTS,
  ) {
    this.first = lastSeq + 1;
  }

  /**
   * Records events just written with seqs `firstSeq`, `firstSeq + 1`, …; `dataJson` is each event's data as
   * stored, parsed again here so a kept event equals the row read back (no shared or undefined members).
   */
  add(events: readonly DomainEvent[], dataJson: readonly string[], firstSeq: number): void {
    if (events.length === 0) return;
    if (firstSeq !== this.first + this.events.length) {
      // Not contiguous with what is kept: start over from these (never answer across a gap).
      this.events = [];
      this.first = firstSeq;
    }
    events.forEach((e, i) => {
      this.events.push(
        freeze(
          {
            seq: firstSeq + i,
            type: e.type,
            at: e.at,
            runId: e.runId,
            ...(e.workerId ? { workerId: e.workerId } : {}),
            data: JSON.parse(dataJson[i]!) as Record<string, unknown>,
          },
          true,
        ),
      );
    });
    const excess = this.events.length - this.capacity;
    if (excess > 0) {
      this.events.splice(0, excess);
      this.first += excess;
    }
  }

  /**
   * The table dropped these events' progress summaries (only the newest 50 per worker keep theirs: docs/privacy.md);
   * the kept copies drop them too, so a read from memory never returns text the table no longer holds.
   */
  dropSummaries(seqs: readonly number[]): void {
    for (const seq of seqs) {
      const i = seq - this.first;
      const e = this.events[i];
      if (!e || e.seq !== seq || !("summary" in e.data)) continue;
      const { summary: _dropped, ...data } = e.data;
      this.events[i] = freeze({ ...e, data }, true);
    }
  }

  /** Forgets everything kept (events left the live table); later events start a new window. */
  clear(lastSeq: number): void {
    this.events = [];
    this.first = lastSeq + 1;
  }

  /**
   * Events after `cursor` matching `filter`, oldest first, at most `limit` (a negative limit means none, as SQLite's
   * LIMIT); undefined when some event after the cursor is not kept.
   */
  after(cursor: number, limit: number, filter: EventFilter): StoredEvent[] | undefined {
    if (!Number.isFinite(cursor) || cursor < this.first - 1) return undefined;
    const out: StoredEvent[] = [];
    if (limit === 0) return out;
    // The first kept event with seq > cursor (a cursor need not be a whole number).
    for (let i = Math.max(0, Math.floor(cursor - this.first) + 1); i < this.events.length; i++) {
      const e = this.events[i]!;
      if (filter.runId && e.runId !== filter.runId) continue;
      if (filter.workerId && e.workerId !== filter.workerId) continue;
      out.push(e);
      if (out.length === limit) break;
    }
    return out;
  }
}
