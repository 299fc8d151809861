// The fake chatgpt.com's rate-limit notices and failure card in real Chromium, read by the real page adapter (bundled
// into the page as the content script bundles it; no extension, no host): what end-to-end scenarios build on
// (docs/e2e.md, "The fake chatgpt.com"; docs/adapter.md, "Rate limits").
import { randomUUID } from "node:crypto";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CHROMIUM } from "../e2e/harness.ts";
import { type AdapterWindow, bundleAdapter, reports, submit, waitReport } from "./adapter-page.ts";
import { FakeChatGPT, formatClock, type Layout } from "./server.ts";

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

/** A conversation with one finished turn, open in a new tab with the adapter started and settled (short idle debounce). */
async function openConversation(layout: Layout): Promise<Page> {
  fake.page.layout = layout;
  const id = randomUUID();
  const stored = (role: "user" | "assistant", text: string) => {
    return { role, id: randomUUID(), text, tools: [], error: null, complete: true };
  };
  const turns = [stored("user", "Start."), stored("assistant", "Started.\n\nstatus: working")];
  fake.conversations.set(id, { id, turns, live: null, workerId: null, runId: null });
  const page = await browser.newPage({ ignoreHTTPSErrors: true });
  await page.goto(`https://chatgpt.com/c/${id}`);
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
  await waitReport(page, () => true, "the first");
  return page;
}

/** The next whole minute at least two minutes ahead (the words state minutes). */
function resetMinute(): Date {
  const at = new Date(Date.now() + 2 * 60_000);
  at.setSeconds(0, 0);
  return at;
}

describe.each(["classic", "composer-2026"] as const)("%s layout", (layout) => {
  it("a banner with a reset time: USAGE_CAP with resetAt; a send goes out under it and the reports move on", async () => {
    const page = await openConversation(layout);
    const at = resetMinute();
    fake.showLimit({ shape: "banner", resetAt: at });
    const limited = await waitReport(page, (r) => r.state === "error", "error");
    expect(limited).toMatchObject({ errorCode: "USAGE_CAP", resetAt: at.getTime() });
    expect(await page.locator("[data-fake-limit]").textContent()).toContain(formatClock(at));
    expect(await submit(page, "orc-limit-banner")).toMatchObject({ outcome: "submitted" });
    await waitReport(page, (r) => r.state === "idle", "idle after the send");
    expect((await reports(page)).map((r) => r.state)).toEqual(["ready", "error", "generating", "idle"]);
    expect(await page.locator("[data-fake-limit]").count()).toBe(1);
    expect(fake.stored()).toHaveLength(1);
    expect(fake.refusedSends()).toBe(0);
    await page.close();
  });

  it("the 'Something went wrong' card with Retry: RESPONSE_FAILED; an explicit send goes out without Retry", async () => {
    const page = await openConversation(layout);
    fake.setAssistant(async (turn) => {
      if (turn.text.includes("orc-fail")) turn.somethingWentWrong();
      else await turn.say("Back on track.\n\nstatus: working");
    });
    expect(await submit(page, "orc-fail")).toMatchObject({ outcome: "submitted" });
    await waitReport(page, (r) => r.errorCode === "RESPONSE_FAILED", "RESPONSE_FAILED");
    expect(await page.getByRole("button", { name: "Retry", exact: true }).count()).toBe(1);
    expect(await submit(page, "orc-after-fail")).toMatchObject({ outcome: "submitted" });
    await waitReport(page, (r) => r.state === "idle", "idle after the send");
    const states = (await reports(page)).map((r) => r.errorCode ?? r.state);
    expect(states.slice(-3)).toEqual(["RESPONSE_FAILED", "generating", "idle"]);
    expect(fake.clicks("retry")).toBe(0);
    expect(fake.duplicateUserMessages()).toBe(0);
    await page.close();
  });
});

describe("classic layout", () => {
  it("a modal without a time refusing sends: RATE_LIMITED, no resetAt; a send clicks its one Got it, the page takes the prompt, the server refuses it", async () => {
    const page = await openConversation("classic");
    fake.showLimit({ shape: "modal", refuseSends: true });
    const limited = await waitReport(page, (r) => r.state === "error", "error");
    expect(limited.errorCode).toBe("RATE_LIMITED");
    expect(limited).not.toHaveProperty("resetAt");
    // The host sends only once the limit's time has come (or for Continue now): the dialog that only says so is
    // acknowledged once, and the page takes the prompt; the server refuses it and the page shows the notice again.
    const out = await submit(page, "orc-modal");
    expect(out.outcome).toBe("submitted"); // the composer emptied: the page took it
    await waitReport(page, (r) => r.state === "generating", "generating");
    const again = await waitReport(
      page,
      (r) => r.errorCode === "RATE_LIMITED" && r !== limited,
      "the notice again",
    );
    expect(again.errorCode).toBe("RATE_LIMITED");
    expect(fake.refusedSends()).toBe(1);
    expect(fake.stored()).toHaveLength(0);
    expect(fake.clicks("retry")).toBe(0);
    expect(await page.locator('[role="dialog"]').count()).toBe(1);
    // Cleared by the test: the open page takes it away without a reload.
    fake.clearLimit();
    await page.locator('[role="dialog"]').waitFor({ state: "detached" });
    await page.close();
  });

  it("a notice shown while the page was closed is there on load; Got it keeps it from later loads", async () => {
    fake.showLimit({ shape: "modal", resetAt: resetMinute() });
    const page = await openConversation("classic");
    const limited = await waitReport(page, (r) => r.state === "error", "error");
    expect(limited).toMatchObject({ errorCode: "RATE_LIMITED", resetAt: expect.any(Number) as unknown });
    await page.getByRole("button", { name: "Got it" }).click();
    await page.reload();
    await page.waitForSelector("form .ProseMirror[contenteditable='true']");
    expect(await page.locator('[role="dialog"]').count()).toBe(0);
    await page.close();
  });
});
