// The operations keep their contract (shared/operations/): every operation has exactly one contract entry and takes
// its words, schemas and annotations from it, and every answer of a realistic scenario on a real Engine parses with
// its operation's output schema unchanged (nothing missing, nothing extra, nothing of another type).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, recordingLogger, removeDir } from "../../../test/store/helpers.ts";
import {
  CONTRACTS_BY_NAME,
  OPERATION_CONTRACTS,
  type OperationName,
  type OperationOutput,
  type OperationParams,
} from "../../../shared/operations/index.ts";
import { Engine } from "../engine/engine.ts";
import { ALL_OPERATIONS, OPERATIONS } from "./all-operations.ts";
import { invoke } from "./registry.ts";

let dir: string;
let engine: Engine;
const answered = new Set<string>();

beforeEach(async () => {
  dir = makeTempDir("op-contract");
  engine = await Engine.open({ dir, log: recordingLogger().log });
});
afterEach(async () => {
  await engine.close();
  removeDir(dir);
});

/**
 * Calls an operation as a client would (its answer crosses the wire as JSON) and checks the answer against the
 * contract: the output schema parses it and gives back exactly what was sent (a field the schema does not know would
 * be stripped, a missing or mistyped one refused).
 */
async function call<N extends OperationName>(
  name: N,
  params: OperationParams<N>,
): Promise<OperationOutput<N>> {
  const result = await invoke(OPERATIONS, name, params, engine);
  if (!result.ok) throw new Error(`${name}: ${result.error.code} ${result.error.message}`);
  const sent: unknown = JSON.parse(JSON.stringify(result.value));
  const parsed = CONTRACTS_BY_NAME.get(name)!.output.safeParse(sent);
  if (!parsed.success) throw new Error(`${name} answered outside its contract: ${parsed.error.message}`);
  expect(parsed.data, `${name}: the output schema changed the answer`).toEqual(sent);
  answered.add(name);
  return parsed.data as OperationOutput<N>;
}

describe("operations contract", () => {
  it("has one entry per operation, in the same order, and each operation takes everything but run from it", () => {
    expect(ALL_OPERATIONS.map((op) => op.name)).toEqual(OPERATION_CONTRACTS.map((c) => c.name));
    expect(new Set(OPERATION_CONTRACTS.map((c) => c.name)).size).toBe(OPERATION_CONTRACTS.length);
    for (const op of ALL_OPERATIONS) {
      const contract = CONTRACTS_BY_NAME.get(op.name)!;
      expect(Object.keys(op).sort()).toEqual([...Object.keys(contract), "run"].sort());
      for (const key of Object.keys(contract) as (keyof typeof contract)[])
        expect(op[key], `${op.name}.${key}`).toBe(contract[key]);
    }
  });

  it("answers within the output schemas through a whole scenario, for every operation", async () => {
    answered.clear();
    const { run } = await call("run_create", { name: "contract", policy: { mode: "auto" } });
    await call("run_get", { runId: run.id });
    await call("run_list", { includeEnded: true });
    const root = (await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" })).worker!;
    const child = (
      await call("worker_spawn", {
        runId: run.id,
        path: "/root/backend",
        name: "Backend",
        objective: "build it",
        acceptance: ["tests pass"],
        worktrees: ["impl/backend"],
      })
    ).worker!;

    // The browser takes the child's first turn: acknowledged, submitted, generating, then idle with a block.
    const attempt = engine.state.workers[child.id]!.current!;
    const executorId = "browser-1";
    await engine.apply({
      type: "command.acked",
      workerId: child.id,
      commandId: attempt.commandId,
      executorId,
    });
    await engine.apply({
      type: "command.result",
      workerId: child.id,
      commandId: attempt.commandId,
      outcome: "submitted",
      url: "https://chatgpt.com/c/00000000-0000-4000-8000-000000000001",
      executorId,
    });
    await engine.apply({
      type: "conversation.observed",
      workerId: child.id,
      state: "generating",
      seq: 1,
      executorId,
    });
    await engine.apply({
      type: "conversation.observed",
      workerId: child.id,
      state: "idle",
      seq: 2,
      continuationStatus: "working",
      executorId,
    });

    const detail = await call("worker_get", { workerId: child.id });
    expect(detail.attempts.length).toBeGreaterThan(0);
    await call("worker_list", { runId: run.id });
    await call("worker_progress", { workerId: child.id, summary: "half way" });
    const sent = await call("message_send", { toWorkerId: root.id, fromWorkerId: child.id, body: "news" });
    const inbox = await call("message_inbox", { workerId: root.id });
    expect(inbox.messages).toHaveLength(1);
    await call("message_ack", { workerId: root.id, upToSeq: sent.seq! });
    const page = await call("events_list", { cursor: 0, limit: 500 });
    await call("events_wait", { cursor: 0, timeoutMs: 0 });
    expect((await call("events_wait", { cursor: page.cursor, timeoutMs: 0 })).timedOut).toBe(true);

    await call("worker_claim_worktree", { workerId: child.id, worktree: "impl/api" });
    await call("worker_release_worktree", { workerId: child.id, worktree: "impl/api" });
    await call("provenance_get", { worktree: "impl/backend" });
    await call("provenance_get", { conversation: "00000000-0000-4000-8000-000000000001" });

    await call("worker_continue_now", { workerId: child.id });
    await call("worker_steer", { workerId: root.id, text: "focus on the API", key: "api" });
    await call("worker_followup", { workerId: child.id, text: "and the docs" });
    await call("worker_pause", { workerId: child.id, reason: "a look" });
    await call("worker_resume", { workerId: child.id });
    await call("worker_continuation_get", { workerId: child.id });
    await call("worker_continuation_set", {
      workerId: child.id,
      patch: { idleGraceMs: 5_000 },
      reset: ["mode"],
    });
    await call("run_continuation_set_default", { runId: run.id, patch: { mode: "auto" } });
    await call("run_pause_all", { runId: run.id });
    await call("run_resume_all", { runId: run.id });

    const asking = await call("worker_spawn", { runId: run.id, path: "/root/asks", objective: "ask" });
    await call("worker_await_human", {
      workerId: asking.worker!.id,
      reason: "a choice",
      question: "A or B?",
      choices: ["A", "B"],
    });
    await call("ui_summary", {});
    await call("human_resolve", { workerId: asking.worker!.id, answer: "A" });
    await call("worker_await_dependency", {
      workerId: asking.worker!.id,
      condition: "backend done",
      onWorkerIds: [child.id],
    });
    await call("ui_worker_detail", { workerId: child.id, recentEvents: 50 });
    await call("auto_resume_set", { enabled: false });
    await call("auto_resume_set", { enabled: true });

    const url = "https://chatgpt.com/c/00000000-0000-4000-8000-000000000002";
    const adopted = await call("conversation_adopt", { conversationUrl: url, objective: "keep going" });
    expect((await call("conversation_adopt", { conversationUrl: url })).existing).toBe(true);

    // The operator's rollover asks the conversation for a brief; the agent's brief then answers that request.
    expect((await call("worker_new_conversation", { workerId: child.id, reason: "slow" })).rollover).toBe(
      "started",
    );
    await call("worker_rollover", { workerId: child.id, brief: "done: the API; next steps: the docs" });

    await call("worker_complete", { workerId: child.id, summary: "done" });
    await call("worker_fail", { workerId: asking.worker!.id, reason: "not needed" });
    await call("worker_stop", { workerId: adopted.worker.id, reason: "released" });
    await call("run_stop", { runId: run.id, reason: "over" });
    await call("ui_summary", { runId: run.id });

    expect([...answered].sort()).toEqual(OPERATION_CONTRACTS.map((c) => c.name).sort());
  });
});
