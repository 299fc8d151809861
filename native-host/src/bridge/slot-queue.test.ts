// The host's tab-slot queue: FIFO per executor, steers pass, held commands wait for an executor, slots in use counted.
import { describe, expect, it } from "vitest";
import type { CommandType } from "../core/effects.ts";
import type { Attempt, DomainState, Worker } from "../core/model.ts";
import { needsSlot, SlotQueue, slotsInUse } from "./slot-queue.ts";

const cmd = (workerId: string, type: CommandType = "conversation.create") => ({
  commandId: `${workerId}:1:cmd`,
  workerId,
  type,
});

const always =
  (n: number) =>
  (_executorId: string): number =>
    n;

describe("SlotQueue", () => {
  it("keeps one FIFO per executor and takes only what the free slots allow, oldest first", () => {
    const q = new SlotQueue<ReturnType<typeof cmd>>();
    q.add(cmd("a1"), "A", 10);
    q.add(cmd("b1"), "B", 11);
    q.add(cmd("a2"), "A", 12);
    q.add(cmd("a3"), "A", 13);
    expect(q.position("a1")).toEqual({ position: 1, since: 10 });
    expect(q.position("a3")).toEqual({ position: 3, since: 13 });
    expect(q.position("b1")).toEqual({ position: 1, since: 11 });

    const taken = q.take((id) => (id === "A" ? 1 : 0));
    expect(taken.map((e) => e.command.workerId)).toEqual(["a1"]);
    expect(q.position("a2")?.position).toBe(1);
    expect(q.position("b1")?.position).toBe(1);
    expect(q.take(always(0))).toEqual([]);
    expect(q.take(always(5)).map((e) => e.command.workerId)).toEqual(["b1", "a2", "a3"]);
    expect(q.size).toBe(0);
  });

  it("lets a steer through without a slot, and never overtakes an earlier command with a later one", () => {
    const q = new SlotQueue<ReturnType<typeof cmd>>();
    q.add(cmd("a1", "conversation.send"), "A", 1);
    q.add(cmd("s1", "conversation.steer"), "A", 2);
    q.add(cmd("a2", "conversation.create"), "A", 3);
    expect(q.position("s1")).toBeUndefined();
    expect(q.position("a2")?.position).toBe(2);
    expect(q.take(always(0)).map((e) => e.command.workerId)).toEqual(["s1"]);
    expect(q.take(always(1)).map((e) => e.command.workerId)).toEqual(["a1"]);
    expect(needsSlot("conversation.steer")).toBe(false);
    expect(needsSlot("conversation.send")).toBe(true);
  });

  it("holds a command with no executor (no position) until routing gives it one", () => {
    const q = new SlotQueue<ReturnType<typeof cmd>>();
    q.add(cmd("h"), undefined, 5);
    q.add(cmd("h"), "A", 6); // already queued: keeps its place and its time
    expect(q.position("h")).toBeUndefined();
    expect(q.take(always(3))).toEqual([]);
    q.route((c, current) => current ?? (c.workerId === "h" ? "A" : undefined));
    expect(q.position("h")).toEqual({ position: 1, since: 5 });
    expect(q.waitingOn("A")).toBe(1);
    const before = q.signature();
    q.route(() => undefined); // its executor left
    expect(q.signature()).not.toBe(before);
    expect(q.take(always(3))).toEqual([]);
  });

  it("removes a withdrawn command and moves the others up", () => {
    const q = new SlotQueue<ReturnType<typeof cmd>>();
    q.add(cmd("a1"), "A", 1);
    q.add(cmd("a2"), "A", 2);
    expect(q.remove("a1:1:cmd")?.command.workerId).toBe("a1");
    expect(q.remove("a1:1:cmd")).toBeUndefined();
    expect(q.has("a2:1:cmd")).toBe(true);
    expect(q.position("a2")?.position).toBe(1);
  });
});

describe("slotsInUse", () => {
  const worker = (id: string, patch: Partial<Worker> & { conv?: Partial<Worker["conversation"]> }): Worker =>
    ({
      id,
      runId: "r",
      status: "active",
      conversation: { state: "idle", binding: "bound", changes: 3, observedSeq: 0, since: 0, ...patch.conv },
      ...patch,
    }) as unknown as Worker;
  const submitted = { state: "submitted", submittedAtChange: 3, delivery: "send" } as unknown as Attempt;
  const state = (...ws: Worker[]): DomainState => ({
    runs: {},
    workers: Object.fromEntries(ws.map((w) => [w.id, w])),
    unread: {},
  });

  it("counts the executor's generating and starting turns and its unanswered commands, each worker once", () => {
    const s = state(
      worker("gen", { conv: { state: "generating", executorId: "A" } }),
      worker("starting", { current: submitted, conv: { executorId: "A" } }),
      worker("seen", { current: submitted, conv: { changes: 4, executorId: "A" } }), // reported since: not starting
      worker("ended", { status: "completed", conv: { state: "generating", executorId: "A" } }),
      worker("other", { conv: { state: "generating", executorId: "B" } }),
      worker("idle", { conv: { executorId: "A" } }),
    );
    const unanswered = [
      { workerId: "gen", executorId: "A", type: "conversation.send" as const },
      { workerId: "new", executorId: "A", type: "conversation.create" as const },
      { workerId: "steer", executorId: "A", type: "conversation.steer" as const },
      { workerId: "elsewhere", executorId: "B", type: "conversation.create" as const },
    ];
    expect(slotsInUse(s, "A", unanswered)).toBe(3); // gen, starting, new
    expect(slotsInUse(s, "B", unanswered)).toBe(2); // other, elsewhere
    expect(slotsInUse(s, "C", [])).toBe(0);
  });
});
