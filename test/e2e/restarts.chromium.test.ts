// Restarts in real Chromium (docs/e2e.md), each in the middle of attempt 1 (the turn is generating): the extension's
// service worker is stopped, the native host is killed with SIGKILL, or the whole browser is closed and started
// again on the same profile. Each time the worker resumes exactly once per turn and completes with no duplicate.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, tool, waitFor } from "./harness.ts";
import { completingTurn, deferred, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";

let e2e: ChromiumE2E;
let runId: string | undefined;

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

beforeEach(() => {
  e2e.fake.reset();
  runId = undefined;
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
  if (runId) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  await e2e.fake.settled();
}, 60_000);

afterAll(async () => {
  await e2e?.close();
});

/** Attempt 1 holds until the test has restarted something; then three turns and worker_complete. */
async function scenario(
  disrupt: (conversationId: string) => Promise<void>,
  recover: (previousHostPid: number | undefined) => Promise<void>,
): Promise<void> {
  const gate = deferred();
  e2e.fake.setAssistant(async (turn) => {
    if (turn.index === 1) {
      await turn.say("Working on it.");
      await gate.promise;
      await turn.say("\n\nstatus: working\nsummary: first step\ncurrent: -\nnext: -");
    } else if (turn.index === 2) await workingTurn(turn, "step 2");
    else await completingTurn(turn);
  });
  runId = await e2e.createRun(FAST_POLICY);
  const workerId = await e2e.spawn(runId, "/root");
  const conversationId = await e2e.conversationOf(workerId);
  await e2e.waitWorker(workerId, "generating", (w) => w.worker.conversation.state === "generating");
  const pid = e2e.hostPid();
  await disrupt(conversationId);
  // The turn ends while the executor or host is down: only the page's own reports can bring the news.
  gate.resolve();
  await recover(pid);
  const done = await e2e.waitWorker(
    workerId,
    "complete and the last turn ended",
    (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    90_000,
  );
  const sent = done.attempts.filter((a) => a.submittedAt !== null);
  expect(sent.map((a) => a.reason)).toEqual(["initial", "auto_resume", "auto_resume"]);
  await e2e.fake.settled();
  expect(e2e.fake.stored(conversationId)).toHaveLength(3);
  expect(e2e.fake.stored()).toHaveLength(3);
  expectCleanRun(e2e.fake);
}

describe("restarts mid-turn", { timeout: 150_000 }, () => {
  it("the extension service worker is stopped: it wakes, reconnects, and the worker resumes once per turn", async () => {
    await scenario(
      async (conversationId) => {
        const cdp = await e2e.context.newCDPSession(await e2e.pageFor(conversationId));
        await cdp.send("ServiceWorker.enable");
        await cdp.send("ServiceWorker.stopAllWorkers");
        await cdp.detach();
      },
      // The host lives as long as the port: it exits, and the woken service worker starts a new one.
      (pid) => e2e.connect(pid),
    );
  });

  it("the native host is killed (SIGKILL): the extension reconnects to a new host and nothing is sent twice", async () => {
    await scenario(
      () => {
        process.kill(e2e.hostPid()!, "SIGKILL");
        return Promise.resolve();
      },
      (pid) => e2e.connect(pid),
    );
  });

  it("the whole browser is closed and started again: the restored tab is rebound and resumed once", async () => {
    await scenario(
      async (conversationId) => {
        // Chromium saves its session a few seconds after a URL change; close once the tab's /c/<uuid> is saved,
        // so the restored tab shows the conversation (closing earlier restores the transient URL, and then the
        // binding stays unavailable: an unrelated tab is never adopted).
        await waitFor(
          () => e2e.sessionHolds(`/c/${conversationId}`),
          "the session to hold the conversation URL",
        );
        await e2e.closeBrowser();
      },
      (pid) => e2e.launch({ restoreSession: true, previousPid: pid }),
    );
  });
});
