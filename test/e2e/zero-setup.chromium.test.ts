// Zero-setup mode (issue 8) in real Chromium with no MCP call from the conversation at all: a person starts a
// conversation, adopts it from the popup ("Keep this conversation going"), and the continuation-state block at the
// end of each answer is the only signal. complete ends it after three automatic turns; blocked shows Needs you;
// Release hands the conversation back and nothing more is sent.
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROME_EXTENSION_ID } from "../../native-host/src/cli/extension-ids.ts";
import { buildExtension, ChromiumE2E, tool, waitFor } from "./harness.ts";
import { block } from "./scenario-kit.ts";

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

/** A person opens chatgpt.com and sends one message by hand; returns the tab and its conversation id. */
async function personalConversation(text: string): Promise<{ page: Page; conversationId: string }> {
  const page = await e2e.context.newPage();
  const since = Date.now();
  await page.goto("https://chatgpt.com/");
  await waitFor(
    () => e2e.fake.log.some((e) => e.kind === "composer-remounted" && e.at >= since),
    "the composer to hydrate",
  );
  await page.locator("#prompt-textarea").click();
  await page.keyboard.type(text);
  await page.locator("#composer-submit-button:not([disabled])").click();
  const conversationId = await waitFor(
    () => e2e.fake.userMessages.find((m) => m.text === text)?.conversationId ?? undefined,
    "the typed message stored",
  );
  await waitFor(() => (page.url().includes(conversationId) ? true : undefined), "the /c/<id> URL");
  await e2e.fake.settled();
  return { page, conversationId };
}

/** The toolbar popup, showing `tab` as the current conversation (the popup page itself stays in the background). */
async function popupFor(tab: Page): Promise<Page> {
  const popup = await e2e.context.newPage();
  await popup.goto(`chrome-extension://${DEFAULT_CHROME_EXTENSION_ID}/extension/popup/popup.html`);
  await tab.bringToFront();
  await popup.reload();
  return popup;
}

async function workerOf(conversationId: string): Promise<string> {
  const { runs } = await tool<{ runs: { id: string }[] }>(e2e.mcp, "run_list", {});
  for (const r of runs) {
    const { workers } = await tool<{ workers: { id: string; conversation: { url: string | null } }[] }>(
      e2e.mcp,
      "worker_list",
      { runId: r.id },
    );
    const w = workers.find((x) => x.conversation.url?.includes(conversationId) === true);
    if (w) return w.id;
  }
  throw new Error(`no worker holds conversation ${conversationId}`);
}

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
      "Please plan and write a three-step refactor.",
    );
    const popup = await popupFor(page);
    await popup.getByTestId("adopt-objective").fill("finish the refactor");
    await popup.getByTestId("adopt-button").click();

    const workerId = await waitFor(
      () => workerOf(conversationId).catch(() => undefined),
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
    const { page, conversationId } = await personalConversation("Help me migrate the database.");
    const popup = await popupFor(page);
    await popup.getByTestId("adopt-button").click();
    const workerId = await waitFor(
      () => workerOf(conversationId).catch(() => undefined),
      "the adopted worker",
    );
    const blocked = await e2e.waitWorker(workerId, "Needs you", (w) => w.worker.label === "Needs you");
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
