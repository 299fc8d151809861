// The fake chatgpt.com's conversation length limit in real Chromium, read by the real page adapter (bundled into the
// page as the content script bundles it; no extension, no host): the notice after the configured turns or on a test's
// word, no answer into that conversation any more, a new chat unaffected, and a scripted answer's handoff block
// reported with the turn's idle (docs/e2e.md, "The fake chatgpt.com"; docs/adapter.md, "Error classification").
import { randomUUID } from "node:crypto";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HANDOFF_BEGIN, HANDOFF_END } from "../../shared/handoff-block.ts";
import { CHROMIUM, fakeSiteSwitches, QUIET_CHROMIUM, waitFor } from "../e2e/harness.ts";
import { type AdapterWindow, bundleAdapter, reports, submit, waitReport } from "./adapter-page.ts";
import { FakeChatGPT, LENGTH_LIMIT_TEXT, LENGTH_LIMIT_TEXT_OLD, type Layout } from "./server.ts";

const BRIEF = "done: the parser\nnext steps: open the new chat\ndecisions: none\nopen questions: none";
const CONTINUATION = "status: working\nsummary: brief written\ncurrent: handing off\nnext: new chat";

let fake: FakeChatGPT;
let browser: Browser;
let adapterScript: string;

beforeAll(async () => {
  adapterScript = await bundleAdapter();
  fake = await FakeChatGPT.start({
    stopDelayMs: [50, 150],
    sendDisabledMs: [50, 100],
    hydrationRemountMs: null,
    acceptDelayMs: [0, 0],
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...QUIET_CHROMIUM, ...fakeSiteSwitches(fake.port)],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fake?.close();
});

beforeEach(() => fake.reset());

/** Loads `url` in `page` and starts the adapter there (short settle), once the composer is up. */
async function load(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector("form .ProseMirror[contenteditable='true']");
  await page.addScriptTag({ content: adapterScript });
  await page.evaluate(() => {
    const w = window as unknown as AdapterWindow;
    w.reports = [];
    w.adapter = w.ChatGptAdapter.createChatGptAdapter(window, {
      now: () => Date.now(),
      setTimeout: (fn, ms) => window.setTimeout(fn, ms),
      clearTimeout: (h) => window.clearTimeout(h as number),
      onReport: (r) => void w.reports.push(r),
      idleDebounceMs: 300,
    });
    w.adapter.start();
  });
}

/** A conversation holding one finished exchange (one user turn), open in a new tab with the adapter settled. */
async function openConversation(layout: Layout): Promise<{ page: Page; id: string }> {
  fake.page.layout = layout;
  const id = randomUUID();
  const stored = (role: "user" | "assistant", text: string) => {
    return { role, id: randomUUID(), text, tools: [], error: null, complete: true };
  };
  const turns = [stored("user", "Start."), stored("assistant", `Started.\n\n${CONTINUATION}`)];
  fake.conversations.set(id, { id, turns, live: null, workerId: null, runId: null });
  const page = await browser.newPage({ ignoreHTTPSErrors: true });
  await load(page, `https://chatgpt.com/c/${id}`);
  await waitReport(page, () => true, "the first");
  return { page, id };
}

/** A person's own send (typed, then Send once it enables): what the adapter refuses to do under the notice. */
async function personSends(page: Page, text: string): Promise<void> {
  await page.locator("#thread-bottom-container .ProseMirror[contenteditable='true']").click();
  await page.keyboard.type(text);
  await page.locator('#thread-bottom-container button[data-kind="send"]:not([disabled])').click();
}

const noticesShown = (page: Page, text: string) => page.getByText(text, { exact: true }).count();

describe.each(["classic", "composer-2026"] as const)("%s layout", { timeout: 60_000 }, (layout) => {
  it("after the configured turns the next send gets the notice and no answer, later sends too; a new chat answers", async () => {
    fake.setLengthLimit({ maxTurnsPerConversation: 2 });
    fake.setAssistant(async (turn) => {
      await turn.say(`Handing off.\n\n${HANDOFF_BEGIN}\n${BRIEF}\n${HANDOFF_END}\n\n${CONTINUATION}`);
    });
    const { page, id } = await openConversation(layout);
    const first = (await reports(page))[0]!;

    // The second user turn is answered: its handoff block comes with the idle report, with the grown length.
    expect(await submit(page, "orc-len-1")).toMatchObject({ outcome: "submitted" });
    const idle = await waitReport(page, (r) => r.state === "idle", "idle after the answered send");
    expect(idle).toMatchObject({ handoffBrief: BRIEF, continuationStatus: "working" });
    expect(idle.visibleChars).toBeGreaterThan(first.visibleChars! + BRIEF.length);

    // The third is not: the notice shows in its turn, and the adapter reads the conversation as too long.
    expect(await submit(page, "orc-len-2")).toMatchObject({ outcome: "submitted" });
    const tooLong = await waitReport(page, (r) => r.state === "error", "the length limit");
    expect(tooLong.errorCode).toBe("CONVERSATION_TOO_LONG");
    expect(tooLong).not.toHaveProperty("handoffBrief");
    expect(await noticesShown(page, LENGTH_LIMIT_TEXT)).toBe(1);
    expect(fake.tooLongSends()).toBe(1);
    const answers = () => fake.conversations.get(id)!.turns.filter((t) => t.role === "assistant");
    expect(answers().at(-1)).toMatchObject({ text: "", error: { text: LENGTH_LIMIT_TEXT } });

    // The adapter refuses to send into it before typing anything; a person's own send gets the notice again.
    expect(await submit(page, "orc-len-3")).toMatchObject({
      outcome: "failed",
      errorCode: "CONVERSATION_TOO_LONG",
      phase: "before-submit",
    });
    await personSends(page, "Are you there?");
    await waitFor(() => fake.tooLongSends() === 2, "the person's send refused the same way");
    await waitFor(async () => (await noticesShown(page, LENGTH_LIMIT_TEXT)) === 2, "the second notice");
    expect(answers().filter((t) => t.text !== "")).toHaveLength(2); // the stored one and the handoff answer
    // Every message that reached the server is stored, the two the notice answered included (orc-len-3 never left).
    const stored = fake.stored(id).map((m) => m.text);
    expect(stored).toHaveLength(3);
    expect(stored[0]).toContain("orc-len-1");
    expect(stored[1]).toContain("orc-len-2");
    expect(stored[2]).toBe("Are you there?");
    expect(fake.clicks("retry")).toBe(0);

    // A new chat starts from zero turns: it is answered.
    fake.setAssistant(async (turn) => await turn.say(`Fresh start.\n\n${CONTINUATION}`));
    await load(page, "https://chatgpt.com/");
    await waitReport(page, (r) => r.state === "ready", "the new chat ready");
    expect(await submit(page, "orc-len-new")).toMatchObject({ outcome: "submitted" });
    const fresh = await waitReport(page, (r) => r.state === "idle", "idle in the new chat");
    expect(fresh.url).not.toContain(id);
    expect(fresh).not.toHaveProperty("handoffBrief");
    expect(fake.tooLongSends()).toBe(2);
    await page.close();
  });

  it("a conversation a test declares too long, with the older words: CONVERSATION_TOO_LONG at the next send", async () => {
    fake.setLengthLimit({ text: LENGTH_LIMIT_TEXT_OLD });
    const { page, id } = await openConversation(layout);
    fake.conversationTooLong(id);
    expect(await submit(page, "orc-old-words")).toMatchObject({ outcome: "submitted" });
    const tooLong = await waitReport(page, (r) => r.state === "error", "the length limit");
    expect(tooLong.errorCode).toBe("CONVERSATION_TOO_LONG");
    expect(await noticesShown(page, LENGTH_LIMIT_TEXT_OLD)).toBe(1);
    expect(fake.tooLongSends()).toBe(1);
    // A reload shows the stored notice again, and the adapter still reads it.
    await load(page, `https://chatgpt.com/c/${id}`);
    await waitReport(page, (r) => r.errorCode === "CONVERSATION_TOO_LONG", "the length limit after a reload");
    await page.close();
  });
});
