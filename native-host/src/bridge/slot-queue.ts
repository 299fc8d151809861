// The host's queue of commands waiting for a tab slot on the executor (browser profile) that will run them, and the
// count of slots in use (docs/host.md, "Tab slots"). Pure bookkeeping: the executor hub routes, sends and decides when.
import type { CommandType } from "../core/effects.ts";
import { type DomainState, submittedUnseen } from "../core/model.ts";

/** Tabs one executor may have generating at once when it has not said otherwise (the extension's default too). */
export const DEFAULT_MAX_GENERATING = 3;

/** A steer goes into a turn that is already generating: it takes no slot of its own. */
export function needsSlot(type: CommandType): boolean {
  return type !== "conversation.steer";
}

interface SlotCommand {
  readonly commandId: string;
  readonly workerId: string;
  readonly type: CommandType;
}

export interface Queued<C> {
  readonly command: C;
  /** The executor that will run it; undefined while no executor that may run it is connected (held). */
  readonly executorId: string | undefined;
  /** When the host first held it back. */
  readonly since: number;
}

/** One FIFO per executor, kept as one list in arrival order (an executor's queue is its subsequence). */
export class SlotQueue<C extends SlotCommand> {
  private entries: Queued<C>[] = [];

  get size(): number {
    return this.entries.length;
  }

  has(commandId: string): boolean {
    return this.entries.some((e) => e.command.commandId === commandId);
  }

  /** Appends a command; one already queued keeps its place. */
  add(command: C, executorId: string | undefined, since: number): void {
    if (!this.has(command.commandId)) this.entries.push({ command, executorId, since });
  }

  remove(commandId: string): Queued<C> | undefined {
    const i = this.entries.findIndex((e) => e.command.commandId === commandId);
    if (i < 0) return undefined;
    return this.entries.splice(i, 1)[0];
  }

  all(): readonly Queued<C>[] {
    return this.entries;
  }

  /** Decides each entry's executor again (an executor left or connected); entries keep their order. */
  route(to: (command: C, current: string | undefined) => string | undefined): void {
    this.entries = this.entries.map((e) => {
      const executorId = to(e.command, e.executorId);
      return executorId === e.executorId ? e : { ...e, executorId };
    });
  }

  /** Commands waiting for a slot on `executorId` (they count as its load when a new conversation is placed). */
  waitingOn(executorId: string): number {
    return this.entries.filter((e) => e.executorId === executorId).length;
  }

  /** The worker's 1-based place among the commands waiting for a slot on its executor; undefined if not waiting. */
  position(workerId: string): { position: number; since: number } | undefined {
    const entry = this.entries.find((e) => e.command.workerId === workerId);
    if (entry?.executorId === undefined || !needsSlot(entry.command.type)) return undefined;
    const ahead = this.entries.filter((e) => e.executorId === entry.executorId && needsSlot(e.command.type));
    return { position: ahead.indexOf(entry) + 1, since: entry.since };
  }

  /**
   * Takes out what may go now, oldest first: per executor as many slot-taking commands as `free(executorId)` allows
   * (the others keep their places, so a later one never overtakes an earlier one), and every routed steer.
   */
  take(free: (executorId: string) => number): Queued<C>[] {
    const budget = new Map<string, number>();
    const taken: Queued<C>[] = [];
    const kept: Queued<C>[] = [];
    for (const e of this.entries) {
      const executorId = e.executorId;
      if (executorId === undefined) {
        kept.push(e);
        continue;
      }
      if (!needsSlot(e.command.type)) {
        taken.push(e);
        continue;
      }
      const left = budget.get(executorId) ?? free(executorId);
      if (left > 0) taken.push(e);
      else kept.push(e);
      budget.set(executorId, left > 0 ? left - 1 : 0);
    }
    this.entries = kept;
    return taken;
  }

  /** Who waits where, in order: changes exactly when a position shown to people changes. */
  signature(): string {
    return this.entries.map((e) => `${e.command.workerId}@${e.executorId ?? ""}`).join(",");
  }
}

/** A command the host sent to an executor and has no result for yet. */
export interface Unanswered {
  readonly workerId: string;
  readonly executorId: string;
  readonly type: CommandType;
}

/**
 * Slots in use on `executorId`: the active workers it holds (their conversation's recorded executor) that were last
 * seen generating or whose submitted turn the page has not reported on yet (it is starting), plus the slot-taking
 * commands sent to it and not answered. A worker counts once: it has one tab.
 */
export function slotsInUse(state: DomainState, executorId: string, unanswered: Iterable<Unanswered>): number {
  const holders = new Set<string>();
  for (const w of Object.values(state.workers)) {
    if (w.conversation.executorId !== executorId || w.status !== "active") continue;
    if (w.conversation.state === "generating" || submittedUnseen(w)) holders.add(w.id);
  }
  for (const u of unanswered) {
    if (u.executorId === executorId && needsSlot(u.type)) holders.add(u.workerId);
  }
  return holders.size;
}
