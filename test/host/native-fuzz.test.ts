// Hostile stdin (reliability N2): ≥ 10k fuzzed frames crash nothing and change no state; an impossible length
// makes the host stop reading and exit cleanly, with the state intact for the next start.
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { removeHome, tempHome } from "./host-harness.ts";
import { ScriptedExtension } from "./scripted-extension.ts";

const FRAMES = Number(process.env.FUZZ_FRAMES ?? 10_000);

function frame(body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}

const KINDS = [
  "hello",
  "command.ack",
  "command.result",
  "conversation.state",
  "binding",
  "ui.request",
  "welcome",
  "x",
];

/** Messages that look like ours but are wrong somewhere, or right but about things that do not exist. */
const nearMiss = fc.record(
  {
    kind: fc.constantFrom(...KINDS),
    workerId: fc.oneof(fc.uuid(), fc.integer(), fc.constant("")),
    commandId: fc.oneof(fc.string(), fc.constant(null)),
    state: fc.constantFrom("idle", "generating", "ready", "error", "closed", "bogus"),
    seq: fc.oneof(fc.integer(), fc.double(), fc.string()),
    requestId: fc.string({ minLength: 1, maxLength: 8 }),
    op: fc.string({ maxLength: 12 }),
    protocolVersion: fc.integer({ min: -2, max: 3 }),
    outcome: fc.constantFrom("submitted", "failed", "maybe"),
  },
  { requiredKeys: ["kind"] },
);

const hostileBody = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
  nearMiss.map((m) => Buffer.from(JSON.stringify(m))),
);

describe("fuzzed native frames", () => {
  const homes: string[] = [];
  afterEach(() => homes.splice(0).forEach(removeHome));

  it(
    `survives ${FRAMES} hostile frames without a change of state, then fails closed on a bad length`,
    { timeout: 90_000 },
    async () => {
      const home = tempHome();
      homes.push(home);
      const ext = ScriptedExtension.spawn({ home });
      await ext.hello();
      const { run } = await ext.ui<{ run: { id: string } }>("run_create", {
        name: "fuzz",
        policy: { mode: "auto" },
      });
      await ext.ui("worker_spawn", { runId: run.id, path: "/root", objective: "stay as you are" });
      const before = await ext.ui<{ events: unknown[]; cursor: number }>("events_list", {
        cursor: 0,
        limit: 500,
      });
      const workersBefore = await ext.ui("worker_list", {});

      const bodies = fc.sample(hostileBody, { numRuns: FRAMES, seed: 42 });
      const chunk = Buffer.concat(bodies.map(frame));
      // Also a frame split across writes and random garbage inside valid lengths.
      ext.writeRaw(chunk.subarray(0, 7));
      ext.writeRaw(chunk.subarray(7));
      ext.writeRaw(frame(randomBytes(1000)));

      // The session handles frames in order: once this answers, every fuzzed frame has been dealt with.
      const after = await ext.ui<{ events: unknown[]; cursor: number }>("events_list", {
        cursor: 0,
        limit: 500,
      });
      expect(after.cursor).toBe(before.cursor);
      expect(await ext.ui("worker_list", {})).toEqual(workersBefore);
      expect(ext.invalid).toEqual([]);

      const head = Buffer.alloc(4);
      head.writeUInt32LE(0xffffffff, 0);
      ext.writeRaw(head);
      const end = await ext.exited;
      expect(end).toEqual({ code: 0, signal: null });

      // The next host finds everything as it was.
      const next = ScriptedExtension.spawn({ home });
      await next.hello();
      const again = await next.ui<{ cursor: number }>("events_list", { cursor: 0, limit: 500 });
      expect(again.cursor).toBe(before.cursor);
      next.closeStdin();
      await next.exited;
    },
  );
});
