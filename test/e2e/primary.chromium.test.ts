// The primary scenario (docs/e2e.md) in real Chromium: the production extension and the real native host against the
// fake chatgpt.com, in both DOM layouts. Attempt 1 ends idle, attempts 2 and 3 follow automatically,
// worker_complete ends the worker, and no attempt 4 is ever sent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Layout } from "../fake-chatgpt/server.ts";
import { buildExtension, ChromiumE2E } from "./harness.ts";
import { completingTurn, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";
import { sendByHand } from "./zero-setup-kit.ts";
import { extensionStorage, filesUnder } from "./storage-kit.ts";

let ext: string;
let e2e: ChromiumE2E;

beforeAll(async () => {
  ext = await buildExtension("chrome");
  e2e = await ChromiumE2E.start(ext);
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
});

afterAll(async () => {
  await e2e?.close();
});

describe.each<Layout>(["classic", "composer-2026"])("primary scenario, %s layout", (layout) => {
  it("three attempts, worker_complete, no fourth; no manual prompt, duplicate or Retry", async () => {
    e2e.fake.reset();
    e2e.fake.page.layout = layout;
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index <= 2) await workingTurn(turn, `step ${turn.index}`);
      else await completingTurn(turn);
    });
    const runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    await e2e.pageFor(conversationId);

    const done = await e2e.waitWorker(workerId, "worker complete", (w) => w.worker.label === "Complete");
    // The final turn's idle is observed after completion; nothing may follow it.
    await e2e.waitWorker(
      workerId,
      "attempt 3 finished and the tab idle",
      (w) => w.worker.attempt?.state === "completed" && w.worker.conversation.state === "idle",
    );
    await e2e.fake.settled();

    expect(done.attempts.map((a) => a.reason)).toEqual(["initial", "auto_resume", "auto_resume"]);
    const final = await e2e.worker(workerId);
    expect(final.attempts).toHaveLength(3);
    expect(final.worker.pendingContinuation).toBeNull();
    expect(e2e.fake.stored(conversationId)).toHaveLength(3);
    expect(e2e.fake.stored()).toHaveLength(3);
    expectCleanRun(e2e.fake);
  }, 120_000);
});

describe("privacy (docs/privacy.md) after the scenarios", () => {
  it("keeps no answer or typed text, cookie or access token in the host's files or the extension's storage", async () => {
    // A person types in an unmanaged tab: the extension observes it, and must not keep the text.
    const personal = `personal note ${Date.now()} do not keep`;
    e2e.fake.page.layout = "classic";
    const page = await e2e.context.newPage();
    await sendByHand(e2e, page, personal);
    await e2e.fake.settled();
    expect(
      await page.evaluate(() => JSON.stringify((window as { __session?: unknown }).__session)),
    ).toContain(e2e.fake.secrets.accessToken);
    const forbidden = [
      e2e.fake.secrets.sessionCookie,
      e2e.fake.secrets.accessToken,
      personal,
      // Sentences that only ever appear in assistant answers (tool arguments are the agent's reports, allowed).
      "Looking at the repository.",
      "Finishing up.",
    ];
    const storage = await extensionStorage(e2e);
    expect(storage).toContain("bindings");
    const hostFiles = filesUnder(e2e.home);
    expect(hostFiles.length).toBeGreaterThan(2);
    for (const secret of forbidden) {
      expect(storage, "extension storage").not.toContain(secret);
      for (const [file, bytes] of hostFiles)
        expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
    await page.close();
  }, 60_000);
});
