// The popup's ui.request when the disk refuses data under the store (in-process owner, real store on disk, real
// framing): a write gets STORE_IO at once, reads keep answering and say that changes cannot be saved, and once the disk
// takes data again writes work with no restart.
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FrameDecoder } from "../../native-host/src/bridge/native-framing.ts";
import { ownerOptionsFromEnv } from "../../native-host/src/host/host-entry.ts";
import { type OwnerHandle, startOwner } from "../../native-host/src/host/owner.ts";
import { type HostMessage, PROTOCOL_VERSION } from "../../shared/native-messages.ts";
import { failingDisk, makeTempDir, recordingLogger, removeDir } from "../store/helpers.ts";
import { waitFor } from "../wait-for.ts";

let dir: string;
let owner: OwnerHandle;
let disk: ReturnType<typeof failingDisk>;
const logger = recordingLogger();

beforeEach(async () => {
  dir = makeTempDir("ui-faults");
  disk = failingDisk();
  const started = await startOwner({
    ...ownerOptionsFromEnv({ ORCHESTRATOR_HOME: dir }, logger.log),
    startMcp: undefined,
    store: { faultHook: disk.faultHook, ioRetryMs: 20 },
  });
  if (started === "locked") throw new Error("the temp directory is locked");
  owner = started;
});

afterEach(async () => {
  await owner.close();
  removeDir(dir);
});

/** A session on the owner over real framing: inject frames, wait for the answer to a ui.request. */
function connect() {
  const input = new PassThrough();
  const output = new PassThrough();
  const decoder = new FrameDecoder();
  const received: HostMessage[] = [];
  output.on("data", (chunk: Buffer) => {
    for (const frame of decoder.push(chunk))
      if (frame.kind === "message") received.push(frame.value as HostMessage);
  });
  const session = owner.serveStream(input, output, "test");
  const answer = (requestId: string) =>
    waitFor(
      () => received.find((m) => m.kind === "ui.response" && m.requestId === requestId),
      `the answer to ${requestId}`,
      5_000,
      5,
    );
  return { input, session, answer };
}

describe("ui.request while the disk refuses data", () => {
  it("answers a write with STORE_IO, reads with the state on disk and the problem, then writes again", async () => {
    const { input, session, answer } = connect();

    session.inject({ kind: "ui.request", requestId: "r1", op: "run_create", params: { name: "ok" } });
    expect(await answer("r1")).toMatchObject({ ok: true });

    disk.failFromNow();
    session.inject({ kind: "ui.request", requestId: "r2", op: "run_create", params: { name: "lost" } });
    const write = await answer("r2");
    expect(write).toMatchObject({
      ok: false,
      error: {
        code: "STORE_IO",
        message: expect.stringContaining("an I/O error on the device holding") as unknown,
      },
    });

    session.inject({ kind: "ui.request", requestId: "r3", op: "ui_summary", params: {} });
    const read = (await answer("r3")) as unknown as {
      ok: true;
      result: { runs: { name: string }[]; storage: unknown };
    };
    expect(read.ok).toBe(true);
    expect(read.result.runs.map((r) => r.name)).toEqual(["ok"]);
    expect(read.result.storage).toMatchObject({ writable: false, code: "STORE_IO" });
    expect(logger.warnings.some((w) => w.includes("ui.request run_create failed"))).toBe(true);

    disk.heal();
    await waitFor(() => owner.engine.storeHealth().writable, "writes to be taken again", 5_000, 5);
    session.inject({ kind: "ui.request", requestId: "r4", op: "run_create", params: { name: "later" } });
    expect(await answer("r4")).toMatchObject({ ok: true });
    session.inject({ kind: "ui.request", requestId: "r5", op: "ui_summary", params: {} });
    expect(await answer("r5")).toMatchObject({ ok: true, result: { storage: { writable: true } } });
    input.end();
  });

  it("keeps an executor's report the disk refused and applies it once writes resume", async () => {
    const { input, session, answer: raw } = connect();
    const answer = (requestId: string) =>
      raw(requestId) as Promise<{ ok: boolean; result?: Record<string, { id: string }> }>;
    session.inject({
      kind: "hello",
      protocolVersion: PROTOCOL_VERSION,
      executorId: "exec-1",
      browser: "test",
      extensionVersion: "0.0.0",
      bindings: [],
      journal: [],
    });
    session.inject({ kind: "ui.request", requestId: "r1", op: "run_create", params: { name: "run" } });
    const runId = (await answer("r1")).result!.run!.id;
    session.inject({
      kind: "ui.request",
      requestId: "r2",
      op: "worker_spawn",
      params: { runId, path: "/root", objective: "o" },
    });
    const workerId = (await answer("r2")).result!.worker!.id;
    const binding = () => owner.engine.state.workers[workerId]!.conversation.binding;
    expect(binding()).not.toBe("bound");

    disk.failFromNow("ENOSPC");
    // Refused by the store: the executor will not say it again, so the host must keep it.
    session.inject({ kind: "binding", workerId, binding: "bound", url: "https://chatgpt.com/c/abc-123" });
    await waitFor(
      () => logger.warnings.some((w) => w.includes("the store refused an executor report (binding.changed)")),
      "the refusal",
      5_000,
      5,
    );
    expect(binding()).not.toBe("bound");

    disk.heal();
    await waitFor(() => binding() === "bound", "the held-back report to be applied", 5_000, 5);
    expect(owner.engine.state.workers[workerId]!.conversation.url).toBe("https://chatgpt.com/c/abc-123");
    input.end();
  });
});
