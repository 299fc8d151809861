// Conversation rollover in real Chromium (docs/continuation-core.md, "Rollover"): a worker that hits the length limit
// mid-job, the agent's worker_rollover, the operator's Continue in a new conversation from the dashboard, and a browser
// restart in the middle of a move. Each ends with exactly one new conversation and one first prompt there.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AssistantTurn } from "../fake-chatgpt/server.ts";
import { buildExtension, ChromiumE2E, tool, waitFor, type WorkerOut } from "./harness.ts";
import { block, completingTurn, deferred, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";
import { extensionStorage, filesUnder } from "./storage-kit.ts";
import { DASHBOARD_URL, openPage } from "./ui-kit.ts";

let e2e: ChromiumE2E;
let runId: string | undefined;
/** Brief texts the scenarios handed over: none may be kept anywhere once its prompt is submitted. */
const briefs: string[] = [];

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

interface Link {
  index: number;
  conversationId: string | null;
  trigger: string | null;
  turns: number;
  brief: { source: string; chars: number } | null;
}

type Moved = WorkerOut & {
  worker: WorkerOut["worker"] & { conversationId?: string | null; previousConversationIds?: string[] };
};

/** The fake's conversations whose first prompt named this worker, oldest first. */
function conversationsOf(workerId: string): string[] {
  return [...e2e.fake.conversations.values()].filter((c) => c.workerId === workerId).map((c) => c.id);
}

const isRolloverPrompt = (turn: AssistantTurn) => turn.text.includes("continuing in a new conversation");
const isHandoffRequest = (turn: AssistantTurn) => turn.text.includes("BEGIN HANDOFF BRIEF");

/** Done: Complete with its last turn ended, in the second conversation, the first one recorded before it. */
async function completedInSecond(
  workerId: string,
): Promise<{ first: string; second: string; chain: Link[] }> {
  const done = await e2e.waitWorker(
    workerId,
    "complete in the new conversation",
    (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    90_000,
  );
  const [first, second, ...more] = conversationsOf(workerId);
  expect(more, "no third conversation").toEqual([]);
  const moved = done as Moved;
  expect(moved.worker.conversationId).toBe(second);
  expect(moved.worker.previousConversationIds).toEqual([first]);
  expect(done.attempts.filter((a) => a.reason === "rollover" && a.submittedAt !== null)).toHaveLength(1);
  const { provenance } = await tool<{ provenance: { conversations: Link[] } }>(e2e.mcp, "provenance_get", {
    workerId,
  });
  const conversations = provenance.conversations;
  await e2e.fake.settled();
  // One first prompt in the new conversation, and it named the worker.
  const there = e2e.fake.stored(second);
  expect(there).toHaveLength(1);
  expect(there[0]!.text).toContain(`workerId "${workerId}"`);
  return { first: first!, second: second!, chain: conversations };
}

/** The old conversation's tab is still open (the person's now) without the overlay; the new one has it. */
async function oldTabLeftOpen(first: string, second: string): Promise<void> {
  const overlay = (id: string) =>
    e2e.pageFor(id).then((p) => p.locator("#chatgpt-orchestrator-overlay").count());
  await expect.poll(() => overlay(second), { timeout: 15_000 }).toBe(1);
  await expect.poll(() => overlay(first), { timeout: 15_000 }).toBe(0);
}

describe("conversation rollover in Chromium", { timeout: 180_000 }, () => {
  it("the length limit mid-job: the worker moves on by itself and completes with one first prompt there", async () => {
    e2e.fake.setLengthLimit({ maxTurnsPerConversation: 2 });
    e2e.fake.setAssistant(async (turn) => {
      if (isRolloverPrompt(turn)) return completingTurn(turn, "finished after the move");
      await workingTurn(turn, `step ${turn.index}`);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const { first, second, chain } = await completedInSecond(workerId);
    // Two answered turns, then the third got the notice instead of an answer.
    expect(e2e.fake.stored(first)).toHaveLength(3);
    expect(e2e.fake.tooLongSends()).toBe(1);
    expect(chain.map((l) => [l.index, l.trigger, l.brief?.source ?? null])).toEqual([
      [1, "length_limit", "composed"],
      [2, null, null],
    ]);
    // The page could not write a brief: the host composed one from the record, with the progress reported.
    const prompt = e2e.fake.stored(second)[0]!.text;
    expect(prompt).toContain("composed by the orchestrator");
    expect(prompt).toContain("step 2");
    await oldTabLeftOpen(first, second);
    expectCleanRun(e2e.fake);
  });

  it("the agent calls worker_rollover: its brief is the new conversation's first prompt", async () => {
    const brief =
      "done: the schema and its migration\nnext steps: the import command\nfiles touched: db/schema.sql";
    briefs.push("next steps: the import command");
    e2e.fake.setAssistant(async (turn) => {
      if (isRolloverPrompt(turn)) return completingTurn(turn);
      await turn.say("The context is getting long; handing over.");
      await turn.tool("worker_rollover", { workerId: turn.workerId, brief, reason: "context is long" });
      await turn.say(`\n\n${block("working", "handed over")}`);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const { first, second, chain } = await completedInSecond(workerId);
    expect(e2e.fake.stored(first)).toHaveLength(1);
    expect(e2e.fake.stored(second)[0]!.text).toContain(brief);
    expect(chain[0]).toMatchObject({ trigger: "agent", brief: { source: "agent", chars: brief.length } });
    await oldTabLeftOpen(first, second);
    expectCleanRun(e2e.fake);
  });

  it("the operator's Continue in a new conversation from the dashboard: asked once, the page's brief carried over", async () => {
    briefs.push("next steps: finish the report");
    const handoff = [
      "BEGIN HANDOFF BRIEF",
      "done: the report's first half",
      "next steps: finish the report",
      "END HANDOFF BRIEF",
    ];
    e2e.fake.setAssistant(async (turn) => {
      if (isRolloverPrompt(turn)) return completingTurn(turn);
      if (isHandoffRequest(turn)) {
        return turn.say(
          `Here is my handoff.\n\n${handoff.join("\n")}\n\n${block("working", "handoff written")}`,
        );
      }
      await workingTurn(turn, "first half");
    });
    // Manual: after its first turn the worker waits for a person, who moves it.
    runId = await e2e.createRun({ ...FAST_POLICY, mode: "manual" });
    const workerId = await e2e.spawn(runId, "/root");
    await e2e.waitWorker(workerId, "first turn ended", (w) => w.worker.conversation.state === "idle");

    const dashboard = await openPage(e2e, DASHBOARD_URL, "dashboard");
    try {
      await dashboard.locator(`[data-testid="drill-down"]`).first().click();
      const drill = dashboard.getByTestId("drill");
      await drill.getByTestId("new-conversation").click();
      await drill.getByTestId("new-conversation-confirm").click();
      const { first, second, chain } = await completedInSecond(workerId);
      // Asked once in the old conversation; the answer's block is what the new one started from.
      const old = e2e.fake.stored(first);
      expect(old).toHaveLength(2);
      expect(old[1]!.text).toContain("BEGIN HANDOFF BRIEF");
      expect(e2e.fake.stored(second)[0]!.text).toContain("next steps: finish the report");
      expect(chain[0]).toMatchObject({ trigger: "operator", brief: { source: "page" } });
      // The dashboard shows the chain of conversations.
      await expect.poll(() => drill.textContent(), { timeout: 15_000 }).toMatch(/Conversation 1\s*→\s*2/);
      await oldTabLeftOpen(first, second);
    } finally {
      await dashboard.close();
    }
    expectCleanRun(e2e.fake);
  });

  it("the browser restarts while the handoff turn runs: one new conversation, one first prompt", async () => {
    const gate = deferred();
    e2e.fake.setAssistant(async (turn) => {
      if (isRolloverPrompt(turn)) return completingTurn(turn);
      if (isHandoffRequest(turn)) {
        await turn.say("Writing the handoff.");
        await gate.promise;
        return turn.say(
          `\n\nBEGIN HANDOFF BRIEF\ndone: most of it\nnext steps: the rest\nEND HANDOFF BRIEF\n\n${block("working", "handoff")}`,
        );
      }
      await workingTurn(turn, "first part");
    });
    runId = await e2e.createRun({ ...FAST_POLICY, mode: "manual" });
    const workerId = await e2e.spawn(runId, "/root");
    const first = await e2e.conversationOf(workerId);
    await e2e.waitWorker(workerId, "first turn ended", (w) => w.worker.conversation.state === "idle");
    await tool(e2e.mcp, "worker_new_conversation", { workerId });
    await e2e.waitWorker(
      workerId,
      "the handoff turn generating",
      (w) => w.worker.attempt?.reason === "handoff" && w.worker.conversation.state === "generating",
    );
    await waitFor(() => e2e.sessionHolds(`/c/${first}`), "the session to hold the conversation URL");
    const pid = e2e.hostPid();
    await e2e.closeBrowser();
    // The handoff answer ends while the browser is down: only the restored page can tell.
    gate.resolve();
    await e2e.launch({ restoreSession: true, previousPid: pid });
    const { second, chain } = await completedInSecond(workerId);
    expect(second).not.toBe(first);
    expect(e2e.fake.stored(first)).toHaveLength(2);
    expect(chain[0]).toMatchObject({ trigger: "operator" });
    expect(["page", "composed"]).toContain(chain[0]!.brief?.source);
    expectCleanRun(e2e.fake);
  });

  it("keeps no brief in the host's files or the extension's storage (docs/privacy.md)", async () => {
    expect(briefs).toHaveLength(2);
    const storage = await extensionStorage(e2e);
    expect(storage).toContain("bindings");
    const files = filesUnder(e2e.home);
    expect(files.length).toBeGreaterThan(2);
    for (const brief of briefs) {
      expect(storage, "extension storage").not.toContain(brief);
      for (const [file, bytes] of files) expect(bytes.includes(brief), `${brief} in ${file}`).toBe(false);
    }
  });
});
