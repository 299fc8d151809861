// The restart matrix for conversation rollover (docs/host.md, "Restart safety"; docs/continuation-core.md,
// "Rollover"): the host is SIGKILLed at each durable step of a move to a new conversation and restarted. Every case must
// end with exactly one new conversation and one first prompt there, or a named hold: never two, never none silently.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import type { CommandMessage } from "../../shared/native-messages.ts";
import type { FaultPoint } from "../../native-host/src/engine/fault-points.ts";
import { connectMcp, removeHome, tempHome, tool } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

const OLD = "https://chatgpt.com/c/0a0a0a0a-0000-4000-8000-00000000000a";
const NEW = "https://chatgpt.com/c/0b0b0b0b-0000-4000-8000-00000000000b";
const OLD_ID = "0a0a0a0a-0000-4000-8000-00000000000a";
const NEW_ID = "0b0b0b0b-0000-4000-8000-00000000000b";
const POLICY = { mode: "auto", idleGraceMs: 100 };
const TOO_LONG = "CONVERSATION_TOO_LONG";

interface WorkerOut {
  worker: {
    status: string;
    attempt: { seq: number; reason: string; state: string } | null;
    pause: { source?: string; errorCode?: string } | null;
    liveness: { state: string; reason: string } | null;
    conversationId?: string | null;
    previousConversationIds?: string[];
    rollover?: { phase: string; trigger: string } | null;
  };
  attempts: { seq: number; reason: string; state: string; errorCode: string | null }[];
}

type Phase = "received" | "submission-started" | "submitted" | "completed";

/** What the browser knows across host lives: the commands it got, its journal, where the worker's tab is. */
class BrowserWorld {
  readonly received: CommandMessage[] = [];
  readonly journal = new Map<string, { workerId: string; phase: Phase; url?: string }>();
  seq = 0;
  url = OLD;
  observed: { state: "generating" | "idle" | "error"; errorCode?: string } = { state: "generating" };

  track(ext: ScriptedExtension): void {
    for (const c of ext.commands) {
      if (this.received.some((r) => r.commandId === c.commandId)) continue;
      this.received.push(c);
      if (!this.journal.has(c.commandId))
        this.journal.set(c.commandId, { workerId: c.workerId, phase: "received" });
    }
  }

  /** The page reports a state in this life (and the next hello repeats it). */
  report(
    ext: ScriptedExtension,
    workerId: string,
    state: "generating" | "idle" | "error",
    errorCode?: string,
  ): void {
    this.seq += 1;
    this.observed = { state, ...(errorCode ? { errorCode } : {}) };
    ext.setSeq(workerId, this.seq - 1);
    ext.observe(workerId, state, errorCode);
  }

  hello(workerId: string) {
    return {
      bindings: [
        {
          workerId,
          binding: "bound" as const,
          url: this.url,
          observed: { ...this.observed, seq: this.seq },
        },
      ],
      journal: [...this.journal].map(([commandId, e]) => ({
        commandId,
        workerId: e.workerId,
        phase: e.phase,
        ...(e.url ? { url: e.url } : {}),
      })),
    };
  }

  creates(): CommandMessage[] {
    return this.received.filter((c) => c.type === "conversation.create");
  }
}

interface Life {
  readonly home: string;
  readonly ext: ScriptedExtension;
  readonly mcp: Client;
  readonly world: BrowserWorld;
  readonly workerId: string;
}

describe("restart matrix for rollover: SIGKILL at each step of the move, restart, converge", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const h of homes.splice(0)) removeHome(h);
  });

  /** Life 1: a worker's bootstrap runs in OLD, then `drive` with the fault armed; the host must die. */
  async function firstLife(fault: FaultPoint | `${FaultPoint}:${number}`, drive: (l: Life) => Promise<void>) {
    const home = tempHome();
    homes.push(home);
    const world = new BrowserWorld();
    const ext = ScriptedExtension.spawn({ home, env: { ORCHESTRATOR_FAULT: fault } });
    await ext.hello();
    const mcp = await connectMcp(home);
    const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", {
      name: "matrix",
      policy: POLICY,
    });
    const { worker } = await tool<{ worker: { id: string } }>(mcp, "worker_spawn", {
      runId: run.id,
      path: "/root",
      objective: "x",
    });
    const bootstrap = await waitFor(() => ext.commandsFor(worker.id)[0], "bootstrap command");
    world.track(ext);
    ext.submit(bootstrap, OLD);
    world.journal.set(bootstrap.commandId, { workerId: worker.id, phase: "completed" });
    world.report(ext, worker.id, "generating");
    const life: Life = { home, ext, mcp, world, workerId: worker.id };
    await drive(life);
    const end = await ext.exited;
    world.track(ext);
    expect(end.signal, `host should die at ${fault}`).toBe("SIGKILL");
    await mcp.close().catch(() => undefined);
    return life;
  }

  /** Life 2: a fresh host on the same data directory; the browser says hello with what it knows. */
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

  const getWorker = (mcp: Client, workerId: string) => tool<WorkerOut>(mcp, "worker_get", { workerId });

  /** The page shows the length-limit notice: an Auto Resume worker starts its move. */
  const hitLimit = (l: Life) => Promise.resolve(l.world.report(l.ext, l.workerId, "error", TOO_LONG));

  /** The browser carries out the create (it journals, opens the new tab and submits there) in `phase`. */
  async function createRuns(l: Life, phase: Phase, report: boolean) {
    const create = await waitFor(
      () =>
        l.ext.commands.find(
          (c) => c.type === "conversation.create" && c.prompt.promptId.startsWith("rollover"),
        ),
      "the rollover's create",
    );
    l.world.track(l.ext);
    l.world.journal.set(create.commandId, {
      workerId: l.workerId,
      phase,
      ...(phase === "received" || phase === "submission-started" ? {} : { url: NEW }),
    });
    if (phase !== "received" && phase !== "submission-started") l.world.url = NEW;
    if (phase === "submission-started")
      l.ext.send({ kind: "command.ack", commandId: create.commandId, workerId: l.workerId });
    if (report) l.ext.submit(create, NEW);
    return create;
  }

  /** Exactly one rollover create across both lives; its execution id never repeats. */
  function oneMove(world: BrowserWorld, ext: ScriptedExtension) {
    world.track(ext);
    const ids = world.received.map((c) => c.executionId);
    expect(new Set(ids).size, `commands: ${ids.join(", ")}`).toBe(ids.length);
    expect(world.creates().filter((c) => c.prompt.promptId.startsWith("rollover"))).toHaveLength(1);
  }

  /** The worker lives in NEW now, OLD recorded before it. */
  async function movedToNew(mcp: Client, workerId: string) {
    const w = await waitFor(async () => {
      const out = await getWorker(mcp, workerId);
      return out.worker.conversationId === NEW_ID ? out : undefined;
    }, "the worker rebound to the new conversation");
    expect(w.worker.previousConversationIds).toEqual([OLD_ID]);
    expect(w.worker.rollover).toBeNull();
    expect(w.worker.status).toBe("active");
    return w;
  }

  it("R1. the move is durable, its create not yet sent: the create goes out once after the restart", async () => {
    const life = await firstLife("rollover-requested", hitLimit);
    expect(life.world.creates()).toHaveLength(1); // the bootstrap only
    const { ext, mcp } = await secondLife(life);
    const create = await waitFor(
      () => ext.commands.find((c) => c.type === "conversation.create"),
      "the create",
    );
    expect(create.prompt.promptId).toBe("rollover@1");
    expect(create.executionId).toBe(`${life.workerId}:2`);
    ext.submit(create, NEW);
    await movedToNew(mcp, life.workerId);
    oneMove(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("R2. the create is scheduled, not yet sent: offered again under the same id", async () => {
    const life = await firstLife("resume-scheduled", hitLimit);
    const { ext, mcp } = await secondLife(life);
    const create = await waitFor(
      () => ext.commands.find((c) => c.type === "conversation.create"),
      "the create",
    );
    expect(create.executionId).toBe(`${life.workerId}:2`);
    ext.submit(create, NEW);
    await movedToNew(mcp, life.workerId);
    oneMove(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("R3. the create reached the browser, which submitted it: reconciled from the journal, nothing resent", async () => {
    const life = await firstLife("command-sent:2", async (l) => {
      await hitLimit(l);
    });
    // The browser had the command; it submitted it in the new tab while the host was down.
    const create = life.world.creates().find((c) => c.prompt.promptId === "rollover@1")!;
    expect(create).toBeDefined();
    life.world.journal.set(create.commandId, { workerId: life.workerId, phase: "submitted", url: NEW });
    life.world.url = NEW;
    const { ext, mcp } = await secondLife(life);
    await movedToNew(mcp, life.workerId);
    expect(ext.commands).toHaveLength(0);
    oneMove(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("R4. the submission had started: ambiguous, held as delivery uncertain, never resent", async () => {
    const life = await firstLife("ack-received:2", async (l) => {
      await hitLimit(l);
      await createRuns(l, "submission-started", false);
    });
    const { ext, mcp } = await secondLife(life);
    const w = await waitFor(async () => {
      const out = await getWorker(mcp, life.workerId);
      return out.worker.attempt?.state === "failed" ? out : undefined;
    }, "the create failed as ambiguous");
    expect(w.attempts.at(-1)?.errorCode).toBe("AMBIGUOUS_SUBMISSION");
    expect(w.worker.status).toBe("active");
    expect(w.worker.liveness).toMatchObject({ state: "held", reason: "delivery_uncertain" });
    expect(ext.commands).toHaveLength(0);
    oneMove(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("R5. submitted, the result not yet applied: reconciled as the move", async () => {
    const life = await firstLife("result-received:2", async (l) => {
      await hitLimit(l);
      await createRuns(l, "completed", true);
    });
    const { ext, mcp } = await secondLife(life);
    await movedToNew(mcp, life.workerId);
    expect(ext.commands).toHaveLength(0);
    oneMove(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("R6. the move is applied: after the restart the worker lives in the new conversation and goes on there", async () => {
    const life = await firstLife("result-applied:2", async (l) => {
      await hitLimit(l);
      await createRuns(l, "completed", true);
    });
    life.world.seq += 1;
    life.world.observed = { state: "generating" };
    const { ext, mcp } = await secondLife(life);
    await movedToNew(mcp, life.workerId);
    expect(ext.commands).toHaveLength(0);
    // The next turn ends in the new conversation: the resume is a send there, not another create.
    ext.observe(life.workerId, "idle");
    const resume = await waitFor(
      () => ext.commandsFor(life.workerId)[0],
      "the resume in the new conversation",
    );
    expect(resume).toMatchObject({ type: "conversation.send", conversationUrl: NEW });
    oneMove(life.world, ext);
    await shutdown(ext, mcp);
  });

  it("R7. the operator's request is durable, the handoff request not yet sent: asked once after the restart", async () => {
    const life = await firstLife("rollover-requested", (l) => {
      l.world.report(l.ext, l.workerId, "idle");
      // Not awaited: the host dies while answering it.
      l.ext.send({
        kind: "ui.request",
        requestId: "rollover-1",
        op: "worker_new_conversation",
        params: { workerId: l.workerId },
      });
      return Promise.resolve();
    });
    const { ext, mcp } = await secondLife(life);
    const handoff = await waitFor(() => ext.commandsFor(life.workerId)[0], "the handoff request");
    expect(handoff).toMatchObject({ type: "conversation.send", conversationUrl: OLD });
    expect(handoff.prompt.promptId).toBe("handoff@1");
    const w = await getWorker(mcp, life.workerId);
    expect(w.worker.rollover).toMatchObject({ phase: "brief_requested", trigger: "operator" });
    const ids = [...life.world.received, ...ext.commands].map((c) => c.executionId);
    expect(new Set(ids).size).toBe(ids.length);
    await shutdown(ext, mcp);
  });
});
