import { describe, expect, it } from "vitest";
import { AbortedError, GeneratingLimiter, SerialQueues } from "./queue.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("SerialQueues", () => {
  it("runs one key's tasks in order, one at a time, and other keys concurrently", async () => {
    const q = new SerialQueues();
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        log.push(`start ${name}`);
        gates.set(name, () => {
          log.push(`end ${name}`);
          resolve(name);
        });
      });
    const a1 = q.run("a", task("a1"));
    const a2 = q.run("a", task("a2"));
    const b1 = q.run("b", task("b1"));
    await tick();
    expect(log).toEqual(["start a1", "start b1"]);
    expect(q.pending("a")).toBe(2);
    gates.get("b1")!();
    expect(await b1).toBe("b1");
    expect(log).not.toContain("start a2");
    gates.get("a1")!();
    await a1;
    await tick();
    expect(log.at(-1)).toBe("start a2");
    gates.get("a2")!();
    await a2;
    await tick();
    expect(q.pending("a")).toBe(0);
  });

  it("continues after a failed task", async () => {
    const q = new SerialQueues();
    await expect(q.run("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await q.run("a", () => Promise.resolve(2))).toBe(2);
  });
});

describe("GeneratingLimiter", () => {
  it("admits N workers, queues the rest in order, lets a holder through again", async () => {
    const limit = new GeneratingLimiter(2);
    const admitted: string[] = [];
    const take = (w: string, signal?: AbortSignal) => limit.acquire(w, signal).then(() => admitted.push(w));
    void take("a");
    void take("b");
    void take("c");
    void take("d");
    await tick();
    expect(admitted).toEqual(["a", "b"]);
    await take("a"); // already holds a slot
    limit.release("b");
    await tick();
    expect(admitted).toEqual(["a", "b", "a", "c"]);
    limit.setLimit(3);
    await tick();
    expect(admitted.at(-1)).toBe("d");
    expect(limit.size).toBe(3);
  });

  it("counts a generation it did not start, and gives up a wait on abort", async () => {
    const limit = new GeneratingLimiter(1);
    limit.occupy("typed-by-hand");
    const abort = new AbortController();
    const waiting = limit.acquire("w", abort.signal);
    abort.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    limit.release("typed-by-hand");
    await limit.acquire("w");
    expect(limit.holds("w")).toBe(true);
  });
});
