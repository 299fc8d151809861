// The sql.js wrapper: rows as plain objects (a "__proto__" column stays data), blobs, one statement per
// parameterised call, statements and pragmas that survive export(), and query_only refusing writes.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSqlJs, SqlEngine } from "./sql-engine.ts";

describe("SqlEngine", () => {
  let engine: SqlEngine;
  beforeEach(async () => {
    engine = SqlEngine.create(await loadSqlJs(), undefined);
    engine.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v)", undefined);
  });
  afterEach(() => engine.close());

  it("returns rows as objects, a __proto__ column included, and blobs as Uint8Array", () => {
    engine.run("INSERT INTO t (id, v) VALUES (?, ?)", [1, new Uint8Array([9, 8])]);
    const [row] = engine.all<Record<string, unknown>>('SELECT id, v, 3 AS "__proto__" FROM t', undefined);
    expect(Object.keys(row!)).toEqual(["id", "v", "__proto__"]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row!.v).toEqual(new Uint8Array([9, 8]));
    expect(engine.get<{ n: number }>("SELECT count(*) AS n FROM t WHERE id = ?", [1])).toEqual({ n: 1 });
    expect(engine.get("SELECT * FROM t WHERE id = ?", [2])).toBeUndefined();
  });

  it("refuses several statements with parameters instead of silently running the first", () => {
    expect(() => engine.run("INSERT INTO t VALUES (?, 1); INSERT INTO t VALUES (2, 2)", [1])).toThrow(
      /several/,
    );
    expect(engine.all("SELECT * FROM t", undefined)).toEqual([]);
    engine.run("INSERT INTO t VALUES (1, 1); INSERT INTO t VALUES (2, 2)", undefined); // a script without params is fine
    expect(engine.all("SELECT id FROM t ORDER BY id", undefined)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("keeps working, with its pragmas, after an export", () => {
    engine.run("INSERT INTO t VALUES (?, ?)", [1, "a"]);
    const image = engine.exportImage();
    expect(image.length).toBe(engine.imageBytes());
    engine.run("INSERT INTO t VALUES (?, ?)", [2, "b"]);
    expect(engine.get<{ foreign_keys: number }>("PRAGMA foreign_keys", [])).toEqual({ foreign_keys: 1 });
    expect(engine.get<{ journal_mode: string }>("PRAGMA journal_mode", [])).toEqual({
      journal_mode: "memory",
    });
    expect(engine.all("SELECT id FROM t ORDER BY id", undefined)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("refuses writes while query_only is on", () => {
    engine.setQueryOnly(true);
    expect(() => engine.run("INSERT INTO t VALUES (?, ?)", [1, "a"])).toThrow(/readonly/);
    engine.setQueryOnly(false);
    engine.run("INSERT INTO t VALUES (?, ?)", [1, "a"]);
  });
});
