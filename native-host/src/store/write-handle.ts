// The handles a DurableStore callback receives: `tx` of write() (records each statement's journal text as it runs)
// and the checks both handles share (synchronous callbacks only, no use after the callback returned).
import { StatementText } from "./record-codec.ts";
import type { SqlEngine } from "./sql-engine.ts";
import { assertReplayable, isPlainSelect } from "./sql-guards.ts";
import { StoreError } from "./store-error.ts";
import type { Row, SqlParams, WriteTx } from "./store-types.ts";

/**
 * The `tx` of one write() callback. A class rather than closures: one small object per transaction on the commit path.
 * Runs each statement and records its journal text; a statement that throws is journalled as failed (the caller may
 * catch and carry on, and with ON CONFLICT FAIL it may have changed rows), unless our own guards refused it first.
 */
export class WriteHandle implements WriteTx {
  live = true;
  readonly recorded: string[] = [];

  constructor(private readonly engine: SqlEngine) {}

  run(sql: string, params?: SqlParams): void {
    const stmt = this.journalled(sql, params);
    try {
      this.engine.run(sql, params);
    } catch (error) {
      this.recorded.push(stmt.text(true));
      throw error;
    }
    this.recorded.push(stmt.text(false));
  }

  all<R = Row>(sql: string, params?: SqlParams): R[] {
    if (isPlainSelect(sql)) {
      assertLive(this.live, "write");
      return this.engine.all<R>(sql, params);
    }
    const stmt = this.journalled(sql, params);
    let rows: R[];
    try {
      rows = this.engine.all<R>(sql, params);
    } catch (error) {
      this.recorded.push(stmt.text(true));
      throw error;
    }
    this.recorded.push(stmt.text(false));
    return rows;
  }

  get<R = Row>(sql: string, params?: SqlParams): R | undefined {
    if (isPlainSelect(sql)) {
      assertLive(this.live, "write");
      return this.engine.get<R>(sql, params);
    }
    const stmt = this.journalled(sql, params);
    let row: R | undefined;
    try {
      row = this.engine.get<R>(sql, params);
    } catch (error) {
      this.recorded.push(stmt.text(true));
      throw error;
    }
    this.recorded.push(stmt.text(false));
    return row;
  }

  /** The checks that refuse a statement before it runs (those refusals are not journalled), and its journal text. */
  private journalled(sql: string, params: SqlParams | undefined): StatementText {
    assertLive(this.live, "write");
    assertReplayable(sql);
    return new StatementText(sql, params);
  }
}

export function isThenable(v: unknown): boolean {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}

export function assertLive(live: boolean, kind: string): void {
  if (!live)
    throw new StoreError("STORE_MISUSE", `a ${kind} transaction handle was used after its callback returned`);
}
