// The extension's only durable state, in IndexedDB through Dexie (docs/extension.md, "What the extension stores"):
// the command journal, worker→tab bindings, the last observed state per worker, and local preferences/executor
// settings. Never a transcript, never continuation policy: those belong to the host. Each table has one owning
// module in the background (docs/extension.md, "Background modules").
import type { ContinuationStatus } from "../../shared/continuation-block.ts";
import type { BindingState, ConversationState } from "../../shared/executor-states.ts";
import { Dexie, type DexieOptions, type Table } from "dexie";
import {
  advance,
  canAdvance,
  type AdvancePatch,
  type JournalEntry,
  type JournalPhase,
  isTerminal,
} from "./journal.ts";

/**
 * Where the worker's conversation is open (docs/extension.md, "Bindings"): `bound` (in `tabId`), `detached` (no tab
 * shows it; reopened for the next command), `closed` (no tab shows it and reopening is off), `unavailable` (lost).
 */
export type { BindingState };

export interface BindingRecord {
  readonly workerId: string;
  /** The tab showing the conversation while `bound`; the last one that did otherwise. */
  readonly tabId: number;
  readonly state: BindingState;
  /** The conversation URL; absent while a new chat has not been given its id yet. */
  readonly url?: string;
  readonly conversationId?: string;
  /** The host knows this state (sent live, or in a `hello` it answered). */
  readonly reported: boolean;
  readonly updatedAt: number;
}

export interface ObservedRecord {
  readonly workerId: string;
  readonly state: ConversationState;
  /** Per-worker sequence of the report; strictly increasing across restarts. */
  readonly seq: number;
  readonly errorCode?: string;
  readonly url?: string;
  readonly continuationStatus?: ContinuationStatus;
  readonly at: number;
}

export interface PrefRecord {
  readonly key: string;
  readonly value: unknown;
}

export interface DbOptions {
  readonly name?: string;
  /** Injected in tests (fake-indexeddb); the browser's globals otherwise. */
  readonly indexedDB?: DexieOptions["indexedDB"];
  readonly IDBKeyRange?: DexieOptions["IDBKeyRange"];
}

export const DB_NAME = "chatgpt-orchestrator";

export class OrchestratorDb extends Dexie {
  journal!: Table<JournalEntry, string>;
  bindings!: Table<BindingRecord, string>;
  observed!: Table<ObservedRecord, string>;
  prefs!: Table<PrefRecord, string>;

  constructor(options: DbOptions = {}) {
    super(options.name ?? DB_NAME, {
      // Chrome 121+ commits readwrite transactions "relaxed" by default: a journal phase could be reported as
      // stored before it is on disk. Every transaction of this database is strict.
      chromeTransactionDurability: "strict",
      ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
      ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
    });
    this.version(1).stores({
      journal: "commandId, workerId, phase, idempotencyKey, updatedAt",
      bindings: "workerId, tabId",
      observed: "workerId",
      prefs: "key",
    });
  }
}

/** Journal access; every phase change is checked by the state machine inside one transaction. */
export class JournalStore {
  constructor(private readonly db: OrchestratorDb) {}

  get(commandId: string): Promise<JournalEntry | undefined> {
    return this.db.journal.get(commandId);
  }

  byIdempotencyKey(key: string): Promise<JournalEntry[]> {
    return this.db.journal.where("idempotencyKey").equals(key).toArray();
  }

  /** Stores a new entry unless the command id is already journaled; returns the stored one. */
  insert(entry: JournalEntry): Promise<JournalEntry> {
    return this.db.transaction("rw", this.db.journal, async () => {
      const existing = await this.db.journal.get(entry.commandId);
      if (existing) return existing;
      await this.db.journal.add(entry);
      return entry;
    });
  }

  /**
   * Moves the entry to `to` if it is in one of `from` (and the machine allows it); otherwise changes nothing and
   * returns undefined. The check and the write are one transaction, so a cancel and a submission never both win.
   */
  transition(
    commandId: string,
    from: readonly JournalPhase[],
    to: JournalPhase,
    patch: AdvancePatch,
    now: number,
  ): Promise<JournalEntry | undefined> {
    return this.db.transaction("rw", this.db.journal, async () => {
      const entry = await this.db.journal.get(commandId);
      if (!entry || !from.includes(entry.phase) || !canAdvance(entry.phase, to)) return undefined;
      const next = advance(entry, to, patch, now);
      await this.db.journal.put(next);
      return next;
    });
  }

  /** Records that the host was told a failure. */
  markFailureReported(commandId: string, now: number): Promise<void> {
    return this.db.transaction("rw", this.db.journal, async () => {
      const entry = await this.db.journal.get(commandId);
      if (entry?.phase === "failed" && !entry.resultSent)
        await this.db.journal.put({ ...entry, resultSent: true, updatedAt: now });
    });
  }

  all(): Promise<JournalEntry[]> {
    return this.db.journal.orderBy("updatedAt").toArray();
  }

  /** Drops finished entries the host knows about, older than `keepMs`; keeps at most `keepMax` of them. */
  async prune(now: number, keepMs: number, keepMax: number): Promise<number> {
    return this.db.transaction("rw", this.db.journal, async () => {
      const finished = (await this.db.journal.orderBy("updatedAt").toArray()).filter(
        (e) => isTerminal(e.phase) && e.resultSent,
      );
      const old = finished.filter((e, i) => now - e.updatedAt > keepMs || finished.length - i > keepMax);
      await this.db.journal.bulkDelete(old.map((e) => e.commandId));
      return old.length;
    });
  }
}

export class PrefStore {
  constructor(private readonly db: OrchestratorDb) {}

  async get<T>(key: string, fallback: T, valid: (v: unknown) => v is T): Promise<T> {
    const record = await this.db.prefs.get(key);
    return record !== undefined && valid(record.value) ? record.value : fallback;
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.db.prefs.put({ key, value });
  }
}
