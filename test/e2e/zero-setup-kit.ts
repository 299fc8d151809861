// Shared steps of the zero-setup scenarios (conversation_adopt, docs/mcp.md) in real Chromium: a person's own
// conversation, the popup for a tab, the settings page, the worker holding a conversation, and reaching into the overlay's closed shadow root
// through the DevTools protocol (page scripts and Playwright selectors cannot; the browser's debugger can).
import type { CDPSession, Page } from "playwright-core";
import { DEFAULT_CHROME_EXTENSION_ID } from "../../shared/extension-ids.ts";
import { tool, waitFor, type ChromiumE2E } from "./harness.ts";

const EXTENSION_BASE = `chrome-extension://${DEFAULT_CHROME_EXTENSION_ID}/extension`;

/**
 * In `page`, a person opens chatgpt.com and sends `text` by hand (classic layout); resolves with the conversation id
 * once the tab shows its /c/<id> URL.
 */
export async function sendByHand(e2e: Pick<ChromiumE2E, "fake">, page: Page, text: string): Promise<string> {
  const since = Date.now();
  await page.goto("https://chatgpt.com/");
  // Text typed before hydration replaces the composer is lost, as it would be for a person.
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
  return conversationId;
}

/** A person opens chatgpt.com in a new tab and sends one message by hand; returns the tab and its conversation id. */
export async function personalConversation(
  e2e: ChromiumE2E,
  text: string,
): Promise<{ page: Page; conversationId: string }> {
  const page = await e2e.context.newPage();
  const conversationId = await sendByHand(e2e, page, text);
  await e2e.fake.settled();
  return { page, conversationId };
}

/** The toolbar popup, showing `tab` as the current conversation (the popup page itself stays in the background). */
export async function popupFor(e2e: ChromiumE2E, tab: Page): Promise<Page> {
  const popup = await e2e.context.newPage();
  await popup.goto(`${EXTENSION_BASE}/popup/popup.html`);
  await tab.bringToFront();
  await popup.reload();
  return popup;
}

/** Sets the settings page's "Offer 'Keep this conversation going'" switch, as a person does, and closes the page. */
export async function setOfferAdopt(e2e: ChromiumE2E, on: boolean): Promise<void> {
  const options = await e2e.context.newPage();
  await options.goto(`${EXTENSION_BASE}/options/options.html`);
  const offer = options.getByTestId("pref-offerAdopt");
  await offer.waitFor();
  if ((await offer.getAttribute("aria-checked")) !== String(on)) {
    await offer.focus();
    await options.keyboard.press("Enter");
  }
  await waitFor(
    async () => ((await offer.getAttribute("aria-checked")) === String(on) ? true : undefined),
    `the offer switch ${on ? "on" : "off"}`,
  );
  await options.close();
}

export async function workerOf(e2e: ChromiumE2E, conversationId: string): Promise<string> {
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

interface DomNode {
  nodeId: number;
  attributes?: string[];
  children?: DomNode[];
  shadowRoots?: DomNode[];
}

/** The overlay's closed shadow root, read through the DevTools protocol (`pierce` includes closed roots). */
export class OverlayProbe {
  private constructor(private readonly cdp: CDPSession) {}

  static async attach(e2e: ChromiumE2E, page: Page): Promise<OverlayProbe> {
    return new OverlayProbe(await e2e.context.newCDPSession(page));
  }

  /** The node with this `data-testid` anywhere in the page, shadow roots included. */
  async find(testId: string): Promise<number | undefined> {
    const { root } = (await this.cdp.send("DOM.getDocument", { depth: -1, pierce: true })) as {
      root: DomNode;
    };
    const stack = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      const attrs = node.attributes ?? [];
      for (let i = 0; i < attrs.length; i += 2)
        if (attrs[i] === "data-testid" && attrs[i + 1] === testId) return node.nodeId;
      stack.push(...(node.children ?? []), ...(node.shadowRoots ?? []));
    }
    return undefined;
  }

  async waitFor(testId: string): Promise<number> {
    return waitFor(() => this.find(testId), `[data-testid=${testId}] in the overlay`);
  }

  async text(nodeId: number): Promise<string> {
    const { outerHTML } = await this.cdp.send("DOM.getOuterHTML", { nodeId });
    return outerHTML.replace(/<[^>]+>/g, "");
  }

  /** Keyboard focus on the node (what a person's Tab would do; the keys that follow are real ones). */
  async focus(nodeId: number): Promise<void> {
    await this.cdp.send("DOM.focus", { nodeId });
  }

  async detach(): Promise<void> {
    await this.cdp.detach();
  }
}
