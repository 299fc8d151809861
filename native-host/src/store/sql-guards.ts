// Static checks on SQL text run through a write transaction: refuse what would break replay or our transaction
// framing, and tell reads (not journalled) from writes. Verdicts are cached per SQL string: callers reuse statements.
import { StoreError } from "./store-error.ts";

// Functions whose result depends on the clock, randomness or connection history: replay would compute another value.
const NON_DETERMINISTIC =
  /\b(?:random|randomblob|changes|total_changes|last_insert_rowid|sqlite_version|sqlite_source_id)\s*\(|\bcurrent_(?:time|date|timestamp)\b|'now'|\b(?:date|time|datetime|julianday|unixepoch)\s*\(\s*\)|\bstrftime\s*\(\s*'[^']*'\s*\)/i;

// The store owns BEGIN/COMMIT; a caller's own transaction control (or VACUUM/ATTACH) would escape the journal record.
const TRANSACTION_CONTROL = /^\s*(?:begin|commit|end|rollback(?!\s+to\b)|vacuum|attach|detach)\b/i;

const PLAIN_SELECT = /^\s*select\b/i;

const verdicts = new Map<string, StoreError | null>();
const MAX_CACHED = 1024;

/** Throws STORE_MISUSE if `sql` may not run inside a journalled write transaction. */
export function assertReplayable(sql: string): void {
  let verdict = verdicts.get(sql);
  if (verdict === undefined) {
    verdict = judge(sql);
    if (verdicts.size >= MAX_CACHED) verdicts.clear();
    verdicts.set(sql, verdict);
  }
  if (verdict !== null) throw verdict;
}

/**
 * True for a statement that cannot change the database, so a write transaction need not journal it.
 * Deliberately conservative: only a plain SELECT qualifies (a WITH … may end in INSERT/UPDATE/DELETE).
 */
export function isPlainSelect(sql: string): boolean {
  return PLAIN_SELECT.test(sql);
}

function judge(sql: string): StoreError | null {
  const head = sql.slice(0, 80);
  if (TRANSACTION_CONTROL.test(sql)) {
    return new StoreError(
      "STORE_MISUSE",
      `"${head}": transaction control, VACUUM and ATTACH are the store's job, not a write transaction's`,
    );
  }
  const m = NON_DETERMINISTIC.exec(sql);
  if (m !== null) {
    return new StoreError(
      "STORE_MISUSE",
      `"${head}" uses ${m[0].trim()}, which gives a different value when the journal is replayed; ` +
        "compute the value in JavaScript and bind it as a parameter",
    );
  }
  return null;
}
