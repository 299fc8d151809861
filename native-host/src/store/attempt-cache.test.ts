// Kept attempt histories mirror the table's upsert, stay bounded and hand out copies.
import { describe, expect, it } from "vitest";
import type { Attempt } from "../core/model.ts";
import { AttemptCache } from "./attempt-cache.ts";

const attempt = (workerId: string, seq: number, id = `${workerId}-${seq}`, state = "scheduled"): Attempt =>
  ({ id, runId: "r", workerId, seq, state, wakeReasons: ["idle"] }) as unknown as Attempt;

describe("AttemptCache", () => {
  it("replaces the row with the same id or the same seq and keeps seq order", () => {
    const cache = new AttemptCache();
    cache.remember("w", [attempt("w", 1), attempt("w", 3)]);
    cache.written("w", JSON.stringify(attempt("w", 2)));
    cache.written("w", JSON.stringify(attempt("w", 3, "w-3", "submitted")));
    cache.written("w", JSON.stringify(attempt("w", 1, "other-id")));
    cache.written("v", JSON.stringify(attempt("v", 1))); // not kept: nothing to update
    expect(cache.get("w")?.map((a) => [a.id, a.seq, a.state])).toEqual([
      ["other-id", 1, "scheduled"],
      ["w-2", 2, "scheduled"],
      ["w-3", 3, "submitted"],
    ]);
    expect(cache.get("v")).toBeUndefined();
    const copy = cache.get("w")!;
    copy.pop();
    expect(cache.get("w")).toHaveLength(3);
    expect(Object.isFrozen(copy[0]!.wakeReasons)).toBe(true);
  });

  it("keeps the most recently read workers and no history longer than its limit", () => {
    const cache = new AttemptCache(2, 2);
    cache.remember("a", [attempt("a", 1)]);
    cache.remember("b", [attempt("b", 1)]);
    cache.get("a");
    cache.remember("c", [attempt("c", 1)]);
    expect([cache.get("a"), cache.get("b"), cache.get("c")].map((l) => l?.length)).toEqual([1, undefined, 1]);
    cache.remember("long", [attempt("long", 1), attempt("long", 2), attempt("long", 3)]);
    expect(cache.get("long")).toBeUndefined();
    cache.written("a", JSON.stringify(attempt("a", 2)));
    cache.written("a", JSON.stringify(attempt("a", 3)));
    expect(cache.get("a")).toBeUndefined();
  });
});
