// The executor hub in one process on a real Engine with a controlled clock: what a command that waited in the host is
// sent with, the browser facts liveness gets, a raised limit, and the ui.changed that tells open views (docs/host.md).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, recordingLogger, removeDir } from "../../../test/store/helpers.ts";
import { PROTOCOL_VERSION, type CommandMessage, type HostMessage } from "../../../shared/native-messages.ts";
import { Engine } from "../engine/engine.ts";
import { COMMAND_DEADLINE_MS } from "../core/attempts.ts";
import { OPERATIONS } from "../operations/all-operations.ts";
import { invoke } from "../operations/registry.ts";
import { ExecutorHub } from "./executor-hub.ts";

const T0 = 1_800_000_000_000;
let clock = T0;
let dir: string;
let engine: Engine;
let hub: ExecutorHub;

beforeEach(async () => {
  clock = T0;
  dir = makeTempDir("hub");
  const log = recordingLogger().log;
  engine = await Engine.open({ dir, log, now: () => clock });
  hub = new ExecutorHub({ engine, operations: OPERATIONS, hostVersion: "9.9.9", log });
  engine.attach(hub);
});
afterEach(async () => {
  await engine.close();
  removeDir(dir);
});

async function call<T>(op: string, params: unknown): Promise<T> {
  const result = await invoke(OPERATIONS, op, params, engine);
  if (!result.ok) throw new Error(`${op}: ${result.error.code} ${result.error.message}`);
  return result.value as T;
}

async function spawn(paths: string[]): Promise<string[]> {
  const { run } = await call<{ run: { id: string } }>("run_create", { name: "r", policy: { mode: "auto" } });
  const ids: string[] = [];
  for (const path of paths) {
    ids.push(
      (await call<{ worker: { id: string } }>("worker_spawn", { runId: run.id, path, objective: path }))
        .worker.id,
    );
  }
  return ids;
}

/** A connected executor whose messages the hub handles in order; `sent` is what the hub sent it. */
async function executor(maxGenerating?: number) {
  const sent: HostMessage[] = [];
  const session = hub.connect({ label: "test", send: (m) => sent.push(m) });
  await session.receive({
    kind: "hello",
    protocolVersion: PROTOCOL_VERSION,
    executorId: "exec-1",
    browser: "chromium",
    extensionVersion: "0.1.0",
    bindings: [],
    journal: [],
    ...(maxGenerating !== undefined ? { maxGenerating } : {}),
  });
  const commands = () => sent.filter((m): m is CommandMessage & HostMessage => m.kind === "command");
  return { session, sent, commands };
}

const liveness = async (workerId: string) =>
  (
    await call<{ worker: { liveness: { reason: string; detail?: { position?: number } } | null } }>(
      "worker_get",
      { workerId },
    )
  ).worker.liveness;

describe("ExecutorHub tab slots and liveness facts", () => {
  it("sends a command that waited for a browser with a deadline counted from when it is sent", async () => {
    const [id] = await spawn(["/root"]);
    expect(hub.livenessEnv().browser).toEqual({ connected: false, since: T0 });
    expect(await liveness(id!)).toMatchObject({ reason: "browser_not_connected" });

    clock = T0 + 10 * 60_000; // far past the deadline the core set when it scheduled the attempt
    const ext = await executor();
    const [create] = ext.commands();
    expect(create).toMatchObject({ type: "conversation.create", deadlineAt: clock + COMMAND_DEADLINE_MS });
    expect(hub.livenessEnv().browser).toEqual({ connected: true, since: clock });
    expect(hub.livenessEnv().dispatch(id!)).toEqual({
      kind: "sent",
      deadlineAt: clock + COMMAND_DEADLINE_MS,
    });
    expect(await liveness(id!)).toMatchObject({ reason: "submitting" });
    // The connection changed what liveness shows: open views are told (no event was appended for it).
    expect(ext.sent.some((m) => m.kind === "ui.changed")).toBe(true);

    clock += 1_000;
    ext.session.close();
    expect(hub.livenessEnv().browser).toEqual({ connected: false, since: clock });
  });

  it("queues beyond the executor's limit with its place, and a raised limit sends the next at once", async () => {
    const ext = await executor(1);
    const [first, second, third] = await spawn(["/root", "/root/a", "/root/b"]);
    expect(ext.commands().map((c) => c.workerId)).toEqual([first]);
    expect(hub.livenessEnv().dispatch(second!)).toEqual({ kind: "queued", position: 1, since: clock });
    expect(await liveness(third!)).toMatchObject({ reason: "tab_slot", detail: { position: 2 } });

    const changes = ext.sent.filter((m) => m.kind === "ui.changed").length;
    await ext.session.receive({ kind: "executor.settings", maxGenerating: 2 });
    expect(ext.commands().map((c) => c.workerId)).toEqual([first, second]);
    expect(await liveness(third!)).toMatchObject({ reason: "tab_slot", detail: { position: 1 } });
    expect(ext.sent.filter((m) => m.kind === "ui.changed").length).toBeGreaterThan(changes);

    // A refused command frees its slot: the third goes.
    await ext.session.receive({
      kind: "command.result",
      commandId: ext.commands()[0]!.commandId,
      workerId: first,
      outcome: "failed",
      errorCode: "TAB_CLOSED",
    });
    expect(ext.commands().map((c) => c.workerId)).toEqual([first, second, third]);
  });
});

describe("ExecutorHub routing of a conversation without a tab", () => {
  it("a browser whose hello says the conversation is detached gets its commands (it reopens the tab)", async () => {
    const url = "https://chatgpt.com/c/0b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    const { worker } = await call<{ worker: { id: string } }>("conversation_adopt", { conversationUrl: url });
    const sent: HostMessage[] = [];
    const session = hub.connect({ label: "test", send: (m) => sent.push(m) });
    await session.receive({
      kind: "hello",
      protocolVersion: PROTOCOL_VERSION,
      executorId: "exec-1",
      browser: "chromium",
      extensionVersion: "0.1.0",
      bindings: [{ workerId: worker.id, binding: "detached", url, observed: { state: "idle", seq: 1 } }],
      journal: [],
    });
    const commands = sent.filter((m): m is CommandMessage & HostMessage => m.kind === "command");
    expect(commands.map((c) => [c.workerId, c.type])).toEqual([[worker.id, "conversation.send"]]);
  });
});

describe("ExecutorHub gives an ended worker's tab back", () => {
  const url = "https://chatgpt.com/c/1b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";

  async function bound() {
    const { worker } = await call<{ worker: { id: string } }>("conversation_adopt", { conversationUrl: url });
    const sent: HostMessage[] = [];
    const session = hub.connect({ label: "test", send: (m) => sent.push(m) });
    const hello = (workerId: string) =>
      session.receive({
        kind: "hello",
        protocolVersion: PROTOCOL_VERSION,
        executorId: "exec-1",
        browser: "chromium",
        extensionVersion: "0.1.0",
        bindings: [{ workerId, binding: "bound", url }],
        journal: [],
      });
    return { workerId: worker.id, sent, hello, session };
  }

  it("a hello that lists an unknown worker's binding gets it released; an ended worker's binding stays", async () => {
    const { workerId, sent, hello } = await bound();
    await call("worker_stop", { workerId, reason: "done here" });
    await hello(workerId);
    await hello("no-such-worker");
    expect(sent.filter((m) => m.kind === "binding.release")).toEqual([
      { kind: "binding.release", workerId: "no-such-worker" },
    ]);
  });
});

describe("ExecutorHub routes from durable state", () => {
  it("a new conversation's browser is recorded by the core when its create is sent, and survives a restart", async () => {
    const ext = await executor();
    const [id] = await spawn(["/root"]);
    expect(ext.commands().map((c) => c.workerId)).toEqual([id]);
    expect(engine.state.workers[id!]!.conversation.executorId).toBe("exec-1");
    await engine.durable();
    await engine.close();
    engine = await Engine.open({ dir, log: recordingLogger().log, now: () => clock });
    expect(engine.state.workers[id!]!.conversation.executorId).toBe("exec-1");
  });
});

describe("ExecutorHub records who adopted a conversation", () => {
  /** A connected executor with its own id. */
  async function browser(executorId: string) {
    const sent: HostMessage[] = [];
    const session = hub.connect({ label: executorId, send: (m) => sent.push(m) });
    await session.receive({
      kind: "hello",
      protocolVersion: PROTOCOL_VERSION,
      executorId,
      browser: "chromium",
      extensionVersion: "0.1.0",
      bindings: [],
      journal: [],
    });
    const adopt = async (requestId: string, conversationUrl: string) => {
      await session.receive({
        kind: "ui.request",
        requestId,
        op: "conversation_adopt",
        params: { conversationUrl },
      });
      const answer = sent.find((m) => m.kind === "ui.response" && m.requestId === requestId);
      if (answer?.kind !== "ui.response" || !answer.ok)
        throw new Error(`adopt failed: ${JSON.stringify(answer)}`);
      return (answer.result as { worker: { id: string }; existing?: true }).worker.id;
    };
    return { adopt };
  }

  it("the asking browser holds the adopted worker, and adopting it again from another browser moves it there", async () => {
    const url = "https://chatgpt.com/c/1b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    const first = await browser("exec-1");
    const second = await browser("exec-2");
    const id = await second.adopt("r1", url);
    expect(engine.state.workers[id]!.conversation.executorId).toBe("exec-2");
    expect(await first.adopt("r2", url)).toBe(id);
    expect(engine.state.workers[id]!.conversation.executorId).toBe("exec-1");
  });
});
