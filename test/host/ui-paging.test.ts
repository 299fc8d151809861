// docs/host.md, "Executor protocol": a message to the extension stays under the browser's 1 MiB limit, so a
// ui.response too large for one frame is cut and carries `nextCursor`. Across the real host process: an answer of
// several MB comes in pages that each fit, and the pages together hold every item exactly once.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HostMessage, MAX_HOST_MESSAGE_BYTES } from "../../shared/native-messages.ts";
import { removeHome, tempHome } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

/** What Chromium and Firefox accept from a native host; one byte more and they drop the port. */
const BROWSER_LIMIT = 1024 * 1024;
const WORKERS = 12;

type UiResponse = Extract<HostMessage, { kind: "ui.response" }>;
interface SummaryPage {
  runs: { id: string }[];
  workers: { id: string; objective: string; acceptance: string[] }[];
  eventSeq: number;
}

/** The byte length of every frame on the host's stdout, read from the frames' own length prefixes. */
function frameSizes(ext: ScriptedExtension): number[] {
  const sizes: number[] = [];
  let pending = Buffer.alloc(0);
  ext.child.stdout?.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32LE(0)) {
      const length = pending.readUInt32LE(0);
      sizes.push(length);
      pending = pending.subarray(4 + length);
    }
  });
  return sizes;
}

/** Text of exactly `chars` UTF-16 units: multi-byte characters and JSON escapes, so bytes ≠ characters. */
function filler(tag: string, chars: number): string {
  const unit = `${tag} → "é"\n✓ `;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

describe("ui.response paging (nextCursor)", () => {
  let home: string;
  let ext: ScriptedExtension;
  let sizes: number[];
  let seq = 0;

  beforeEach(async () => {
    home = tempHome();
    ext = ScriptedExtension.spawn({ home });
    sizes = frameSizes(ext);
    await ext.hello();
  });

  afterEach(async () => {
    ext.closeStdin();
    await ext.exited;
    removeHome(home);
  });

  async function request(op: string, params: unknown, cursor?: string): Promise<UiResponse> {
    const requestId = `page-${++seq}`;
    ext.send({ kind: "ui.request", requestId, op, params, ...(cursor ? { cursor } : {}) });
    const response = await waitFor(
      () => ext.received.find((m): m is UiResponse => m.kind === "ui.response" && m.requestId === requestId),
      `ui.response ${requestId}`,
    );
    return response;
  }

  it(
    "an answer of several MB comes in pages under the limit that together hold every worker exactly once",
    { timeout: 60_000 },
    async () => {
      const { run } = await ext.ui<{ run: { id: string } }>("run_create", { name: "big" });
      const spawned: { id: string; objective: string; acceptance: string[] }[] = [];
      for (let i = 0; i < WORKERS; i++) {
        // The largest a worker may be given: a 20,000-character objective and 50 criteria of 2,000.
        const objective = filler(`w${i}`, 20_000);
        const acceptance = Array.from({ length: 50 }, (_, j) => filler(`w${i}c${j}`, 2_000));
        const { worker } = await ext.ui<{ worker: { id: string } }>("worker_spawn", {
          runId: run.id,
          path: i === 0 ? "/root" : `/root/w${i}`,
          objective,
          acceptance,
        });
        spawned.push({ id: worker.id, objective, acceptance });
      }

      const framesBefore = sizes.length;
      const pages: SummaryPage[] = [];
      const cursors: string[] = [];
      let response = await request("ui_summary", {});
      for (;;) {
        expect(response.ok, JSON.stringify(response.error)).toBe(true);
        pages.push(response.result as SummaryPage);
        if (response.nextCursor === undefined) break;
        expect(cursors).not.toContain(response.nextCursor);
        cursors.push(response.nextCursor);
        expect(pages.length, "pages keep coming").toBeLessThan(2 * WORKERS);
        response = await request("ui_summary", {}, response.nextCursor);
      }

      // Every frame of the exchange fits, and it had to be cut: together the pages are well over 1 MiB.
      const frames = sizes.slice(framesBefore);
      const answerFrames = frames.filter((n) => n > 64 * 1024);
      expect(answerFrames).toHaveLength(pages.length);
      for (const n of frames) expect(n).toBeLessThanOrEqual(MAX_HOST_MESSAGE_BYTES);
      expect(Math.max(...frames)).toBeLessThan(BROWSER_LIMIT);
      expect(answerFrames.reduce((a, b) => a + b, 0)).toBeGreaterThan(2 * BROWSER_LIMIT);
      expect(pages.length).toBeGreaterThanOrEqual(3);

      // The pages hold each worker once, in order, unchanged; the run once; the same snapshot's eventSeq.
      const workers = pages.flatMap((p) => p.workers);
      expect(workers.map((w) => w.id)).toEqual(spawned.map((w) => w.id));
      for (const [i, w] of workers.entries()) {
        expect(w.objective).toBe(spawned[i]!.objective);
        expect(w.acceptance).toEqual(spawned[i]!.acceptance);
      }
      expect(pages.flatMap((p) => p.runs).map((r) => r.id)).toEqual([run.id]);
      expect(new Set(pages.map((p) => p.eventSeq)).size).toBe(1);

      // Done means done: the last cursor is not served twice.
      const again = await request("ui_summary", {}, cursors.at(-1));
      expect(again).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    },
  );
});
