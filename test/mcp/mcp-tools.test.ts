// The operations as MCP tools through the official SDK client over HTTP: the listing, a realistic worker flow, and bad
// input of every kind answered as an `isError` result with a code while the state stays exactly as it was.
import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { failingDisk } from "../store/helpers.ts";
import { waitFor } from "../wait-for.ts";
import { call, callRaw, type Harness, startHarness, textOf } from "./helpers.ts";

let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await startHarness();
  client = await h.client();
});
afterAll(() => h.close());

interface WorkerOut {
  id: string;
  status: string;
  label: string;
  summary: string | null;
  lastProgressAt: number | null;
}
interface EventOut {
  seq: number;
  type: string;
  workerId?: string;
}

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

/** Runs `fn` and asserts that neither the domain state nor the event log moved. */
async function expectUnchanged(fn: () => Promise<void>): Promise<void> {
  const state = structuredClone(h.backend.state);
  const seq = h.backend.lastEventSeq();
  await fn();
  expect(h.backend.state).toEqual(state);
  expect(h.backend.lastEventSeq()).toBe(seq);
}

async function expectError(name: string, args: unknown, code: string): Promise<string> {
  const result = await callRaw(client, name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)} → ${textOf(result)}`).toBe(true);
  expect(textOf(result)).toMatch(new RegExp(`^${code}: `));
  expect(result.structuredContent).toMatchObject({ error: { code } });
  return textOf(result);
}

describe("tools/list", () => {
  it("lists every operation with its title, description, strict input schema and exact annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_OPERATIONS.map((op) => op.name));
    for (const op of ALL_OPERATIONS) {
      const tool = tools.find((t) => t.name === op.name)!;
      expect(tool.title).toBe(op.title);
      expect(tool.description).toBe(op.description);
      expect(tool.annotations).toEqual({ title: op.title, ...op.annotations });
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(tool.inputSchema.type).toBe("object");
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(op.input).sort());
      expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);
    }
    for (const required of [
      "run_create",
      "run_get",
      "run_list",
      "run_stop",
      "run_pause_all",
      "run_resume_all",
      "run_continuation_set_default",
      "worker_spawn",
      "worker_get",
      "worker_list",
      "worker_progress",
      "worker_complete",
      "worker_fail",
      "worker_await_human",
      "worker_await_dependency",
      "worker_pause",
      "worker_resume",
      "worker_continue_now",
      "worker_rollover",
      "worker_new_conversation",
      "worker_stop",
      "worker_followup",
      "worker_continuation_get",
      "worker_continuation_set",
      "message_send",
      "events_wait",
      "events_list",
      "human_resolve",
    ]) {
      expect(
        tools.some((t) => t.name === required),
        required,
      ).toBe(true);
    }
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
    expect(readOnly).toContain("events_wait");
    expect(readOnly).not.toContain("worker_complete");
  });

  it("sets all four hints explicitly on every tool, with values true to what it does", async () => {
    const { tools } = await client.listTools();
    const hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
    for (const tool of tools) {
      // ChatGPT treats a missing readOnlyHint as a write, and its app review rejects unset destructive/openWorld hints.
      for (const hint of hints)
        expect(typeof tool.annotations?.[hint], `${tool.name} ${hint}`).toBe("boolean");
      expect(tool.annotations?.title, tool.name).toBe(tool.title);
      // Nothing here reaches outside the local orchestrator.
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
      // A read cannot destroy anything and reading again changes nothing.
      if (tool.annotations?.readOnlyHint) {
        expect(tool.annotations, tool.name).toMatchObject({ destructiveHint: false, idempotentHint: true });
      }
    }
    const named = (hint: (typeof hints)[number]) =>
      tools.filter((t) => t.annotations?.[hint] === true).map((t) => t.name);
    // Exactly the calls that end a worker or a run for good.
    expect(named("destructiveHint").sort()).toEqual([
      "run_stop",
      "worker_complete",
      "worker_fail",
      "worker_stop",
    ]);
    for (const write of [
      "run_create",
      "worker_spawn",
      "worker_progress",
      "message_send",
      "worker_followup",
    ]) {
      expect(named("idempotentHint"), write).not.toContain(write);
    }
    for (const repeatable of ["worker_stop", "run_stop", "worker_pause", "worker_steer", "message_ack"]) {
      expect(named("idempotentHint"), repeatable).toContain(repeatable);
    }
    for (const read of [
      "run_get",
      "run_list",
      "events_list",
      "events_wait",
      "ui_summary",
      "provenance_get",
    ]) {
      expect(named("readOnlyHint"), read).toContain(read);
    }
  });
});

describe("docs/mcp.md", () => {
  it("lists every tool with its annotations", () => {
    const doc = readFileSync(new URL("../../docs/mcp.md", import.meta.url), "utf8");
    for (const op of ALL_OPERATIONS) {
      const row = doc.split("\n").find((l) => l.startsWith(`| \`${op.name}\``));
      expect(row, op.name).toBeDefined();
      expect(row!.includes("read-only"), op.name).toBe(op.annotations.readOnlyHint === true);
      expect(row!.includes("destructive"), op.name).toBe(op.annotations.destructiveHint === true);
      // A read is always idempotent; the table says so only for writes.
      expect(row!.includes("idempotent"), op.name).toBe(
        !op.annotations.readOnlyHint && op.annotations.idempotentHint,
      );
    }
  });
});

describe("a worker's life through MCP", () => {
  it("create run (auto) → spawn → progress → get → events list/wait with cursor → complete", async () => {
    const { run } = await call<{ run: { id: string; defaultPolicy: { mode: string } } }>(
      client,
      "run_create",
      {
        name: "ship the feature",
        objective: "end to end",
        policy: { mode: "auto" },
      },
    );
    expect(run.defaultPolicy.mode).toBe("auto");

    await call(client, "worker_spawn", { runId: run.id, path: "/root", objective: "coordinate" });
    // The child is the one that completes: completing /root ends the run, whose events then move to the archive.
    const spawned = await call<{ worker: WorkerOut }>(client, "worker_spawn", {
      runId: run.id,
      path: "/root/parser",
      objective: "write the parser",
      acceptance: ["tests pass"],
    });
    const workerId = spawned.worker.id;
    expect(spawned.worker.status).toBe("active");

    const progressed = await call<{
      worker: WorkerOut;
    }>(client, "worker_progress", { workerId, summary: "wrote the parser" });
    expect(progressed.worker.lastProgressAt).not.toBeNull();

    const got = await call<{
      worker: WorkerOut;
      attempts: { seq: number; reason: string }[];
    }>(client, "worker_get", { workerId });
    expect(got.worker.id).toBe(workerId);
    expect(got.attempts[0]).toMatchObject({ seq: 1, reason: "initial" });

    const listed = await call<{
      events: EventOut[];
      cursor: number;
    }>(client, "events_list", { cursor: 0, runId: run.id });
    const types = listed.events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["run.created", "worker.spawned", "worker.progress"]));
    expect(listed.cursor).toBe(listed.events.at(-1)!.seq);

    // Nothing new after the cursor: a short wait times out and keeps the cursor.
    const idle = await call<{
      events: EventOut[];
      cursor: number;
      timedOut: boolean;
    }>(client, "events_wait", { cursor: listed.cursor, runId: run.id, timeoutMs: 50 });
    expect(idle).toEqual({ events: [], cursor: listed.cursor, timedOut: true });

    const waiting = call(client, "events_wait", { cursor: listed.cursor, runId: run.id, timeoutMs: 15_000 });
    const completed = await call<{
      worker: WorkerOut;
    }>(client, "worker_complete", { workerId, summary: "done, tests pass" });
    expect(completed.worker.status).toBe("completed");
    expect(completed.worker.label).toBe("Complete");

    const woke = (await waiting) as { events: EventOut[]; cursor: number; timedOut: boolean };
    expect(woke.timedOut).toBe(false);
    expect(woke.events[0]!.seq).toBe(listed.cursor + 1);
    expect(woke.events.map((e) => e.type)).toContain("worker.completed");
    expect(woke.cursor).toBe(woke.events.at(-1)!.seq);

    // The text content carries the same value as the structured content.
    const rawResult = await callRaw(client, "worker_get", { workerId });
    expect(JSON.parse(textOf(rawResult))).toEqual(rawResult.structuredContent);
  });
});

describe("bad input", () => {
  let runId: string;
  let workerId: string;

  beforeAll(async () => {
    runId = (await call<{ run: { id: string } }>(client, "run_create", { name: "bad input" })).run.id;
    workerId = (
      await call<{ worker: WorkerOut }>(client, "worker_spawn", { runId, path: "/root", objective: "o" })
    ).worker.id;
    await call(client, "worker_spawn", { runId, path: "/root/child", objective: "child" });
  });

  it("answers wrong argument types with INVALID_INPUT for every tool", async () => {
    for (const op of ALL_OPERATIONS) {
      const wrong = Object.fromEntries(Object.keys(op.input).map((k) => [k, { wrong: true }]));
      await expectUnchanged(() => expectError(op.name, wrong, "INVALID_INPUT").then(() => undefined));
    }
  });

  it("names the offending field and refuses unknown arguments instead of ignoring them", async () => {
    await expectUnchanged(async () => {
      expect(await expectError("worker_get", { workerId: 42 }, "INVALID_INPUT")).toMatch(/workerId/);
      expect(await expectError("worker_get", {}, "INVALID_INPUT")).toMatch(/workerId/);
      expect(
        await expectError("worker_continue_now", { workerId, overideWait: true }, "INVALID_INPUT"),
      ).toMatch(/overideWait/);
      await expectError("worker_spawn", { runId, path: "not/a/path", objective: "o" }, "INVALID_INPUT");
      await expectError("events_wait", { cursor: 0, timeoutMs: 60_000 }, "INVALID_INPUT");
      await expectError("events_list", { cursor: -1 }, "INVALID_INPUT");
      await expectError("run_create", { name: "x", policy: { mode: "sometimes" } }, "INVALID_INPUT");
    });
  });

  it("answers an unknown tool with NOT_FOUND", async () => {
    await expectUnchanged(() => expectError("worker_teleport", {}, "NOT_FOUND").then(() => undefined));
  });

  it("answers unknown ids with NOT_FOUND for every tool that takes one", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["run_get", { runId: UNKNOWN }],
      ["run_stop", { runId: UNKNOWN }],
      ["run_pause_all", { runId: UNKNOWN }],
      ["run_resume_all", { runId: UNKNOWN }],
      ["run_continuation_set_default", { runId: UNKNOWN, patch: { mode: "auto" } }],
      ["worker_spawn", { runId: UNKNOWN, path: "/root", objective: "x" }],
      ["worker_get", { workerId: UNKNOWN }],
      ["worker_progress", { workerId: UNKNOWN }],
      ["worker_complete", { workerId: UNKNOWN }],
      ["worker_fail", { workerId: UNKNOWN, reason: "r" }],
      ["worker_await_human", { workerId: UNKNOWN, reason: "r", question: "q" }],
      ["worker_await_dependency", { workerId: UNKNOWN, condition: "c" }],
      ["worker_pause", { workerId: UNKNOWN }],
      ["worker_resume", { workerId: UNKNOWN }],
      ["worker_continue_now", { workerId: UNKNOWN }],
      ["worker_rollover", { workerId: UNKNOWN, brief: "b" }],
      ["worker_new_conversation", { workerId: UNKNOWN }],
      ["worker_stop", { workerId: UNKNOWN }],
      ["worker_followup", { workerId: UNKNOWN, text: "t" }],
      ["worker_steer", { workerId: UNKNOWN, text: "t" }],
      ["worker_continuation_get", { workerId: UNKNOWN }],
      ["worker_continuation_set", { workerId: UNKNOWN, patch: { mode: "auto" } }],
      ["human_resolve", { workerId: UNKNOWN }],
      ["message_send", { toWorkerId: UNKNOWN, body: "b" }],
      ["message_inbox", { workerId: UNKNOWN }],
      ["message_ack", { workerId: UNKNOWN, upToSeq: 1 }],
    ];
    await expectUnchanged(async () => {
      for (const [name, args] of cases) await expectError(name, args, "NOT_FOUND");
    });
  });

  it("refuses illegal transitions with their code and leaves the state alone", async () => {
    await expectUnchanged(() =>
      expectError("human_resolve", { workerId, answer: "yes" }, "NOT_AWAITING_HUMAN").then(() => undefined),
    );
    const child = (await call<{ workers: WorkerOut[] }>(client, "worker_list", { runId })).workers.find(
      (w) => w.id !== workerId,
    )!;
    await call(client, "worker_complete", { workerId: child.id, summary: "finished" });
    await expectUnchanged(async () => {
      await expectError("worker_continue_now", { workerId: child.id }, "WORKER_TERMINAL");
      await expectError("worker_progress", { workerId: child.id }, "WORKER_TERMINAL");
      await expectError("worker_complete", { workerId: child.id }, "WORKER_TERMINAL");
      await expectError("worker_fail", { workerId: child.id, reason: "r" }, "WORKER_TERMINAL");
      await expectError("worker_followup", { workerId: child.id, text: "more" }, "WORKER_TERMINAL");
      await expectError("worker_rollover", { workerId: child.id, brief: "b" }, "WORKER_TERMINAL");
      await expectError("worker_new_conversation", { workerId: child.id }, "WORKER_TERMINAL");
    });
    await call(client, "run_stop", { runId, reason: "enough" });
    await expectUnchanged(async () => {
      await expectError("worker_spawn", { runId, path: "/root/late", objective: "late" }, "RUN_TERMINAL");
    });
  });
});

describe("a disk that refuses data", () => {
  it("answers writes with STORE_IO naming the cause, reads with the state on disk, and writes again once it heals", async () => {
    const disk = failingDisk();
    const broken = await startHarness({}, { faultHook: disk.faultHook, ioRetryMs: 20 });
    try {
      const client = await broken.client();
      const { run } = await call<{ run: { id: string } }>(client, "run_create", { name: "before" });
      disk.failFromNow("ENOSPC");
      const write = await callRaw(client, "run_create", { name: "lost" });
      expect(write.isError).toBe(true);
      expect(textOf(write)).toMatch(/^STORE_IO: .*no space left on the device holding/);
      const again = await callRaw(client, "run_create", { name: "lost too" });
      expect(textOf(again)).toMatch(/^STORE_IO: cannot save changes/);
      const read = await call<{ runs: { name: string }[] }>(client, "run_list", {});
      expect(read.runs.map((r) => r.name)).toEqual(["before"]);
      expect(await call(client, "run_get", { runId: run.id })).toMatchObject({ run: { id: run.id } });
      disk.heal();
      await waitFor(() => broken.backend.storeHealth().writable, "writes to be taken again", 5_000, 5);
      await call(client, "run_create", { name: "after" });
      const after = await call<{ runs: { name: string }[] }>(client, "run_list", {});
      expect(after.runs.map((r) => r.name).sort()).toEqual(["after", "before"]);
    } finally {
      await broken.close();
    }
  });
});
