// Thin wrapper over one sql.js database: pragmas, a prepared-statement cache, and the exact execution paths that
// both live transactions and journal replay use, so a replayed statement runs the way it first ran.
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import type { BindParams, Database, SqlJsStatic, Statement } from "sql.js";
import { StoreError, describeError } from "./store-error.ts";
import type { Row, SqlParams, SqlValue } from "./store-types.ts";

/**
 * Connection pragmas, applied on open and again after every export (older sql.js reset them there).
 * The in-memory database is not where durability lives (the journal is), so SQLite's own journal only has to
 * support ROLLBACK: a memory journal, no syncs, and an exclusive lock that keeps the page cache between
 * transactions roughly halve the cost of a small transaction.
 */
const CONNECTION_PRAGMAS = [
  "PRAGMA locking_mode = EXCLUSIVE",
  "PRAGMA journal_mode = MEMORY",
  "PRAGMA synchronous = OFF",
  "PRAGMA foreign_keys = ON",
  // Text removed from a row (a progress summary past the last 50, docs/privacy.md) must not linger in free pages that
  // the next snapshot would copy; FAST zeroes it where that costs no extra I/O (measured: no slower commits).
  "PRAGMA secure_delete = FAST",
];

/**
 * Set once, when a database is created (they are stored in the file). Incremental auto-vacuum lets the store give
 * back pages freed by archiving a few at a time, between transactions, so snapshots shrink without a full VACUUM
 * (which would block the event loop and may renumber rowids). The page size trades the commit path against export(),
 * the one step that blocks the loop for a time proportional to the database: a small transaction copies whole pages
 * (into the rollback journal and the in-memory file), so 8 KiB pages cost ~20 µs less per commit than 16 KiB ones
 * (about 1/6 of its CPU), while export() copies page by page and gets ~30 % slower (about 1.8 ms/MB instead of 1.4;
 * 4 KiB pages roughly double it for no further gain per commit). Databases created earlier keep their page size.
 */
export const PAGE_SIZE = 8192;
const CREATION_PRAGMAS = [`PRAGMA page_size = ${PAGE_SIZE}`, "PRAGMA auto_vacuum = INCREMENTAL"];

const MAX_CACHED_STATEMENTS = 256;

// sql.js is CommonJS. Loading it with require() skips the ESM loader's export scan of its large glue file, which cost
// ~25 ms at every process start.
const initSqlJs = createRequire(import.meta.url)("sql.js") as typeof import("sql.js");

let sqlJs: Promise<SqlJsStatic> | undefined;

/** Loads (once per process) the sql.js WebAssembly module. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  if (!sqlJs) {
    // V8 tiers hot wasm functions up to TurboFan as they warm. On SQLite's large module that added ~350 ms to the first
    // open in a fresh process, made a 3k-transaction replay 3-4x slower (compiling while replaying), blocked the event
    // loop for up to ~90 ms at a time (2-core machine), and recurred whenever a new path got hot (first snapshot,
    // first archive). Liftoff's baseline code is fast enough here (a small transaction costs ~50 µs next to ~350 µs
    // of fdatasync), so wasm stays on Liftoff, compiled eagerly in the background while the module instantiates
    // instead of function by function on the main thread at first call. Process-wide, but sql.js is the only
    // WebAssembly the host runs; must happen before the module is compiled.
    setFlagsFromString("--liftoff-only");
    setFlagsFromString("--no-wasm-lazy-compilation");
  }
  sqlJs ??= initSqlJs().catch((error: unknown) => {
    sqlJs = undefined; // let a later open retry instead of caching the failure forever
    throw error;
  });
  return sqlJs;
}

export class SqlEngine {
  private readonly statements = new Map<string, Statement>();
  private closed = false;

  private constructor(private readonly db: Database) {}

  /** Opens a database from a snapshot image, or a fresh empty one when `image` is undefined. */
  static create(sql: SqlJsStatic, image: Uint8Array | undefined): SqlEngine {
    const engine = new SqlEngine(new sql.Database(image ?? null));
    if (image === undefined) for (const p of CREATION_PRAGMAS) engine.db.run(p);
    engine.applyConnectionPragmas();
    return engine;
  }

  /** Without params: `sql` may be a `;`-separated script. With params: exactly one statement, prepared once. */
  run(sql: string, params: SqlParams | undefined): void {
    if (params === undefined) {
      this.db.run(sql);
      return;
    }
    const stmt = this.prepare(sql);
    try {
      stmt.bind(params as BindParams);
      stmt.step();
    } finally {
      stmt.reset();
    }
  }

  all<R>(sql: string, params: SqlParams | undefined): R[] {
    const stmt = this.prepare(sql);
    try {
      stmt.bind((params ?? null) as BindParams);
      const rows: R[] = [];
      let names: string[] | undefined;
      let safeNames = true;
      while (stmt.step()) {
        // Column names once per query, not once per row as getAsObject() does: a third of the cost of a large read.
        if (!names) {
          names = stmt.getColumnNames();
          safeNames = !names.includes("__proto__");
        }
        rows.push(toRow(names, stmt.get(), safeNames) as R);
      }
      return rows;
    } finally {
      stmt.reset();
    }
  }

  get<R>(sql: string, params: SqlParams | undefined): R | undefined {
    const stmt = this.prepare(sql);
    try {
      stmt.bind((params ?? null) as BindParams);
      if (!stmt.step()) return undefined;
      const names = stmt.getColumnNames();
      return toRow(names, stmt.get(), !names.includes("__proto__")) as R;
    } finally {
      stmt.reset();
    }
  }

  /** Rows changed by the most recent INSERT/UPDATE/DELETE. */
  changes(): number {
    return this.db.getRowsModified();
  }

  begin(): void {
    this.run("BEGIN", []);
  }

  commit(): void {
    this.run("COMMIT", []);
  }

  /** Rolls back the open transaction; a no-op if SQLite already rolled it back itself (e.g. after a failed COMMIT). */
  rollbackIfActive(): void {
    try {
      this.run("ROLLBACK", []);
    } catch (error) {
      if (/no transaction is active/i.test(describeError(error))) return;
      throw error;
    }
  }

  /** While on, any statement that would write fails: read() uses it so unjournalled writes cannot slip through. */
  setQueryOnly(on: boolean): void {
    this.run(on ? "PRAGMA query_only = 1" : "PRAGMA query_only = 0", []);
  }

  /** The whole database image. Must not be called inside a transaction (sql.js refuses; we check earlier). */
  exportImage(): Uint8Array {
    const image = this.db.export();
    // sql.js before 1.17 closed and reopened the database here, freeing statements and resetting pragmas.
    this.clearStatements();
    this.applyConnectionPragmas();
    return image;
  }

  /** Returns up to `pages` free pages to the end of the file and truncates it; returns how many free pages remain. */
  vacuumStep(pages: number): number {
    this.db.run(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return this.freelistPages();
  }

  freelistPages(): number {
    return this.get<{ freelist_count: number }>("PRAGMA freelist_count", [])?.freelist_count ?? 0;
  }

  /** Size of the database image a snapshot would write. */
  imageBytes(): number {
    const count = this.get<{ page_count: number }>("PRAGMA page_count", [])?.page_count ?? 0;
    const size = this.get<{ page_size: number }>("PRAGMA page_size", [])?.page_size ?? 0;
    return count * size;
  }

  /** Idempotent: open() may discard an engine that a failed migration already closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearStatements();
    this.db.close();
  }

  private applyConnectionPragmas(): void {
    for (const p of CONNECTION_PRAGMAS) this.db.run(p);
  }

  private prepare(sql: string): Statement {
    const cached = this.statements.get(sql);
    if (cached !== undefined) return cached;
    // sql.js prepares only the first statement of a string and silently drops the rest; refuse that instead.
    let count = 0;
    for (const _ of this.db.iterateStatements(sql)) if (++count > 1) break;
    if (count > 1) {
      throw new StoreError(
        "STORE_MISUSE",
        `"${sql.slice(0, 80)}" holds several statements; only a script without parameters may do that`,
      );
    }
    if (this.statements.size >= MAX_CACHED_STATEMENTS) this.clearStatements();
    const stmt = this.db.prepare(sql);
    this.statements.set(sql, stmt);
    return stmt;
  }

  private clearStatements(): void {
    for (const stmt of this.statements.values()) stmt.free();
    this.statements.clear();
  }
}

function toRow(names: readonly string[], values: readonly SqlValue[], safeNames: boolean): Row {
  // A column called "__proto__" must become data, not the prototype: fromEntries defines own properties.
  if (!safeNames) return Object.fromEntries(names.map((name, i) => [name, values[i] ?? null]));
  const row: Row = {};
  for (let i = 0; i < names.length; i++) row[names[i]!] = values[i] ?? null;
  return row;
}
