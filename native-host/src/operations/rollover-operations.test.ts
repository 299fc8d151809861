// worker_rollover (the agent, with its brief) and worker_new_conversation (the operator) through the operations layer
// on a real Engine (sql.js on disk): what each answers, the command each starts, the refusals, and that the brief
// reaches the new conversation's first prompt without ever being written to the data directory.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, recordingLogger, removeDir } from "../../../test/store/helpers.ts";
import type { OperationName, OperationOutput, OperationParams } from "../../../shared/operations/index.ts";
import type { ExecutorCommand } from "../core/effects.ts";
import { CONNECTED_ENV } from "../core/liveness.ts";
import { Engine } from "../engine/engine.ts";
import { OPERATIONS } from "./all-operations.ts";
import { invoke } from "./registry.ts";

const EXECUTOR = "browser-1";
const FIRST_URL = "https://chatgpt.com/c/00000000-0000-4000-8000-0000000000a1";
/** Words that occur nowhere else, so finding them anywhere in the data directory means the brief was stored. */
const BRIEF = "done: parser merged; next steps: wire the zebrafinch endpoint; files touched: src/quokka.ts";
/** Likewise for the objective, which is stored: the scan of the data directory must find it, or it proves nothing. */
const OBJECTIVE = "build the marmoset parser";

let dir: string;
let engine: Engine;
let dispatched: ExecutorCommand[];
let observedSeq: number;
/** The engine's clock: moved by hand, so nothing is due unless the test makes it so. */
let now: number;

async function open(): Promise<void> {
  engine = await Engine.open({ dir, log: recordingLogger().log, now: () => now });
  engine.attach({
    dispatch: (command) => dispatched.push(command),
    cancel: () => undefined,
    changed: () => undefined,
    storeHealth: () => undefined,
    livenessEnv: () => CONNECTED_ENV,
  });
}

beforeEach(async () => {
  dir = makeTempDir("rollover-ops");
  dispatched = [];
  observedSeq = 0;
  now = 1_000_000;
  await open();
});
afterEach(async () => {
  await engine.close();
  removeDir(dir);
});

async function call<N extends OperationName>(
  name: N,
  params: OperationParams<N>,
): Promise<OperationOutput<N>> {
  const result = await invoke(OPERATIONS, name, params, engine);
  if (!result.ok) throw new Error(`${name}: ${result.error.code} ${result.error.message}`);
  return result.value as OperationOutput<N>;
}

/** The refusal's code, after checking that it changed nothing: no event, no command. */
async function refused(name: OperationName, params: unknown): Promise<string> {
  const seq = engine.lastEventSeq();
  const commands = dispatched.length;
  const result = await invoke(OPERATIONS, name, params, engine);
  if (result.ok) throw new Error(`${name} ${JSON.stringify(params)} was accepted`);
  expect(engine.lastEventSeq()).toBe(seq);
  expect(dispatched).toHaveLength(commands);
  return result.error.code;
}

async function apply(input: Parameters<Engine["apply"]>[0]): Promise<void> {
  const result = await engine.apply(input);
  if (result.error) throw new Error(`${input.type}: ${result.error.code} ${result.error.message}`);
}

/** Time passes and the timer's tick runs. */
async function advance(ms: number): Promise<void> {
  now += ms;
  await apply({ type: "tick" });
}

async function observe(workerId: string, state: "generating" | "idle"): Promise<void> {
  observedSeq += 1;
  await apply({
    type: "conversation.observed",
    workerId,
    state,
    seq: observedSeq,
    executorId: EXECUTOR,
    ...(state === "idle" ? { continuationStatus: "working" as const } : {}),
  });
}

/** The browser takes the command: acknowledged, then proven submitted (into `url` for a new chat). */
async function submit(command: ExecutorCommand, url?: string): Promise<void> {
  const { workerId, commandId } = command;
  await apply({ type: "command.acked", workerId, commandId, executorId: EXECUTOR });
  await apply({
    type: "command.result",
    workerId,
    commandId,
    outcome: "submitted",
    ...(url ? { url } : {}),
    executorId: EXECUTOR,
  });
}

/**
 * A worker of a manual run whose first turn went out into FIRST_URL and ended a while ago (its idle grace is over):
 * bound, idle, nothing scheduled (manual mode starts no turn by itself, so every command after this is the rollover's).
 */
async function idleWorker(): Promise<string> {
  const { run } = await call("run_create", { name: "rollover", policy: { mode: "manual" } });
  await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" });
  const { worker } = await call("worker_spawn", {
    runId: run.id,
    path: "/root/parser",
    objective: OBJECTIVE,
  });
  const id = worker!.id;
  const bootstrap = dispatched.find((c) => c.workerId === id)!;
  expect(bootstrap.type).toBe("conversation.create");
  await submit(bootstrap, FIRST_URL);
  await observe(id, "generating");
  await observe(id, "idle");
  await advance(60_000);
  expect(commandsOf(id)).toHaveLength(1);
  const got = await call("worker_get", { workerId: id });
  expect(got.worker).toMatchObject({ conversation: { state: "idle" }, attempt: { state: "idle" } });
  return id;
}

const commandsOf = (workerId: string) => dispatched.filter((c) => c.workerId === workerId);

/** Every byte of the data directory (journal, snapshot, archive, marks), as text. */
function dataDirText(): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString("latin1"))
    .join("\n");
}

describe("worker_rollover (the agent)", () => {
  it("starts at once with the agent's brief: a new chat whose first prompt carries it, and nothing of it on disk", async () => {
    const id = await idleWorker();
    const before = commandsOf(id).length;

    const out = await call("worker_rollover", { workerId: id, brief: BRIEF, reason: "getting slow" });
    expect(out.rollover).toBe("started");
    expect(out.worker!.id).toBe(id);
    expect(out.worker!.rollover).toMatchObject({
      phase: "opening",
      trigger: "agent",
      note: "getting slow",
      briefDeadlineAt: null,
    });

    const sent = commandsOf(id).slice(before);
    expect(sent).toHaveLength(1);
    const create = sent[0]!;
    expect(create.type).toBe("conversation.create");
    expect(create.prompt).toMatchObject({ kind: "rollover", reason: "rollover" });
    expect(create.rendered.promptId).toBe("rollover@1");
    expect(create.rendered.text).toContain(BRIEF);
    expect(create.rendered.text).toContain(id);
    // The new chat opens where the old one was: a plain chat here, not the old conversation.
    expect(create.conversationUrl).not.toBe(FIRST_URL);

    const events = engine.eventsAfter(0, 1_000, { workerId: id }).filter((e) => e.type.includes("rollover"));
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        "worker.rollover_requested",
        { trigger: "agent", phase: "opening", note: "getting slow", briefChars: BRIEF.length },
      ],
    ]);

    // The data directory holds the worker (its objective) but not one word of the brief, and neither does the state
    // a restart reads back.
    await engine.durable();
    const onDisk = dataDirText();
    expect(onDisk).toContain(OBJECTIVE);
    expect(onDisk).not.toContain("zebrafinch");
    await engine.close();
    await open();
    expect(JSON.stringify(engine.state)).toContain(OBJECTIVE);
    expect(JSON.stringify(engine.state)).not.toContain("zebrafinch");
    expect(engine.state.workers[id]!.rollover).toMatchObject({ phase: "opening", trigger: "agent" });
  });

  it("refuses an unknown worker, an ended one and an empty brief, changing nothing", async () => {
    const id = await idleWorker();
    expect(await refused("worker_rollover", { workerId: "no-such-worker", brief: BRIEF })).toBe("NOT_FOUND");
    expect(await refused("worker_rollover", { workerId: id, brief: "" })).toBe("INVALID_INPUT");
    expect(await refused("worker_rollover", { workerId: id, brief: " \n\t " })).toBe("INVALID_INPUT");
    expect(await refused("worker_rollover", { workerId: id })).toBe("INVALID_INPUT");
    expect(engine.state.workers[id]!.rollover).toBeUndefined();

    await call("worker_stop", { workerId: id, reason: "enough" });
    expect(await refused("worker_rollover", { workerId: id, brief: BRIEF })).toBe("WORKER_TERMINAL");
    expect(await refused("worker_new_conversation", { workerId: id })).toBe("WORKER_TERMINAL");
    expect(await refused("worker_new_conversation", { workerId: "no-such-worker" })).toBe("NOT_FOUND");
  });
});

describe("worker_new_conversation (the operator)", () => {
  it("asks the idle conversation once for its brief; a second request joins it; the agent's brief answers it", async () => {
    const id = await idleWorker();
    const before = commandsOf(id).length;

    const out = await call("worker_new_conversation", { workerId: id, reason: "too long" });
    expect(out.rollover).toBe("started");
    expect(out.worker!.rollover).toMatchObject({
      phase: "brief_requested",
      trigger: "operator",
      note: "too long",
    });
    expect(out.worker!.rollover!.briefDeadlineAt).toBeGreaterThan(out.worker!.rollover!.since);

    const [handoff, ...more] = commandsOf(id).slice(before);
    expect(more).toEqual([]);
    expect(handoff!.type).toBe("conversation.send");
    expect(handoff!.conversationUrl).toBe(FIRST_URL);
    expect(handoff!.prompt).toMatchObject({ kind: "handoff", reason: "handoff" });
    expect(handoff!.rendered.promptId).toBe("handoff@1");
    expect(handoff!.rendered.text).toContain("BEGIN HANDOFF BRIEF");

    // Asked again (a second click, the overlay and the dashboard): nothing new starts.
    const again = await call("worker_new_conversation", { workerId: id });
    expect(again.rollover).toBe("already_under_way");
    expect(again.worker!.rollover).toMatchObject({ phase: "brief_requested", trigger: "operator" });
    expect(commandsOf(id).slice(before)).toHaveLength(1);

    // The handoff turn runs, and the agent answers it through the tool (as its prompt allows) instead of the block.
    await submit(handoff!);
    await observe(id, "generating");
    const answered = await call("worker_rollover", { workerId: id, brief: BRIEF });
    expect(answered.rollover).toBe("brief_received");
    expect(answered.worker!.rollover).toMatchObject({
      phase: "opening",
      trigger: "operator",
      note: "too long",
    });
    expect(answered.worker!.rollover!.briefDeadlineAt).toBeNull();
    // Nothing opens while the old conversation is still writing; after its turn's end (and the idle grace) the new
    // one opens with the brief.
    expect(commandsOf(id).slice(before)).toHaveLength(1);
    await observe(id, "idle");
    await advance(60_000);
    const opened = commandsOf(id).slice(before + 1);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.type).toBe("conversation.create");
    expect(opened[0]!.rendered.promptId).toBe("rollover@1");
    expect(opened[0]!.rendered.text).toContain(BRIEF);
  });
});
