// The popup's ui.request when the store fails under it (in-process owner, real store on disk, real framing): the view
// gets an error with the store's code at once, for a write and for a read, instead of waiting for its own timeout.
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FrameDecoder } from "../../native-host/src/bridge/native-framing.ts";
import { ownerOptionsFromEnv } from "../../native-host/src/host/host-entry.ts";
import { type OwnerHandle, startOwner } from "../../native-host/src/host/owner.ts";
import type { HostMessage } from "../../shared/native-messages.ts";
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
    store: { faultHook: disk.faultHook },
  });
  if (started === "locked") throw new Error("the temp directory is locked");
  owner = started;
});

afterEach(async () => {
  await owner.close().catch(() => undefined); // the failed store refuses a clean close; the test is about before
  removeDir(dir);
});

describe("ui.request while the store fails", () => {
  it("answers a write and then a read with the store's error code", async () => {
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

    session.inject({ kind: "ui.request", requestId: "r1", op: "run_create", params: { name: "ok" } });
    expect(await answer("r1")).toMatchObject({ ok: true });

    disk.failFromNow();
    session.inject({ kind: "ui.request", requestId: "r2", op: "run_create", params: { name: "lost" } });
    const write = await answer("r2");
    expect(write).toMatchObject({ ok: false, error: { code: expect.stringMatching(/^STORE_/) as unknown } });

    session.inject({ kind: "ui.request", requestId: "r3", op: "ui_summary", params: {} });
    const read = await answer("r3");
    expect(read).toMatchObject({ ok: false, error: { code: expect.stringMatching(/^STORE_/) as unknown } });
    expect(logger.warnings.some((w) => w.includes("ui.request run_create failed"))).toBe(true);
    input.end();
  });
});
