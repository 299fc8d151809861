// The agent's rollover end to end at the protocol level (docs/continuation-core.md, "Rollover"): an MCP client over
// HTTP calls worker_rollover on the real host, the scripted extension receives the new chat's command carrying the
// brief and proves it submitted in a new conversation, and the worker, its provenance and the event log follow.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CommandMessage } from "../../shared/native-messages.ts";
import type { ConversationLink } from "../../shared/operations/views.ts";
import { connectMcp, removeHome, tempHome, tool } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

const OLD_ID = "00000000-0000-4000-8000-00000000a0a1";
const NEW_ID = "00000000-0000-4000-8000-00000000b0b2";
const OLD_URL = `https://chatgpt.com/c/${OLD_ID}`;
const NEW_URL = `https://chatgpt.com/c/${NEW_ID}`;
const BRIEF = [
  "done: the tokenizer and its tests (commit 1a2b3c4)",
  "next steps: the parser's error recovery",
  "decisions: no backtracking",
  "open questions: none",
  "files touched: src/tokenizer.ts",
].join("\n");

interface WorkerOut {
  worker: {
    id: string;
    conversationId: string | null;
    previousConversationIds: string[];
    rollover: { phase: string; trigger: string } | null;
  };
}

describe("worker_rollover over MCP, against the spawned host", () => {
  let home: string;
  let ext: ScriptedExtension;
  let mcp: Client;

  beforeEach(async () => {
    home = tempHome();
    ext = ScriptedExtension.spawn({ home });
    await ext.hello();
    mcp = await connectMcp(home);
  });

  afterEach(async () => {
    await mcp.close();
    ext.closeStdin();
    await ext.exited;
    removeHome(home);
  });

  /** A manual worker whose bootstrap went out into OLD_URL and is generating (every later command is the move's). */
  async function generatingInOldConversation(): Promise<string> {
    const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", {
      name: "Run",
      policy: { mode: "manual", idleGraceMs: 50 },
    });
    const { worker } = await tool<WorkerOut>(mcp, "worker_spawn", {
      runId: run.id,
      path: "/root",
      objective: "write the parser",
    });
    const workerId = worker.id;
    const bootstrap = await waitFor(() => ext.commandsFor(workerId)[0], "the bootstrap command");
    expect(bootstrap.type).toBe("conversation.create");
    ext.submit(bootstrap, OLD_URL);
    ext.observe(workerId, "generating");
    await waitFor(
      async () => (await tool<WorkerOut>(mcp, "worker_get", { workerId })).worker.conversationId === OLD_ID,
      "the first conversation recorded",
    );
    return workerId;
  }

  /** The executor proves the move's first prompt went into NEW_URL; the worker as the host then shows it. */
  function submittedInNewConversation(workerId: string, create: CommandMessage): Promise<WorkerOut> {
    ext.submit(create, NEW_URL);
    return waitFor(async () => {
      const got = await tool<WorkerOut>(mcp, "worker_get", { workerId });
      return got.worker.conversationId === NEW_ID ? got : undefined;
    }, "the worker in its new conversation");
  }

  it("moves the worker to a new conversation that starts from the brief, keeping the old one in its chain", async () => {
    const workerId = await generatingInOldConversation();

    // Mid-turn, the agent hands over; the move waits for its turn to end.
    const asked = await tool<WorkerOut & { rollover: string }>(mcp, "worker_rollover", {
      workerId,
      brief: BRIEF,
      reason: "the page is getting slow",
    });
    expect(asked.rollover).toBe("started");
    expect(asked.worker.rollover).toMatchObject({ phase: "opening", trigger: "agent" });
    ext.observe(workerId, "idle");

    const create = await waitFor(() => ext.commandsFor(workerId)[1], "the new conversation's command");
    expect(create.type).toBe("conversation.create");
    // A plain chat was left, so a plain new chat is opened (not the old conversation).
    expect(create.conversationUrl).toBeUndefined();
    expect(create.prompt.promptId).toBe("rollover@1");
    expect(create.prompt.text).toContain(BRIEF);
    expect(create.prompt.text).toContain(workerId);

    const moved = await submittedInNewConversation(workerId, create);
    expect(moved.worker.previousConversationIds).toEqual([OLD_ID]);
    expect(moved.worker.rollover).toBeNull();

    const { provenance } = await tool<{ provenance: { conversations?: ConversationLink[] } }>(
      mcp,
      "provenance_get",
      { workerId },
    );
    expect(provenance.conversations).toHaveLength(2);
    // The conversation it left still leads to the worker.
    const byOld = await tool<{ provenance: { worker: { id: string } } }>(mcp, "provenance_get", {
      conversation: OLD_URL,
    });
    expect(byOld.provenance.worker.id).toBe(workerId);
    const [left, current] = provenance.conversations!;
    expect(left).toMatchObject({
      index: 1,
      url: OLD_URL,
      conversationId: OLD_ID,
      trigger: "agent",
      note: "the page is getting slow",
      turns: 1,
      brief: { source: "agent", chars: BRIEF.length },
    });
    expect(left!.leftAt).toEqual(expect.any(Number));
    expect(current).toMatchObject({
      index: 2,
      url: NEW_URL,
      conversationId: NEW_ID,
      leftAt: null,
      brief: null,
    });

    const { events } = await tool<{
      events: { type: string; workerId?: string; data: Record<string, unknown> }[];
    }>(mcp, "events_list", { cursor: 0, workerId });
    const rolled = events.filter((e) => e.type === "worker.rolled_over");
    expect(rolled).toHaveLength(1);
    expect(rolled[0]!.data).toMatchObject({
      trigger: "agent",
      from: OLD_URL,
      to: NEW_URL,
      conversation: 2,
      briefSource: "agent",
      briefChars: BRIEF.length,
    });
    // Only sizes of the brief reach the log.
    expect(JSON.stringify(events)).not.toContain("error recovery");
  });

  it("records the move when the new conversation's agent completes the worker before the browser's result", async () => {
    const workerId = await generatingInOldConversation();
    await tool(mcp, "worker_rollover", { workerId, brief: BRIEF });
    ext.observe(workerId, "idle");
    const create = await waitFor(() => ext.commandsFor(workerId)[1], "the new conversation's command");

    // The prompt is in; the model there is quicker than the browser's proof of it (seen in CI under load).
    const ended = await tool<WorkerOut>(mcp, "worker_complete", { workerId, summary: "done" });
    expect(ended.worker.rollover).toBeNull(); // an ended worker is moving nowhere, whatever its create does
    const moved = await submittedInNewConversation(workerId, create);
    expect(moved.worker.previousConversationIds).toEqual([OLD_ID]);
    const { events } = await tool<{ events: { type: string }[] }>(mcp, "events_list", {
      cursor: 0,
      workerId,
    });
    expect(events.filter((e) => e.type === "worker.rolled_over")).toHaveLength(1);
  });
});
