// The fake chatgpt.com's page features that the managed-tab scenarios build on, in real Chromium with no extension
// (docs/e2e.md, "The fake chatgpt.com"): a mid-turn pause with no Stop and no busy signal in which Send is enabled but
// ignored, the same pause after a reload, the page's own end of turn reported once, and another chat opened from the
// sidebar without a page load.
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CHROMIUM, waitFor } from "../e2e/harness.ts";
import { FakeChatGPT } from "./server.ts";

let fake: FakeChatGPT;
let browser: Browser;

beforeAll(async () => {
  fake = await FakeChatGPT.start({
    stopDelayMs: [50, 150],
    sendDisabledMs: [50, 100],
    hydrationRemountMs: null,
    acceptDelayMs: [0, 0],
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      `--host-resolver-rules=MAP chatgpt.com 127.0.0.1:${fake.port}, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1`,
      "--ignore-certificate-errors",
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fake?.close();
});

beforeEach(() => fake.reset());

const EDITOR = "#thread-bottom-container .ProseMirror";
const PRIMARY = "#thread-bottom-container .composer-primary-slot button";

async function typeAndSend(page: Page, text: string): Promise<void> {
  await page.locator(EDITOR).click();
  await page.keyboard.type(text);
  await page.locator(`${PRIMARY}[data-testid="send-button"]:not([disabled])`).click();
}

/** What the page shows of the running turn. */
function shown(page: Page) {
  return page.evaluate(
    ([editor, primary]) => ({
      primary: document.querySelector(primary!)?.getAttribute("data-testid"),
      streaming: document.querySelectorAll(".result-streaming").length,
      actionBars: document.querySelectorAll('[data-testid="copy-turn-action-button"]').length,
      status: document.querySelector('[role="status"]')?.textContent,
      draft: document.querySelector(editor!)?.textContent,
    }),
    [EDITOR, PRIMARY],
  );
}

const logged = (kind: string) => fake.log.filter((e) => e.source === "page" && e.kind === kind);

describe("the fake page's pauses, ends and chat switches", { timeout: 60_000 }, () => {
  it("a quiet pause: no Stop, Send enabled but ignored; a reload shows it again; the end is reported once", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    fake.setAssistant(async (turn) => {
      await turn.say("Working on it.");
      await turn.quietPause(gate);
      await turn.say(" Done.");
    });
    const page = await browser.newPage({ ignoreHTTPSErrors: true });
    await page.goto("https://chatgpt.com/");
    await typeAndSend(page, "Start.");
    await waitFor(() => logged("quiet-pause").length === 1, "the pause on the page");
    expect(await shown(page)).toMatchObject({
      primary: "composer-speech-button",
      streaming: 0,
      actionBars: 0,
    });
    await page.locator(EDITOR).click();
    await page.keyboard.type("continue");
    await page.locator(`${PRIMARY}[data-testid="send-button"]:not([disabled])`).click();
    await waitFor(() => fake.ignoredSends().length === 1, "the ignored send");
    expect((await shown(page)).draft).toBe("continue");
    expect(fake.userMessages).toHaveLength(1);
    await page.reload();
    await waitFor(() => logged("quiet-pause").length === 2, "the pause replayed after the reload");
    expect(await shown(page)).toMatchObject({
      primary: "composer-speech-button",
      streaming: 0,
      actionBars: 0,
    });
    release();
    await waitFor(() => fake.turnEnds().length === 1, "the page's end of the turn");
    expect(await shown(page)).toMatchObject({ streaming: 0, actionBars: 1, status: "Response complete" });
    const [end] = fake.turnEnds();
    expect(end).toMatchObject({
      conversationId: fake.userMessages[0]!.conversationId,
      visibility: "visible",
    });
    expect(end!.t).toBeGreaterThanOrEqual(fake.log.find((e) => e.kind === "quiet-pause-ended")!.at);
    await page.close();
  });

  it("another chat opens from the sidebar without a page load; Back loads the first one again", async () => {
    const first = fake.seedConversation();
    const second = fake.seedConversation();
    const page = await browser.newPage({ ignoreHTTPSErrors: true });
    await page.goto(`https://chatgpt.com/c/${first}`);
    await page.locator(`nav a[href="/c/${second}"]`).click();
    await waitFor(() => page.url().endsWith(`/c/${second}`), "the second chat's URL");
    await waitFor(() => logged("chat-opened").length === 1, "the chat switch");
    // The second chat's one exchange replaces the first chat's (loaded by the page after the switch).
    await expect.poll(() => page.locator('[data-message-author-role="user"]').count()).toBe(1);
    expect(logged("page-loaded"), "no page load for the switch").toHaveLength(1);
    await page.goBack();
    await waitFor(() => logged("page-loaded").length === 2, "the first chat loaded again");
    expect(logged("page-loaded")[1]!.detail.path).toBe(`/c/${first}`);
    await page.close();
  });
});
