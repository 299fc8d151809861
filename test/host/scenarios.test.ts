// The end-to-end scenarios (docs/e2e.md) at the protocol level: the real host process, a scripted extension on its stdio and an
// agent calling MCP tools over HTTP. Short policy timings; every wait is a condition with a deadline.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectMcp, exited, removeHome, spawnServe, tempHome, tool } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

interface WorkerOut {
  worker: {
    id: string;
    label: string;
    attempt: { seq: number; state: string } | null;
    pendingContinuation: unknown;
  };
  attempts: { seq: number; reason: string; state: string }[];
}

const FAST = { mode: "auto", idleGraceMs: 50 };

describe("host scenarios (protocol level)", () => {
  let home: string;
  let ext: ScriptedExtension;
  let mcp: Client;

  beforeEach(async () => {
    home = tempHome();
    ext = ScriptedExtension.spawn({ home });
    await ext.hello();
    mcp = await connectMcp(home);
  });

  afterEach(async () => {
    await mcp.close();
    ext.closeStdin();
    await ext.exited;
    removeHome(home);
  });

  async function spawnWorker(path = "/root", runId?: string, policy: Record<string, unknown> = FAST) {
    const rid =
      runId ?? (await tool<{ run: { id: string } }>(mcp, "run_create", { name: "Run", policy })).run.id;
    const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", {
      runId: rid,
      path,
      objective: `work at ${path}`,
    });
    const create = await waitFor(() => ext.commandsFor(worker.id)[0], "conversation.create");
    expect(create.type).toBe("conversation.create");
    ext.submit(create);
    ext.observe(worker.id, "generating");
    return { runId: rid, workerId: worker.id };
  }

  const getWorker = (id: string) => tool<WorkerOut>(mcp, "worker_get", { workerId: id });

  it("primary: attempts 2 and 3 are automatic, worker_complete ends it, no attempt 4", async () => {
    const { workerId } = await spawnWorker();
    for (let n = 2; n <= 3; n++) {
      await tool(mcp, "worker_progress", { workerId, summary: `step ${n - 1}` });
      ext.observe(workerId, "idle");
      const next = await waitFor(() => ext.commandsFor(workerId)[n - 1], `attempt ${n}`);
      expect(next).toMatchObject({
        type: "conversation.send",
        conversationUrl: `https://chatgpt.com/c/${workerId}`,
      });
      ext.submit(next);
      ext.observe(workerId, "generating");
    }
    await tool(mcp, "worker_complete", { workerId, summary: "done" });
    ext.observe(workerId, "idle");
    const done = await waitFor<WorkerOut>(async () => {
      const w = await getWorker(workerId);
      return w.worker.attempt?.state === "completed" ? w : undefined;
    }, "attempt 3 completed");
    expect(done.worker).toMatchObject({ label: "Complete", pendingContinuation: null });
    expect(done.attempts.map((a) => a.reason)).toEqual(["initial", "auto_resume", "auto_resume"]);
    expect(ext.commandsFor(workerId)).toHaveLength(3);
  });

  it("human block: Needs you, no resume until resolved, then exactly one turn with the answer", async () => {
    const { workerId } = await spawnWorker();
    await tool(mcp, "worker_await_human", { workerId, reason: "choice", question: "Postgres or SQLite?" });
    ext.observe(workerId, "idle");
    await waitFor(
      async () => (await getWorker(workerId)).worker.attempt?.state === "blocked",
      "attempt blocked",
    );
    expect((await ext.ui<WorkerOut>("worker_get", { workerId })).worker.label).toBe("Needs you");
    expect(ext.commandsFor(workerId)).toHaveLength(1);
    await ext.ui("human_resolve", { workerId, answer: "SQLite" });
    const answer = await waitFor(() => ext.commandsFor(workerId)[1], "the answer turn");
    expect(answer.prompt.text).toContain("SQLite");
    expect(ext.commandsFor(workerId)).toHaveLength(2);
  });

  it("pause after the current turn, then Continue now resumes the same conversation exactly once", async () => {
    const { workerId } = await spawnWorker();
    await ext.ui("worker_pause", { workerId });
    ext.observe(workerId, "idle");
    await waitFor(async () => (await getWorker(workerId)).worker.attempt?.state === "idle", "turn ended");
    expect((await getWorker(workerId)).worker.label).toBe("Paused");
    expect(ext.commandsFor(workerId)).toHaveLength(1);
    const first = await ext.ui<{ coalesced: boolean }>("worker_continue_now", { workerId, clearPause: true });
    expect(first.coalesced).toBe(false);
    const resume = await waitFor(() => ext.commandsFor(workerId)[1], "manual resume");
    expect(resume.conversationUrl).toBe(`https://chatgpt.com/c/${workerId}`);
    const second = await ext.ui<{ coalesced: boolean }>("worker_continue_now", {
      workerId,
      clearPause: true,
    });
    expect(second.coalesced).toBe(true);
    expect(ext.commandsFor(workerId)).toHaveLength(2);
    const w = await getWorker(workerId);
    expect(w.attempts.at(-1)?.reason).toBe("manual_resume");
  });

  it("root with two children: a child's progress wakes root once root's turn ends", async () => {
    const root = await spawnWorker("/root");
    const api = await spawnWorker("/root/api", root.runId);
    const ui = await spawnWorker("/root/ui", root.runId);
    await tool(mcp, "worker_progress", { workerId: api.workerId, summary: "API merged at abc123" });
    expect(ext.commandsFor(root.workerId)).toHaveLength(1);
    ext.observe(root.workerId, "idle");
    const wake = await waitFor(() => ext.commandsFor(root.workerId)[1], "root wake");
    expect(wake.prompt.text).toContain("/root/api");
    ext.submit(wake);
    ext.observe(root.workerId, "generating");
    await tool(mcp, "worker_complete", { workerId: api.workerId });
    await tool(mcp, "worker_complete", { workerId: ui.workerId });
    await tool(mcp, "worker_complete", { workerId: root.workerId, summary: "integrated" });
    ext.observe(root.workerId, "idle");
    await waitFor(
      async () => (await getWorker(root.workerId)).worker.attempt?.state === "completed",
      "root done",
    );
    expect(ext.commandsFor(root.workerId)).toHaveLength(2);
    const run = await tool<{ run: { status: string } }>(mcp, "run_get", { runId: root.runId });
    expect(run.run.status).toBe("completed");
  });

  it("a delivery timeout is answered by one fresh `continue`, never a retry", async () => {
    const { workerId } = await spawnWorker();
    ext.observe(workerId, "error", "MESSAGE_DELIVERY_TIMEOUT");
    const fresh = await waitFor(() => ext.commandsFor(workerId)[1], "fresh continue");
    expect(fresh).toMatchObject({ type: "conversation.send", prompt: { text: "continue" } });
    ext.observe(workerId, "error", "MESSAGE_DELIVERY_TIMEOUT");
    await tool(mcp, "worker_get", { workerId });
    expect(ext.commandsFor(workerId)).toHaveLength(2);
  });
});

describe("executor absent for a while (owner = orchestrator serve, executors relay)", () => {
  /** Runs `body` against `orchestrator serve` on a fresh home with an MCP client; everything is torn down after. */
  async function withServe(body: (home: string, mcp: Client) => Promise<void>): Promise<void> {
    const home = tempHome();
    const serve = spawnServe(home);
    try {
      const mcp = await connectMcp(home);
      await body(home, mcp);
      await mcp.close();
    } finally {
      serve.kill("SIGTERM");
      await exited(serve);
      removeHome(home);
    }
  }

  it("a worker that completes while its resume waits for a browser: withdrawn on hello, never sent", async () => {
    await withServe(async (home, mcp) => {
      const getWorker = (id: string) => tool<WorkerOut>(mcp, "worker_get", { workerId: id });
      let ext = ScriptedExtension.spawn({ home });
      await ext.hello();
      const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", {
        name: "Run",
        policy: { mode: "auto", idleGraceMs: 50 },
      });
      const spawnOne = async (path: string) => {
        const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", {
          runId: run.id,
          path,
          objective: "x",
        });
        const create = await waitFor(() => ext.commandsFor(worker.id)[0], `create ${path}`);
        ext.submit(create);
        ext.observe(worker.id, "generating");
        ext.observe(worker.id, "idle");
        return worker.id;
      };
      // `never` ends before its resume reaches a browser; `held` has its resume in the journal, not started.
      const never = await spawnOne("/root");
      const held = await spawnOne("/root/held");
      const resume = await waitFor(() => ext.commandsFor(held)[1], "held's resume");
      ext.closeStdin();
      await ext.exited;
      await waitFor(
        async () => (await getWorker(never)).worker.attempt?.seq === 2,
        "never's resume scheduled",
      );
      await tool(mcp, "worker_complete", { workerId: never, summary: "done elsewhere" });
      await tool(mcp, "worker_complete", { workerId: held, summary: "done" });

      ext = ScriptedExtension.spawn({ home });
      const bound = (id: string) => ({ workerId: id, binding: "bound" as const });
      await ext.hello(
        [bound(never), bound(held)],
        [{ commandId: resume.commandId, workerId: held, phase: "received" }],
      );
      const cancel = await waitFor(
        () => ext.received.find((m) => m.kind === "command.cancel"),
        "cancel of the held resume",
      );
      expect(cancel).toMatchObject({ commandId: resume.commandId, workerId: held });
      const closed = await waitFor(async () => {
        const w = await getWorker(never);
        return w.worker.attempt?.state === "cancelled" ? w : undefined;
      }, "never's resume closed as not delivered");
      expect(closed.attempts.map((a) => a.state)).toEqual(["idle", "cancelled"]);
      expect(ext.commands).toHaveLength(0);
      // The executor's answer to the cancel closes the other one.
      ext.send({
        kind: "command.result",
        commandId: resume.commandId,
        workerId: held,
        outcome: "failed",
        errorCode: "CANCELLED",
      });
      await waitFor(
        async () => (await getWorker(held)).worker.attempt?.state === "cancelled",
        "held's resume closed",
      );
      ext.closeStdin();
      await ext.exited;
    });
  }, 90_000); // three host processes start in turn: slow on a loaded 2-core machine

  it("submits once after the executor returns, and not again on a later reconnect", async () => {
    await withServe(async (home, mcp) => {
      let ext = ScriptedExtension.spawn({ home });
      await ext.hello();
      const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", {
        name: "Run",
        policy: { mode: "auto", idleGraceMs: 300 },
      });
      const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", {
        runId: run.id,
        path: "/root",
        objective: "x",
      });
      const create = await waitFor(() => ext.commandsFor(worker.id)[0], "create");
      ext.submit(create);
      ext.observe(worker.id, "generating");
      ext.observe(worker.id, "idle");
      ext.closeStdin();
      await ext.exited;
      // The grace ends while no executor is connected: the resume is scheduled and stays pending.
      await waitFor(
        async () =>
          (await tool<WorkerOut>(mcp, "worker_get", { workerId: worker.id })).worker.attempt?.seq === 2,
        "attempt 2 scheduled",
      );
      ext = ScriptedExtension.spawn({ home });
      ext.setSeq(worker.id, 2);
      await ext.hello([{ workerId: worker.id, binding: "bound", url: `https://chatgpt.com/c/${worker.id}` }]);
      const resume = await waitFor(() => ext.commandsFor(worker.id)[0], "the pending resume");
      expect(resume.prompt).toBeDefined();
      ext.send({ kind: "command.ack", commandId: resume.commandId, workerId: worker.id });
      ext.closeStdin();
      await ext.exited;
      // Reconnecting with the command in the journal (received, not yet submitted): nothing is sent again.
      ext = ScriptedExtension.spawn({ home });
      await ext.hello(
        [{ workerId: worker.id, binding: "bound" }],
        [{ commandId: resume.commandId, workerId: worker.id, phase: "received" }],
      );
      await tool(mcp, "worker_get", { workerId: worker.id });
      expect(ext.commands).toHaveLength(0);
      ext.closeStdin();
      await ext.exited;
    });
  }, 90_000); // three host processes start in turn: slow on a loaded 2-core machine
});
