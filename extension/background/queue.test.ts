import { describe, expect, it } from "vitest";
import { GeneratingTabs, SerialQueues } from "./queue.ts";

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

describe("GeneratingTabs", () => {
  it("counts each worker's tab once, whoever started the generation, and never makes anyone wait", () => {
    const tabs = new GeneratingTabs();
    for (const w of ["a", "b", "c", "d"]) tabs.occupy(w); // more than any limit: the host keeps that
    tabs.occupy("a");
    expect(tabs.size).toBe(4);
    tabs.release("b");
    tabs.release("b");
    expect(tabs.size).toBe(3);
    expect(tabs.holds("a")).toBe(true);
    expect(tabs.holds("b")).toBe(false);
  });
});
