// The engine on a real DurableStore in a temp directory, with fake timers and an injected clock: effects only once
// durable, one timer for the earliest deadline (hops past setTimeout's limit), the rebuild of deadlines from durable
// state at start-up, command deadlines.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PolicyPatch } from "../../../shared/continuation-policy.ts";
import { COMMAND_DEADLINE_MS } from "../core/attempts.ts";
import { pendingCommands } from "../core/commands.ts";
import type { ExecutorCommand } from "../core/effects.ts";
import type { Input } from "../core/inputs.ts";
import { CONNECTED_ENV } from "../core/liveness.ts";
import { seededRandom } from "../core/simulation.ts";
import { Engine } from "./engine.ts";

const quiet = { warn: () => undefined, info: () => undefined };
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
/** setTimeout's longest delay; the engine must reach later deadlines in hops. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Dispatch {
  readonly command: ExecutorCommand;
  /** The store's journal when the sink received the command. */
  readonly durableSeq: number;
  readonly lastSeq: number;
  readonly pendingTransactions: number;
}

/** An Engine over its own store: records what reaches its sink and onError, and which inputs are in flight. */
class Harness {
  readonly dispatched: Dispatch[] = [];
  readonly cancelled: string[] = [];
  readonly errors: unknown[] = [];
  /** Journal batches written (before their fdatasync) and sink calls, in order. */
  readonly trace: string[] = [];
  ticks = 0;
  private readonly inflight = new Set<Promise<unknown>>();

  private constructor(
    readonly engine: Engine,
    private readonly disk: Disk,
  ) {
    // Observe every input, the timer's ticks included (its callback calls this.apply), without changing them.
    const real = engine.apply.bind(engine);
    engine.apply = (input: Input) => {
      if (input.type === "tick") this.ticks++;
      const p = real(input);
      this.inflight.add(p);
      p.then(
        () => this.inflight.delete(p),
        () => this.inflight.delete(p),
      );
      return p;
    };
  }

  static async open(dir: string, disk: Disk): Promise<Harness> {
    // The sink and onError exist before the harness that records them.
    const ref: { self?: Harness } = {};
    const engine = await Engine.open({
      dir,
      log: quiet,
      now: () => Date.now(),
      random: seededRandom(7),
      store: {
        faultHook: (point) => {
          if (point !== "journal-written") return;
          disk.trace?.push("journal-written");
          if (disk.failing) throw new Error("EIO: the disk went away");
        },
      },
      onError: (error) => ref.self?.errors.push(error),
    });
    const store = engine.store;
    engine.attach({
      dispatch: (command) => {
        const stats = store.stats();
        ref.self?.trace.push(`dispatch ${command.commandId}`);
        ref.self?.dispatched.push({
          command,
          durableSeq: stats.durableSeq,
          lastSeq: stats.lastSeq,
          pendingTransactions: stats.pendingTransactions,
        });
      },
      cancel: (_workerId, commandId) => ref.self?.cancelled.push(commandId),
      changed: () => undefined,
      storeHealth: () => undefined,
      livenessEnv: () => CONNECTED_ENV,
    });
    const self = new Harness(engine, disk);
    ref.self = self;
    disk.trace = self.trace;
    return self;
  }

  get store() {
    return this.engine.store;
  }

  /** Applies an input the way the operations do; a refusal is a test error. */
  async apply(input: Input): Promise<void> {
    const result = await this.engine.apply(input);
    if (result.error) throw new Error(`${input.type}: ${result.error.code} ${result.error.message}`);
  }

  /** Waits until every input in flight (ticks from the timer included) is durable and its effects carried out. */
  async settle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Moves the fake clock on by `ms`, firing due timers, then lets their ticks finish. */
  async advance(ms: number): Promise<void> {
    await vi.advanceTimersByTimeAsync(ms);
    await this.settle();
  }

  commandIds(): string[] {
    return this.dispatched.map((d) => d.command.commandId);
  }

  async close(): Promise<void> {
    await this.settle();
    await this.engine.close().catch(() => undefined);
    this.disk.trace = undefined;
  }
}

/** The store's fault hook, switched by the test: journal batches are traced, and can be made to fail. */
interface Disk {
  failing: boolean;
  trace: string[] | undefined;
}

describe("Engine over a real DurableStore", () => {
  let dir: string;
  let open: Harness[] = [];
  let disk: Disk;

  async function openHarness(): Promise<Harness> {
    const h = await Harness.open(dir, disk);
    open.push(h);
    return h;
  }

  /** Each worker is the /root of its own run, so its policy is the run's (Auto Resume plus `policy`). */
  async function createRun(h: Harness, id: string, policy: PolicyPatch = {}): Promise<void> {
    await h.apply({ type: "run.create", runId: `run-${id}`, name: id, policy: { mode: "auto", ...policy } });
  }

  async function spawn(h: Harness, id: string): Promise<void> {
    await h.apply({
      type: "worker.spawn",
      runId: `run-${id}`,
      workerId: id,
      path: "/root",
      objective: "Ship",
    });
  }

  /** A worker whose first turn was submitted and ran; it went idle now, so its idle grace runs. */
  async function idleWorker(h: Harness, id: string, policy: PolicyPatch = {}): Promise<void> {
    await createRun(h, id, policy);
    await spawn(h, id);
    await h.apply({
      type: "command.result",
      workerId: id,
      commandId: `${id}:1:cmd`,
      outcome: "submitted",
      url: `https://chatgpt.com/c/${id}`,
    });
    await h.apply({ type: "conversation.observed", workerId: id, state: "generating", seq: 1 });
    await h.apply({ type: "conversation.observed", workerId: id, state: "idle", seq: 2 });
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "orch-engine-"));
    disk = { failing: false, trace: undefined };
    // Only the timers the engine's deadline timer uses, and Date for its injected clock; the store's I/O stays real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: T0 });
  });

  afterEach(async () => {
    for (const h of open) await h.close();
    open = [];
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("effects only after durability", () => {
    it("hands a command to the sink only once the transaction that decided it is fdatasync'ed", async () => {
      const h = await openHarness();
      await createRun(h, "w");
      const spawnSeq = h.store.stats().lastSeq + 1;
      h.trace.length = 0;

      await spawn(h, "w");

      expect(h.dispatched).toHaveLength(1);
      const [d] = h.dispatched;
      expect(d?.command).toMatchObject({ type: "conversation.create", commandId: "w:1:cmd" });
      // The spawn's transaction was on disk (not merely committed in memory) when the sink saw its command.
      expect(d?.lastSeq).toBe(spawnSeq);
      expect(d?.durableSeq).toBe(spawnSeq);
      expect(d?.pendingTransactions).toBe(0);
      // Its journal batch was written (and then synced) before the command left.
      expect(h.trace).toEqual(["journal-written", "dispatch w:1:cmd"]);
    });

    it("never dispatches a command whose commit failed, and the caller gets the store's error", async () => {
      const h = await openHarness();
      await createRun(h, "w");
      h.trace.length = 0;
      disk.failing = true;

      await expect(spawn(h, "w")).rejects.toMatchObject({ code: "STORE_IO" });
      await h.settle();

      expect(h.dispatched).toEqual([]);
      expect(h.trace).toEqual(["journal-written"]);
    });

    it("a timer tick whose commit fails dispatches nothing and reports the error through onError", async () => {
      const h = await openHarness();
      await idleWorker(h, "w", { idleGraceMs: 5 * SECOND });
      expect(h.engine.nextWakeAt).toBe(T0 + 5 * SECOND);
      const before = h.commandIds();
      disk.failing = true;

      await h.advance(5 * SECOND);

      // The tick decided to resume the worker, but that decision never reached the disk: no command leaves.
      expect(h.ticks).toBe(1);
      expect(h.commandIds()).toEqual(before);
      expect(h.errors).toHaveLength(1);
      expect(h.errors[0]).toMatchObject({ code: "STORE_IO" });
    });
  });

  describe("one timer, armed for the earliest deadline", () => {
    it("keeps one timer for the earliest of several deadlines, re-arms it after firing and moves it earlier", async () => {
      const h = await openHarness();
      await idleWorker(h, "a", { idleGraceMs: 5 * SECOND });
      await idleWorker(h, "b", { idleGraceMs: 2 * SECOND });
      await idleWorker(h, "c", { idleGraceMs: 9 * SECOND });
      const resumes = () => h.commandIds().filter((id) => !id.endsWith(":1:cmd"));

      expect(h.engine.nextWakeAt).toBe(T0 + 2 * SECOND);
      expect(vi.getTimerCount()).toBe(1);

      await h.advance(2 * SECOND - 1);
      expect(h.ticks).toBe(0);
      expect(resumes()).toEqual([]);

      await h.advance(1);
      expect(h.ticks).toBe(1);
      expect(resumes()).toEqual(["b:2:cmd"]);
      expect(h.engine.nextWakeAt).toBe(T0 + 5 * SECOND);
      expect(vi.getTimerCount()).toBe(1);

      // A new deadline earlier than the armed one replaces it.
      await idleWorker(h, "d", { idleGraceMs: 1 * SECOND });
      expect(h.engine.nextWakeAt).toBe(T0 + 3 * SECOND);
      expect(vi.getTimerCount()).toBe(1);

      await h.advance(1 * SECOND - 1);
      expect(h.ticks).toBe(1);
      await h.advance(1);
      expect(h.ticks).toBe(2);
      expect(resumes()).toEqual(["b:2:cmd", "d:2:cmd"]);
      expect(h.engine.nextWakeAt).toBe(T0 + 5 * SECOND);
      expect(vi.getTimerCount()).toBe(1);

      await h.advance(2 * SECOND);
      expect(h.ticks).toBe(3);
      expect(resumes()).toEqual(["b:2:cmd", "d:2:cmd", "a:2:cmd"]);
      expect(h.engine.nextWakeAt).toBe(T0 + 9 * SECOND);
      expect(vi.getTimerCount()).toBe(1);

      await h.advance(4 * SECOND);
      expect(h.ticks).toBe(4);
      expect(resumes()).toEqual(["b:2:cmd", "d:2:cmd", "a:2:cmd", "c:2:cmd"]);
      expect(vi.getTimerCount()).toBe(1);
    });

    it("reaches a deadline beyond setTimeout's 2^31-1 ms limit in hops, never firing the resume early", async () => {
      const h = await openHarness();
      await idleWorker(h, "w", {
        idleGraceMs: 40 * DAY,
        stallWarningAfterNoProgressMs: null,
        stallPauseAfterNoProgressMs: null,
        activeKeepaliveMinMs: 100 * DAY,
        activeKeepaliveMaxMs: 100 * DAY,
      });
      const due = T0 + 40 * DAY;
      expect(due - T0).toBeGreaterThan(MAX_TIMER_MS);
      expect(h.engine.nextWakeAt).toBe(due);
      expect(vi.getTimerCount()).toBe(1);

      // A delay over the limit is not clamped by Node but replaced by 1 ms: nothing may fire this early.
      await h.advance(SECOND);
      expect(h.ticks).toBe(0);
      await h.advance(MAX_TIMER_MS - SECOND - 1);
      expect(h.ticks).toBe(0);

      // One hop: a tick that finds nothing due and arms the rest of the way.
      await h.advance(1);
      expect(h.ticks).toBe(1);
      expect(h.commandIds()).toEqual(["w:1:cmd"]);
      expect(h.engine.nextWakeAt).toBe(due);
      expect(vi.getTimerCount()).toBe(1);

      await h.advance(due - Date.now() - 1);
      expect(h.ticks).toBe(1);
      expect(h.commandIds()).toEqual(["w:1:cmd"]);

      await h.advance(1);
      expect(h.ticks).toBe(2);
      expect(h.commandIds()).toEqual(["w:1:cmd", "w:2:cmd"]);
    });
  });

  describe("start-up rebuild of deadlines from durable state", () => {
    it("re-arms the pending deadline from the store and issues no command again, submitted or not", async () => {
      const h1 = await openHarness();
      // "sched": a resume decided, durable and handed to the sink, but no result before the restart.
      await idleWorker(h1, "sched");
      await h1.advance(3 * SECOND);
      const pending = h1.dispatched.find((d) => d.command.commandId === "sched:2:cmd")?.command;
      expect(pending).toBeDefined();
      // "sub": its first turn is submitted, nothing observed since.
      await createRun(h1, "sub");
      await spawn(h1, "sub");
      await h1.apply({
        type: "command.result",
        workerId: "sub",
        commandId: "sub:1:cmd",
        outcome: "submitted",
        url: "https://chatgpt.com/c/sub",
      });
      // "idle": went idle with a one-minute grace still running: the deadline to rebuild.
      await idleWorker(h1, "idle", { idleGraceMs: MINUTE });
      const due = Date.now() + MINUTE;
      expect(h1.engine.nextWakeAt).toBe(due);
      await h1.close();
      expect(vi.getTimerCount()).toBe(0);

      vi.setSystemTime(Date.now() + 10 * SECOND);
      // Opening rebuilt the timer and ran the start-up tick before the sink was attached; one more tick at the same
      // instant, with the sink attached, shows that nothing is due or sent again.
      const h2 = await openHarness();
      await h2.engine.apply({ type: "tick" });
      await h2.settle();

      expect(h2.engine.nextWakeAt).toBe(due);
      expect(vi.getTimerCount()).toBe(1);
      // Start-up sends nothing: neither the submitted turn nor a new attempt for the one still in flight.
      expect(h2.dispatched).toEqual([]);
      expect(h2.cancelled).toEqual([]);
      const workers = h2.engine.state.workers;
      expect(workers.sched?.current).toMatchObject({ seq: 2, state: "scheduled", commandId: "sched:2:cmd" });
      expect(workers.sub?.current).toMatchObject({ seq: 1, state: "submitted" });
      // What the bridge offers each executor on hello: the unsubmitted command, the same one, and nothing else.
      expect(pendingCommands(h2.engine.state)).toEqual([pending]);

      await h2.advance(due - Date.now() - 1);
      expect(h2.dispatched).toEqual([]);
      await h2.advance(1);
      expect(h2.commandIds()).toEqual(["idle:2:cmd"]);
      expect(h2.engine.state.workers.sched?.attemptCount).toBe(2);
      expect(h2.engine.state.workers.sub?.attemptCount).toBe(1);
    });
  });

  describe("command deadline (deadlineAt)", () => {
    it("the host arms nothing for deadlineAt and ends nothing; the executor's DEADLINE_EXCEEDED ends the attempt", async () => {
      const h = await openHarness();
      await idleWorker(h, "w");
      await h.advance(3 * SECOND);
      const sent = h.dispatched.at(-1)?.command;
      expect(sent).toMatchObject({ commandId: "w:2:cmd", deadlineAt: Date.now() + COMMAND_DEADLINE_MS });
      await h.apply({ type: "command.acked", workerId: "w", commandId: "w:2:cmd" });
      const keepaliveAt = h.engine.state.workers.w?.keepaliveAt ?? 0;
      // The one timer waits for the keepalive (20–21 min), not for the command's deadline.
      expect(h.engine.nextWakeAt).toBe(keepaliveAt);
      expect(keepaliveAt).toBeGreaterThan(sent?.deadlineAt ?? Infinity);
      const ticks = h.ticks;
      const events = h.engine.lastEventSeq();

      await h.advance((sent?.deadlineAt ?? 0) - Date.now() + 1);
      await h.apply({ type: "tick" });

      // Past the deadline with an ack and no result: no timer fired, the tick changed nothing, nothing was resent.
      expect(h.ticks).toBe(ticks + 1);
      expect(h.engine.lastEventSeq()).toBe(events);
      expect(h.engine.state.workers.w?.current).toMatchObject({ commandId: "w:2:cmd", state: "scheduled" });
      expect(h.commandIds()).toEqual(["w:1:cmd", "w:2:cmd"]);
      // It is still what an executor is offered on hello; the executor refuses it as past its deadline.
      expect(pendingCommands(h.engine.state).map((c) => c.commandId)).toEqual(["w:2:cmd"]);

      await h.apply({
        type: "command.result",
        workerId: "w",
        commandId: "w:2:cmd",
        outcome: "failed",
        errorCode: "DEADLINE_EXCEEDED",
      });
      expect(h.engine.attempts("w").at(-1)).toMatchObject({
        id: "w:2",
        state: "cancelled",
        outcome: "not_delivered",
        errorCode: "DEADLINE_EXCEEDED",
      });
      // Not delivered: the wish to continue is kept but waits for the conversation to change, not resent at once.
      expect(h.engine.state.workers.w?.intent).toMatchObject({ reasons: ["idle"] });
      await h.apply({ type: "tick" });
      expect(h.commandIds()).toEqual(["w:1:cmd", "w:2:cmd"]);

      // The conversation changes: exactly one fresh attempt, with its own command id and deadline.
      await h.apply({ type: "conversation.observed", workerId: "w", state: "ready", seq: 3 });
      await h.apply({ type: "tick" });
      expect(h.commandIds()).toEqual(["w:1:cmd", "w:2:cmd", "w:3:cmd"]);
      expect(h.dispatched.at(-1)?.command).toMatchObject({
        type: "conversation.send",
        deadlineAt: Date.now() + COMMAND_DEADLINE_MS,
      });
      expect(h.engine.state.workers.w?.pause).toBeUndefined();
    });
  });
});
