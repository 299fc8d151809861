// The host's tab-slot queue and the browser facts it gives liveness (docs/host.md, "Tab slots"), on the real host
// process with a scripted extension over native-messaging framing. Every wait is a condition with a deadline; a
// command "not sent" is checked after a ui.request round trip on the same port, which the host answers in order.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Liveness } from "../../shared/liveness.ts";
import { connectMcp, exited, removeHome, spawnServe, tempHome, tool } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

interface WorkerOut {
  worker: { id: string; liveness: Liveness | null; attempt: { seq: number; state: string } | null };
  attempts: { seq: number; state: string; errorCode: string | null }[];
}

const POLICY = { mode: "auto", idleGraceMs: 50 };

describe("tab slots in the host", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** A host owned by the browser's own native host, with `maxGenerating` said in hello. */
  async function browserHost(maxGenerating: number) {
    const home = tempHome();
    const ext = ScriptedExtension.spawn({ home });
    await ext.hello([], [], { maxGenerating });
    const mcp = await connectMcp(home);
    cleanup.push(async () => {
      await mcp.close();
      ext.closeStdin();
      await ext.exited;
      removeHome(home);
    });
    return { ext, mcp };
  }

  async function spawnWorkers(mcp: Client, paths: string[]): Promise<string[]> {
    const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", { name: "Run", policy: POLICY });
    const ids: string[] = [];
    for (const path of paths) {
      const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", { runId: run.id, path, objective: path });
      ids.push(worker.id);
    }
    return ids;
  }

  it(
    "holds the fourth create while three tabs are busy, shows its place, and sends it once one goes idle",
    { timeout: 60_000 },
    async () => {
      const { ext, mcp } = await browserHost(3);
      const ids = await spawnWorkers(mcp, ["/root", "/root/a", "/root/b", "/root/c"]);
      const creates = await waitFor(() => {
        const sent = ext.commands.filter((c) => c.type === "conversation.create");
        return sent.length === 3 ? sent : undefined;
      }, "three creates");
      const fourth = ids.find((id) => ext.commandsFor(id).length === 0)!;
      expect(fourth).toBeDefined();

      const queued = await ext.ui<WorkerOut>("worker_get", { workerId: fourth });
      expect(queued.worker.liveness).toMatchObject({ reason: "tab_slot", detail: { position: 1 } });
      const summary = await ext.ui<{ workers: WorkerOut["worker"][] }>("ui_summary", {});
      expect(summary.workers.find((w) => w.id === fourth)?.liveness?.reason).toBe("tab_slot");
      expect(ext.commandsFor(fourth)).toHaveLength(0);

      // Submitted turns hold their slots until the page reports them over, generating or not yet seen.
      for (const create of creates) {
        expect(create.deadlineAt).toBeGreaterThan(Date.now());
        ext.submit(create);
      }
      const stillQueued = await ext.ui<WorkerOut>("worker_get", { workerId: fourth });
      expect(stillQueued.worker.liveness?.reason).toBe("tab_slot");
      for (const create of creates) ext.observe(create.workerId, "generating");
      await ext.ui("worker_get", { workerId: fourth });
      expect(ext.commandsFor(fourth)).toHaveLength(0);

      const changedBefore = ext.received.filter((m) => m.kind === "ui.changed").length;
      ext.observe(creates[0]!.workerId, "idle");
      const late = await waitFor(() => ext.commandsFor(fourth)[0], "the fourth create");
      expect(late.type).toBe("conversation.create");
      expect(late.deadlineAt).toBeGreaterThan(Date.now());
      expect(ext.received.filter((m) => m.kind === "ui.changed").length).toBeGreaterThan(changedBefore);
      ext.submit(late);
      ext.observe(fourth, "generating");

      // All four had their first turn; the fourth's create went out exactly once.
      await waitFor(async () => {
        const views = await Promise.all(
          ids.map((id) => tool<WorkerOut>(mcp, "worker_get", { workerId: id })),
        );
        return views.every((v) => v.attempts[0]?.state !== "scheduled" && v.attempts[0]?.state !== undefined);
      }, "every first turn submitted");
      for (const id of ids) {
        const first = (await tool<WorkerOut>(mcp, "worker_get", { workerId: id })).attempts[0];
        expect(first?.errorCode ?? null).toBeNull();
      }
      await ext.ui("worker_get", { workerId: fourth });
      expect(ext.commandsFor(fourth)).toHaveLength(1);
    },
  );

  it(
    "a pause withdraws a command still waiting for a slot: never sent, the attempt cancelled",
    { timeout: 60_000 },
    async () => {
      const { ext, mcp } = await browserHost(1);
      const [busy, waiting] = await spawnWorkers(mcp, ["/root", "/root/waits"]);
      const create = await waitFor(() => ext.commandsFor(busy!)[0], "the first create");
      const queued = await ext.ui<WorkerOut>("worker_get", { workerId: waiting });
      expect(queued.worker.liveness).toMatchObject({ reason: "tab_slot", detail: { position: 1 } });

      await ext.ui("worker_pause", { workerId: waiting });
      const cancelled = await waitFor(async () => {
        const w = await tool<WorkerOut>(mcp, "worker_get", { workerId: waiting! });
        return w.attempts[0]?.state === "cancelled" ? w.attempts[0] : undefined;
      }, "the withdrawn attempt recorded");
      expect(cancelled.errorCode).toBe("CANCELLED");

      // The slot frees up; the paused worker's command does not go out.
      ext.submit(create);
      ext.observe(busy!, "generating");
      ext.observe(busy!, "idle");
      await waitFor(async () => {
        const w = await ext.ui<WorkerOut>("worker_get", { workerId: busy });
        return w.attempts[0]?.state !== "submitted" && w.attempts[0]?.state !== "generating";
      }, "the first turn over");
      const paused = await ext.ui<WorkerOut>("worker_get", { workerId: waiting });
      expect(paused.worker.liveness?.reason).toBe("paused");
      expect(ext.commandsFor(waiting!)).toHaveLength(0);
      expect(ext.received.filter((m) => m.kind === "command.cancel")).toHaveLength(0);
    },
  );
});

describe("a browser that connects starts the stuck work (owner = orchestrator serve)", () => {
  it(
    "shows Browser not connected, then sends exactly one create with a live deadline on hello",
    { timeout: 90_000 },
    async () => {
      const home = tempHome();
      const serve = spawnServe(home);
      let ext: ScriptedExtension | undefined;
      try {
        const mcp = await connectMcp(home);
        const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", {
          name: "Run",
          policy: POLICY,
        });
        const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", {
          runId: run.id,
          path: "/root",
          objective: "x",
        });
        const before = await tool<WorkerOut>(mcp, "worker_get", { workerId: worker.id });
        expect(before.worker.liveness?.reason).toBe("browser_not_connected");

        ext = ScriptedExtension.spawn({ home });
        await ext.hello();
        const create = await waitFor(() => ext?.commandsFor(worker.id)[0], "the create on hello");
        expect(create.type).toBe("conversation.create");
        expect(create.deadlineAt).toBeGreaterThan(Date.now());
        const sent = await ext.ui<WorkerOut>("worker_get", { workerId: worker.id });
        expect(sent.worker.liveness?.reason).toBe("submitting");
        expect(ext.commands).toHaveLength(1);

        ext.submit(create);
        await waitFor(async () => {
          const w = await tool<WorkerOut>(mcp, "worker_get", { workerId: worker.id });
          return w.attempts[0]?.state === "submitted";
        }, "the first turn submitted");
        expect(ext.commands).toHaveLength(1);
        await mcp.close();
      } finally {
        if (ext) {
          ext.closeStdin();
          await ext.exited;
        }
        serve.kill("SIGTERM");
        await exited(serve);
        removeHome(home);
      }
    },
  );
});
