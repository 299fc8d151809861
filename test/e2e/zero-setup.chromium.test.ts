// Zero-setup mode (conversation_adopt, docs/mcp.md) in real Chromium with no MCP call from the conversation at all:
// a person starts a conversation, adopts it from the popup ("Keep this conversation going"), and the continuation-state block at the
// end of each answer is the only signal. complete ends it after three automatic turns; blocked shows Needs you;
// Release hands the conversation back and nothing more is sent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, waitFor } from "./harness.ts";
import { block } from "./scenario-kit.ts";
import { personalConversation, popupFor, workerOf } from "./zero-setup-kit.ts";

let e2e: ChromiumE2E;

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
});

afterAll(async () => {
  await e2e?.close();
});

describe("zero-setup mode in Chromium (no MCP from the conversation)", () => {
  it("adopt from the popup: three automatic turns, status complete in the third, no fourth", async () => {
    e2e.fake.reset();
    e2e.fake.page.layout = "classic";
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return turn.say("Here is an outline of the three steps.");
      if (turn.index <= 3)
        return turn.say(`Step ${turn.index - 1} done.\n\n${block("working", `step ${turn.index - 1}`)}`);
      return turn.say(`All three steps are done.\n\n${block("complete", "all steps done")}`);
    });
    const { page, conversationId } = await personalConversation(
      e2e,
      "Please plan and write a three-step refactor.",
    );
    const popup = await popupFor(e2e, page);
    await popup.getByTestId("adopt-objective").fill("finish the refactor");
    await popup.getByTestId("adopt-button").click();

    const workerId = await waitFor(
      () => workerOf(e2e, conversationId).catch(() => undefined),
      "the adopted worker",
    );
    const done = await e2e.waitWorker(
      workerId,
      "complete from the block",
      (w) => w.worker.label === "Complete",
    );
    await e2e.waitWorker(workerId, "the last turn idle", (w) => w.worker.attempt?.state === "completed");
    await e2e.fake.settled();
    expect(done.attempts).toHaveLength(3);
    expect(e2e.fake.stored(conversationId)).toHaveLength(4); // the person's message + 3 automatic turns
    expect(e2e.fake.conversations.size).toBe(1); // no new chat was opened
    expect(e2e.fake.duplicateUserMessages()).toBe(0);
    expect(e2e.fake.clicks("retry")).toBe(0);
    expect(e2e.fake.log.filter((e) => e.source === "assistant" && e.kind === "tool")).toEqual([]); // no MCP call
  }, 180_000);

  it("status blocked shows Needs you with its summary; Release hands the conversation back, nothing more", async () => {
    e2e.fake.reset();
    e2e.fake.page.layout = "classic";
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return turn.say("Happy to help with the migration.");
      if (turn.index === 2) return turn.say(`Started.\n\n${block("working", "schema drafted")}`);
      return turn.say(
        `I need a decision.\n\n${block("blocked", "Which database should the migration target?")}`,
      );
    });
    const { page, conversationId } = await personalConversation(e2e, "Help me migrate the database.");
    const popup = await popupFor(e2e, page);
    await popup.getByTestId("adopt-button").click();
    const workerId = await waitFor(
      () => workerOf(e2e, conversationId).catch(() => undefined),
      "the adopted worker",
    );
    const blocked = await e2e.waitWorker(
      workerId,
      "Needs you (the block's question)",
      (w) => w.worker.label === "Needs you" && JSON.stringify(w.worker).includes("Which database"),
    );
    expect(JSON.stringify(blocked.worker)).toContain("Which database should the migration target?");
    await e2e.fake.settled();
    const before = e2e.fake.stored(conversationId).length;
    expect(before).toBe(3);

    await popup.reload();
    await popup.getByTestId("release-button").click();
    await e2e.waitWorker(workerId, "released (stopped)", (w) => w.worker.label === "Stopped");
    await e2e.fake.settled();
    expect(e2e.fake.stored(conversationId)).toHaveLength(before);
    expect(e2e.fake.duplicateUserMessages()).toBe(0);
    expect(e2e.fake.clicks("retry")).toBe(0);
  }, 180_000);
});
