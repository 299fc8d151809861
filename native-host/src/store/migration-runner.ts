// Applies pending schema migrations through the store's own journalled writes. Each migration commits together with
// its row in _store_migrations, so a crash can never apply one twice or leave one half-applied.
import type { Migration } from "./migrations.ts";
import { StoreError, describeError, isStoreError } from "./store-error.ts";
import type { ReadTx, StoreLogger, WriteTx } from "./store-types.ts";

/** The store's own tables, created by its first transaction in a new directory. */
const STORE_TABLES = `
  CREATE TABLE _store_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL);
  CREATE TABLE _store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** What the runner needs from the store (DurableStore's read and write), so that this file need not import it. */
export interface MigrationTarget {
  read<T>(fn: (q: ReadTx) => T): T;
  write<T>(fn: (tx: WriteTx) => T): Promise<T>;
}

/** Versions must be positive and strictly increasing: they are applied in list order. */
export function checkMigrations(migrations: readonly Migration[]): void {
  let previous = 0;
  for (const m of migrations) {
    if (!Number.isSafeInteger(m.version) || m.version <= previous) {
      throw new StoreError(
        "STORE_MISUSE",
        `migration versions must be positive integers in increasing order; ${m.version} (${m.name}) follows ${previous}`,
      );
    }
    previous = m.version;
  }
}

/** Creates the store's tables if needed, refuses a database newer than `migrations`, applies the pending ones. */
export async function applyMigrations(
  store: MigrationTarget,
  migrations: readonly Migration[],
  log: StoreLogger,
  dir: string,
): Promise<void> {
  const hasTables = store.read((q) =>
    q.get("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_store_migrations'"),
  );
  if (!hasTables) await store.write((tx) => tx.run(STORE_TABLES));
  const applied = store.read((q) =>
    q.all<{ version: number; name: string }>("SELECT version, name FROM _store_migrations"),
  );
  const known = new Map(migrations.map((m) => [m.version, m]));
  for (const a of applied) {
    const m = known.get(a.version);
    if (!m) {
      throw new StoreError(
        "STORE_MIGRATION",
        `the database in ${dir} has migration ${a.version} (${a.name}), which this build does not know: ` +
          "it was written by a newer version",
        { path: dir },
      );
    }
    if (m.name !== a.name) {
      log.warn(`migration ${a.version} is named "${m.name}" here but "${a.name}" on disk`);
    }
  }
  const done = new Set(applied.map((a) => a.version));
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    try {
      // Schema and its bookkeeping row commit together, so a crash can never apply a migration twice.
      await store.write((tx) => {
        tx.run(m.sql);
        tx.run("INSERT INTO _store_migrations (version, name, applied_at) VALUES (?, ?, ?)", [
          m.version,
          m.name,
          Date.now(),
        ]);
      });
    } catch (error) {
      if (isStoreError(error) && error.code !== "STORE_MISUSE") throw error;
      const message = `migration ${m.version} (${m.name}) failed: ${describeError(error)}`;
      throw new StoreError("STORE_MIGRATION", message, { cause: error });
    }
    log.info(`applied migration ${m.version} (${m.name})`);
  }
}
