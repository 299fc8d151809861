// The restart matrix (docs/host.md, "Restart safety"): the host is SIGKILLed at each of nine boundaries
// (ORCHESTRATOR_FAULT) and restarted.
// The scripted extension keeps its own journal across host lives, as the real one does in Dexie; every case must
// converge with no command delivered twice, no worker state lost, and AMBIGUOUS only where delivery is unknown.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import type { CommandMessage } from "../../shared/native-messages.ts";
import type { FaultPoint } from "../../native-host/src/engine/fault-points.ts";
import { connectMcp, removeHome, tempHome, tool } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

interface WorkerOut {
  worker: {
    id: string;
    label: string;
    attempt: { seq: number; state: string } | null;
    pause: { source?: string; errorCode?: string } | null;
    liveness: { state: string; reason: string } | null;
    stallWarning: boolean;
    noProgressAttempts: number;
  };
  attempts: { seq: number; reason: string; state: string; errorCode: string | null }[];
}

type Phase = "received" | "submission-started" | "submitted" | "completed";

/** The extension's side of the world, which outlives any host process. */
class ExtensionWorld {
  readonly received: CommandMessage[] = [];
  readonly journal = new Map<string, { workerId: string; phase: Phase }>();
  seq = 0;
  state: "generating" | "idle" = "generating";

  track(ext: ScriptedExtension): void {
    const seen = new Set(this.received.map((c) => c.commandId));
    for (const c of ext.commands) {
      if (seen.has(c.commandId)) continue;
      seen.add(c.commandId);
      this.received.push(c);
      if (!this.journal.has(c.commandId))
        this.journal.set(c.commandId, { workerId: c.workerId, phase: "received" });
    }
  }

  hello(workerId: string) {
    return {
      bindings: [
        {
          workerId,
          binding: "bound" as const,
          url: `https://chatgpt.com/c/${workerId}`,
          observed: { state: this.state, seq: this.seq },
        },
      ],
      journal: [...this.journal].map(([commandId, e]) => ({
        commandId,
        workerId: e.workerId,
        phase: e.phase,
      })),
    };
  }
}

const POLICY = { mode: "auto", idleGraceMs: 100, stallPauseAfterNoProgressAttempts: 5 };

describe("restart matrix (docs/host.md): SIGKILL at each boundary, restart, converge", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const h of homes.splice(0)) removeHome(h);
  });

  /**
   * Life 1: spawn a worker, let its bootstrap turn run, then do `drive` with the fault armed. Points the bootstrap
   * turn also passes are armed for their second hit (`point:2`), which is the resume's.
   */
  async function firstLife(
    fault: FaultPoint | `${FaultPoint}:${number}`,
    policy: Record<string, unknown>,
    drive: (ctx: Life) => Promise<void>,
  ) {
    const home = tempHome();
    homes.push(home);
    const world = new ExtensionWorld();
    const ext = ScriptedExtension.spawn({ home, env: { ORCHESTRATOR_FAULT: fault } });
    await ext.hello();
    const mcp = await connectMcp(home);
    const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", { name: "matrix", policy });
    const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", {
      runId: run.id,
      path: "/root",
      objective: "x",
    });
    const create = await waitFor(() => ext.commandsFor(worker.id)[0], "bootstrap command");
    world.track(ext);
    ext.submit(create);
    world.journal.set(create.commandId, { workerId: worker.id, phase: "completed" });
    world.seq += 1;
    ext.setSeq(worker.id, world.seq - 1);
    ext.observe(worker.id, "generating");
    const life: Life = { home, ext, mcp, world, workerId: worker.id };
    await drive(life);
    const end = await ext.exited;
    world.track(ext);
    expect(end.signal, `host should die at ${fault}`).toBe("SIGKILL");
    await mcp.close().catch(() => undefined);
    return life;
  }

  /** Life 2: a fresh host on the same data directory; the extension says hello with what it knows. */
  async function secondLife(life: Life) {
    const ext = ScriptedExtension.spawn({ home: life.home });
    const hello = life.world.hello(life.workerId);
    ext.setSeq(life.workerId, life.world.seq);
    await ext.hello(hello.bindings, hello.journal);
    const mcp = await connectMcp(life.home);
    return { ext, mcp };
  }

  async function shutdown(ext: ScriptedExtension, mcp: Client) {
    await mcp.close();
    ext.closeStdin();
    await ext.exited;
  }

  function idle(life: Life) {
    life.world.seq += 1;
    life.world.state = "idle";
    life.ext.setSeq(life.workerId, life.world.seq - 1);
    life.ext.observe(life.workerId, "idle");
  }

  function noDuplicates(world: ExtensionWorld, ext: ScriptedExtension) {
    world.track(ext);
    const ids = world.received.map((c) => c.executionId);
    expect(new Set(ids).size, `commands: ${ids.join(", ")}`).toBe(ids.length);
  }

  const getWorker = (mcp: Client, workerId: string) => tool<WorkerOut>(mcp, "worker_get", { workerId });

  /** How many `continuation.warning` events the worker has in the durable log. */
  async function warnings(mcp: Client, workerId: string) {
    const { events } = await tool<{ events: { type: string }[] }>(mcp, "events_list", {
      cursor: 0,
      workerId,
      limit: 500,
    });
    return events.filter((e) => e.type === "continuation.warning").length;
  }

  it("1. idle reported, before the resume is scheduled", async () => {
    const life = await firstLife("idle-received", POLICY, (l) => Promise.resolve(idle(l)));
    const { ext, mcp } = await secondLife(life);
    const resume = await waitFor(() => ext.commandsFor(life.workerId)[0], "the resume");
    expect(resume.executionId).toBe(`${life.workerId}:2`);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("2. resume scheduled, before it reaches the executor", async () => {
    const life = await firstLife("resume-scheduled", POLICY, (l) => Promise.resolve(idle(l)));
    expect(life.world.received).toHaveLength(1);
    const { ext, mcp } = await secondLife(life);
    const resume = await waitFor(
      () => ext.commandsFor(life.workerId)[0],
      "the pending resume, offered again",
    );
    expect(resume.executionId).toBe(`${life.workerId}:2`);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("3. command sent, before its ack: the executor submits it, the new host reconciles without resending", async () => {
    const life = await firstLife("command-sent:2", POLICY, (l) => Promise.resolve(idle(l)));
    const resume = life.world.received[1];
    expect(resume?.executionId).toBe(`${life.workerId}:2`);
    life.world.journal.set(resume!.commandId, { workerId: life.workerId, phase: "submitted" });
    const { ext, mcp } = await secondLife(life);
    const w = await waitFor(async () => {
      const out = await getWorker(mcp, life.workerId);
      return out.worker.attempt?.state === "submitted" ? out : undefined;
    }, "attempt 2 reconciled as submitted");
    expect(w.worker.attempt?.seq).toBe(2);
    expect(ext.commands).toHaveLength(0);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("3b. command submitted and its whole turn ended while no host ran: the new host sees the end and resumes once", async () => {
    const life = await firstLife("command-sent:2", POLICY, (l) => Promise.resolve(idle(l)));
    const resume = life.world.received[1]!;
    life.world.journal.set(resume.commandId, { workerId: life.workerId, phase: "submitted" });
    // The page reported generating, then idle, after the submission; only the newest reaches the next hello.
    life.world.seq += 2;
    life.world.state = "idle";
    const { ext, mcp } = await secondLife(life);
    // Without the end seen, the attempt would sit submitted until the keepalive (10 min): a silent wait.
    const next = await waitFor(() => ext.commandsFor(life.workerId)[0], "the resume after the turn's end");
    expect(next.executionId).toBe(`${life.workerId}:3`);
    const w = await getWorker(mcp, life.workerId);
    expect(w.attempts.find((a) => a.seq === 2)).toMatchObject({ state: "idle" });
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("4. submission started when the host died: AMBIGUOUS_SUBMISSION, paused, never resent", async () => {
    const life = await firstLife("ack-received:2", POLICY, async (l) => {
      idle(l);
      const resume = await waitFor(() => l.ext.commandsFor(l.workerId)[1], "resume");
      l.world.track(l.ext);
      l.world.journal.set(resume.commandId, { workerId: l.workerId, phase: "submission-started" });
      l.ext.send({ kind: "command.ack", commandId: resume.commandId, workerId: l.workerId });
    });
    const { ext, mcp } = await secondLife(life);
    const w = await waitFor(async () => {
      const out = await getWorker(mcp, life.workerId);
      return out.worker.attempt?.state === "failed" ? out : undefined;
    }, "attempt 2 failed as ambiguous");
    expect(w.attempts.at(-1)?.errorCode).toBe("AMBIGUOUS_SUBMISSION");
    // Paused with the error, and a person must look: the turn may or may not be in the conversation.
    expect(w.worker.pause?.source).toBe("error");
    expect(w.worker.label).toBe("Needs you");
    expect(w.worker.liveness).toMatchObject({ state: "held", reason: "delivery_uncertain" });
    expect(ext.commands).toHaveLength(0);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("5. submitted, before the host applied the result", async () => {
    const life = await firstLife("result-received:2", POLICY, async (l) => {
      idle(l);
      const resume = await waitFor(() => l.ext.commandsFor(l.workerId)[1], "resume");
      l.world.track(l.ext);
      l.world.journal.set(resume.commandId, { workerId: l.workerId, phase: "completed" });
      l.ext.submit(resume);
    });
    const { ext, mcp } = await secondLife(life);
    await waitFor(
      async () => (await getWorker(mcp, life.workerId)).worker.attempt?.state === "submitted",
      "reconciled",
    );
    expect(ext.commands).toHaveLength(0);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("6. result applied, before generating is observed: the next idle resumes exactly once", async () => {
    const life = await firstLife("result-applied:2", POLICY, async (l) => {
      idle(l);
      const resume = await waitFor(() => l.ext.commandsFor(l.workerId)[1], "resume");
      l.world.track(l.ext);
      l.world.journal.set(resume.commandId, { workerId: l.workerId, phase: "completed" });
      l.ext.submit(resume);
    });
    life.world.seq += 1;
    life.world.state = "generating";
    const { ext, mcp } = await secondLife(life);
    expect(ext.commands).toHaveLength(0);
    ext.observe(life.workerId, "idle");
    const third = await waitFor(() => ext.commandsFor(life.workerId)[0], "attempt 3");
    expect(third.executionId).toBe(`${life.workerId}:3`);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("7. generating applied, before idle is observed", async () => {
    const life = await firstLife("generating-applied:2", POLICY, async (l) => {
      idle(l);
      const resume = await waitFor(() => l.ext.commandsFor(l.workerId)[1], "resume");
      l.world.track(l.ext);
      l.world.journal.set(resume.commandId, { workerId: l.workerId, phase: "completed" });
      l.ext.submit(resume);
      l.world.seq += 1;
      l.world.state = "generating";
      l.ext.observe(l.workerId, "generating");
    });
    life.world.seq += 1;
    life.world.state = "idle";
    const { ext, mcp } = await secondLife(life);
    const third = await waitFor(() => ext.commandsFor(life.workerId)[0], "attempt 3 after the idle in hello");
    expect(third.executionId).toBe(`${life.workerId}:3`);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("8. idle applied, during the idle grace", async () => {
    const life = await firstLife("idle-applied", { ...POLICY, idleGraceMs: 2_000 }, (l) =>
      Promise.resolve(idle(l)),
    );
    expect(life.world.received).toHaveLength(1);
    const { ext, mcp } = await secondLife(life);
    const resume = await waitFor(() => ext.commandsFor(life.workerId)[0], "the resume after the grace");
    expect(resume.executionId).toBe(`${life.workerId}:2`);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("9. stall pause durable: still paused after restart, no resume", async () => {
    const life = await firstLife("stall-applied", { ...POLICY, stallPauseAfterNoProgressAttempts: 1 }, (l) =>
      Promise.resolve(idle(l)),
    );
    const { ext, mcp } = await secondLife(life);
    const w = await getWorker(mcp, life.workerId);
    expect(w.worker.label).toBe("Stalled");
    expect(w.attempts).toHaveLength(1);
    expect(ext.commands).toHaveLength(0);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("9. stall warning durable: warned once, still runnable, not warned again on the next turn", async () => {
    // The first turn without progress reaches the warning threshold; the pause is far away.
    const life = await firstLife(
      "stall-applied",
      { ...POLICY, stallWarningAfterNoProgressAttempts: 1, stallPauseAfterNoProgressAttempts: 5 },
      (l) => Promise.resolve(idle(l)),
    );
    expect(life.world.received).toHaveLength(1);
    const { ext, mcp } = await secondLife(life);
    const before = await getWorker(mcp, life.workerId);
    expect(before.worker).toMatchObject({ stallWarning: true, noProgressAttempts: 1, pause: null });
    expect(await warnings(mcp, life.workerId)).toBe(1);

    // Still runnable: the idle grace runs out in this life and the resume goes, once.
    const resume = await waitFor(() => ext.commandsFor(life.workerId)[0], "the resume after the warning");
    expect(resume.executionId).toBe(`${life.workerId}:2`);
    ext.submit(resume);
    ext.observe(life.workerId, "generating");
    ext.observe(life.workerId, "idle");
    // A second turn without progress counts, but the warning is not given twice.
    const third = await waitFor(() => ext.commandsFor(life.workerId)[1], "attempt 3");
    expect(third.executionId).toBe(`${life.workerId}:3`);
    const after = await getWorker(mcp, life.workerId);
    expect(after.worker).toMatchObject({ stallWarning: true, noProgressAttempts: 2, pause: null });
    expect(after.worker.label).not.toBe("Stalled");
    expect(await warnings(mcp, life.workerId)).toBe(1);
    noDuplicates(life.world, ext);
    await shutdown(ext, mcp);
  });
});

interface Life {
  readonly home: string;
  readonly ext: ScriptedExtension;
  readonly mcp: Client;
  readonly world: ExtensionWorld;
  readonly workerId: string;
}
