// Which SQL a write transaction refuses (it would not replay identically, or would escape the journal record).
import { describe, expect, it } from "vitest";
import { assertReplayable, isPlainSelect } from "./sql-guards.ts";

describe("SQL guards", () => {
  it.each([
    "INSERT INTO t VALUES (random())",
    "INSERT INTO t VALUES (randomblob(4))",
    "UPDATE t SET at = CURRENT_TIMESTAMP",
    "UPDATE t SET at = datetime('now')",
    "UPDATE t SET at = unixepoch()",
    "UPDATE t SET at = strftime('%s')",
    "INSERT INTO t VALUES (last_insert_rowid())",
    "UPDATE t SET n = changes()",
    "BEGIN",
    "  commit",
    "ROLLBACK",
    "VACUUM",
    "ATTACH 'x' AS y",
  ])("refuses %s", (sql) => {
    expect(() => assertReplayable(sql)).toThrow(expect.objectContaining({ code: "STORE_MISUSE" }));
  });

  it.each([
    "INSERT INTO t (id, at) VALUES (?, ?)",
    "UPDATE t SET at = datetime(?, 'unixepoch')",
    "ROLLBACK TO sp1",
    "SAVEPOINT sp1",
    "UPDATE runs SET status = 'ended' WHERE id = ?",
  ])("allows %s", (sql) => {
    expect(() => assertReplayable(sql)).not.toThrow();
  });

  it("journals everything but a plain SELECT", () => {
    expect(isPlainSelect("  select * from t")).toBe(true);
    expect(isPlainSelect("WITH x AS (SELECT 1) DELETE FROM t")).toBe(false);
    expect(isPlainSelect("INSERT INTO t VALUES (1) RETURNING id")).toBe(false);
  });
});
