// The worker→tab binding records: owns the `bindings` table (docs/extension.md, "Bindings"). A change is stored, the
// exemption from automatic discarding follows the bound tab, and the host is told, or the record stays unreported
// for the next `hello`. Every other module reads and writes bindings through this class.
import type { BindingRecord, BindingState, OrchestratorDb } from "./db.ts";
import type { DiscardExemption } from "./discard-exemption.ts";
import type { Timers } from "./native-connection.ts";
import type { Outbox } from "./outbox.ts";

export type BindingDraft = Omit<BindingRecord, "reported" | "updatedAt" | "state"> & { state: BindingState };

export interface BindingStoreDeps {
  readonly db: OrchestratorDb;
  readonly timers: Timers;
  readonly outbox: Outbox;
  readonly exemption: DiscardExemption;
  /** A tab became a worker's bound tab or stopped being one: its content script starts or stops watching it. */
  readonly tabChanged?: (tabId: number) => void;
}

/** The tabs whose being bound differs between two records of one worker (each tab once). */
function changedTabs(before: BindingRecord | undefined, after: BindingRecord | undefined): number[] {
  const bound = (r: BindingRecord | undefined) => (r?.state === "bound" ? r.tabId : undefined);
  const a = bound(before);
  const b = bound(after);
  if (a === b) return [];
  return [a, b].filter((t): t is number => t !== undefined);
}

export class BindingStore {
  constructor(private readonly deps: BindingStoreDeps) {}

  get(workerId: string): Promise<BindingRecord | undefined> {
    return this.deps.db.bindings.get(workerId);
  }

  all(): Promise<BindingRecord[]> {
    return this.deps.db.bindings.toArray();
  }

  /** The bindings whose tab shows their worker's conversation now. */
  async bound(): Promise<BindingRecord[]> {
    return (await this.all()).filter((b) => b.state === "bound");
  }

  /** The binding whose bound tab is `tabId`, if any. */
  async boundTo(tabId: number): Promise<BindingRecord | undefined> {
    const all = await this.deps.db.bindings.where("tabId").equals(tabId).toArray();
    return all.find((b) => b.state === "bound");
  }

  /**
   * Stores a binding change and tells the host (or leaves it for the next `hello`). The bound tab is kept out of
   * automatic discarding; a tab that stops being bound is given back to the browser. `inStep`: the caller already
   * runs in an outbox step (reports keep their order with the other reports).
   */
  set(
    workerId: string,
    next: BindingDraft,
    how: { report?: boolean; inStep?: boolean } = {},
  ): Promise<BindingRecord> {
    const run = async () => {
      const { db } = this.deps;
      const previous = await db.bindings.get(workerId);
      const record: BindingRecord = { ...next, workerId, reported: false, updatedAt: this.deps.timers.now() };
      await db.bindings.put(record);
      await this.deps.exemption.follows(previous, record);
      this.tell(previous, record);
      if (how.report === false) return record;
      const sent = this.deps.outbox.send({
        kind: "binding",
        workerId,
        binding: record.state,
        ...(record.url !== undefined ? { url: record.url } : {}),
      });
      if (sent) await markTold(db, record);
      return record;
    };
    return how.inStep ? run() : this.deps.outbox.step(run);
  }

  /**
   * The worker's binding goes back to `previous` (or away) if it still names `tabId`: a create that never reached
   * submission. Stored as it was, without a report or a change of exemption.
   */
  async restore(workerId: string, tabId: number, previous: BindingRecord | undefined): Promise<void> {
    const { db } = this.deps;
    const current = await db.bindings.get(workerId);
    if (current?.tabId !== tabId) return;
    if (previous) await db.bindings.put(previous);
    else await db.bindings.delete(workerId);
    this.tell(current, previous);
  }

  /** Drops the worker's binding without telling the host, and gives its tab back to the browser's care. */
  async forget(workerId: string): Promise<void> {
    const { db } = this.deps;
    const previous = await db.bindings.get(workerId);
    await db.bindings.delete(workerId);
    if (previous?.state === "bound") await this.deps.exemption.exempt(previous.tabId, false);
    this.tell(previous, undefined);
  }

  private tell(before: BindingRecord | undefined, after: BindingRecord | undefined): void {
    for (const tabId of changedTabs(before, after)) this.deps.tabChanged?.(tabId);
  }

  /** The host answered a `hello` that carried `sent`: each record not changed since is known to the host. */
  toldInHello(sent: readonly BindingRecord[]): Promise<void> {
    const { db } = this.deps;
    return db.transaction("rw", db.bindings, async () => {
      for (const record of sent) {
        const current = await db.bindings.get(record.workerId);
        if (current?.updatedAt !== record.updatedAt || current.state !== record.state) continue;
        await markTold(db, current);
      }
    });
  }
}

/** The host knows `record`: a lost binding is forgotten, the others are kept (their conversation may come back). */
async function markTold(db: OrchestratorDb, record: BindingRecord): Promise<void> {
  if (record.state === "unavailable") await db.bindings.delete(record.workerId);
  else await db.bindings.put({ ...record, reported: true });
}
