// Shared pieces of the operator-UI suites in real Chromium: opening the popup, dashboard and settings pages, reading
// and clicking the overlay inside its closed shadow root (through CDP, which can see closed roots), axe-core audits
// of real pages and of the overlay, and screenshots into test-results/screenshots/ (not committed).
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { CDPSession, Page } from "playwright-core";
import { expect } from "vitest";
import { DEFAULT_CHROME_EXTENSION_ID } from "../../shared/extension-ids.ts";
import { ROOT, tool, waitFor, type ChromiumE2E, type WorkerOut } from "./harness.ts";

export const EXTENSION_BASE = `chrome-extension://${DEFAULT_CHROME_EXTENSION_ID}`;
export const POPUP_URL = `${EXTENSION_BASE}/extension/popup/popup.html`;
export const DASHBOARD_URL = `${EXTENSION_BASE}/extension/dashboard/dashboard.html`;
export const OPTIONS_URL = `${EXTENSION_BASE}/extension/options/options.html`;
export const OVERLAY_HOST_ID = "chatgpt-orchestrator-overlay";
/** Where the run leaves its screenshots for a reviewer (git-ignored). */
export const SCREENSHOT_DIR = path.join(ROOT, "test-results", "screenshots");

/**
 * The toolbar popup, showing `tab` as the current conversation. A real popup is not a tab; here the page is
 * opened as one, then the conversation is brought to the front and the popup reloaded, so the background's
 * "active tab of the last focused window" is the conversation when the popup asks.
 */
export async function openPopup(e2e: ChromiumE2E, tab: Page): Promise<Page> {
  const popup = await e2e.context.newPage();
  await popup.setViewportSize({ width: 400, height: 640 });
  await popup.goto(POPUP_URL);
  await tab.bringToFront();
  await popup.reload();
  await popup.getByTestId("popup").waitFor();
  return popup;
}

/** An extension page (dashboard or settings) in its own tab, once the host answered its first read. */
export async function openPage(e2e: ChromiumE2E, url: string, rootTestId: string): Promise<Page> {
  const page = await e2e.context.newPage();
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(url);
  await page.getByTestId(rootTestId).waitFor();
  return page;
}

/** What the probe reports about one element inside the overlay. */
export interface OverlayElement {
  text: string;
  disabled: boolean;
  /** Centre of the element in CSS pixels of the viewport, where a real click lands. */
  x: number;
  y: number;
}

/**
 * The overlay lives in a **closed** shadow root, which Playwright's locators cannot enter (by design: the page's
 * scripts cannot either). CDP's DOM domain can: `DOM.getDocument({pierce: true})` lists closed roots, and the
 * root resolved to a remote object can be queried. Clicks go through `page.mouse` at the element's centre, so
 * they are trusted input events, the only kind the overlay acts on.
 */
export class OverlayProbe {
  private constructor(
    private readonly page: Page,
    private readonly cdp: CDPSession,
  ) {}

  static async attach(page: Page): Promise<OverlayProbe> {
    return new OverlayProbe(page, await page.context().newCDPSession(page));
  }

  /** The overlay's host element and shadow root as the DOM has them now (undefined when not mounted). */
  async shadowInfo(): Promise<{ type: string; backendNodeId: number } | undefined> {
    const { root } = await this.cdp.send("DOM.getDocument", { depth: -1, pierce: true });
    const html = root.children?.find((n) => n.nodeName === "HTML");
    const host = html?.children?.find((n) => attribute(n.attributes, "id") === OVERLAY_HOST_ID);
    const shadow = host?.shadowRoots?.[0];
    return shadow ? { type: shadow.shadowRootType ?? "?", backendNodeId: shadow.backendNodeId } : undefined;
  }

  /** Runs `fn` with `this` bound to the overlay's shadow root (in the page's main world); undefined if absent. */
  async onShadow<T>(fn: string, arg: unknown = null): Promise<T | undefined> {
    const info = await this.shadowInfo();
    if (!info) return undefined;
    const objectGroup = "orc-overlay-probe";
    try {
      const { object } = await this.cdp.send("DOM.resolveNode", {
        backendNodeId: info.backendNodeId,
        objectGroup,
      });
      const r = await this.cdp.send("Runtime.callFunctionOn", {
        objectId: object.objectId,
        functionDeclaration: fn,
        arguments: [{ value: arg }],
        returnByValue: true,
        awaitPromise: true,
      });
      if (r.exceptionDetails) throw new Error(`overlay probe: ${JSON.stringify(r.exceptionDetails)}`);
      return r.result.value as T;
    } finally {
      await this.cdp.send("Runtime.releaseObjectGroup", { objectGroup });
    }
  }

  /** One element of the overlay by its data-testid, or undefined. */
  async find(testId: string): Promise<OverlayElement | undefined> {
    const found = await this.onShadow<OverlayElement | null>(
      `function (id) {
        const el = this.querySelector('[data-testid="' + id + '"]');
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return { text: el.textContent, disabled: el.disabled === true, x: r.x + r.width / 2, y: r.y + r.height / 2 };
      }`,
      testId,
    );
    return found ?? undefined;
  }

  /** Waits until the overlay shows `testId` (enabled), then clicks it like a person: a trusted mouse click. */
  async click(testId: string): Promise<void> {
    const el = await waitFor(async () => {
      const e = await this.find(testId);
      return e && !e.disabled ? e : undefined;
    }, `overlay control ${testId}`);
    await this.page.mouse.click(el.x, el.y);
  }

  /** The collapsed badge's text once it satisfies `ok`. */
  async waitBadge(what: string, ok: (text: string) => boolean): Promise<string> {
    return waitFor(async () => {
      const text = (await this.find("overlay-badge"))?.text;
      return text !== undefined && ok(text) ? text : undefined;
    }, `the overlay badge: ${what}`);
  }

  /** Opens the drawer (if closed) with a click on the badge. */
  async openDrawer(): Promise<void> {
    if (await this.find("overlay-drawer")) return;
    await this.click("overlay-badge");
    await waitFor(() => this.find("overlay-drawer"), "the overlay drawer");
  }

  /** axe-core over the overlay only; see `seriousViolations`. */
  async axe(): Promise<AxeFinding[]> {
    await injectAxe(this.page);
    // axe walks shadow roots through `element.shadowRoot`, which is null for a closed root. For the audit only,
    // the host's main-world wrapper is given a getter returning the root (the extension's own world and the
    // page's other code are unaffected), and removed again afterwards.
    const findings = await this.onShadow<AxeFinding[]>(
      `async function () {
        const host = this.host;
        Object.defineProperty(host, "shadowRoot", { configurable: true, get: () => this });
        try {
          const r = await window.axe.run(host, { resultTypes: ["violations"] });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
        } finally {
          delete host.shadowRoot;
        }
      }`,
    );
    if (findings === undefined) throw new Error("no overlay to audit");
    return findings;
  }

  async close(): Promise<void> {
    await this.cdp.detach().catch(() => undefined);
  }
}

function attribute(attrs: string[] | undefined, name: string): string | undefined {
  if (!attrs) return undefined;
  for (let i = 0; i + 1 < attrs.length; i += 2) if (attrs[i] === name) return attrs[i + 1];
  return undefined;
}

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Loads axe-core into the page's main world. `page.evaluate` goes through CDP, which the extension pages' CSP
 * (`script-src 'self'`) does not apply to, unlike an injected <script> tag.
 */
async function injectAxe(page: Page): Promise<void> {
  const loaded = await page.evaluate(() => "axe" in window);
  if (!loaded) await page.evaluate(AXE_SOURCE);
}

/** axe-core over a whole extension page (popup, dashboard, settings) as Chromium renders it. */
export async function axePage(page: Page): Promise<AxeFinding[]> {
  await injectAxe(page);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{
            violations: {
              id: string;
              impact: string | null;
              help: string;
              nodes: { target: unknown }[];
            }[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
}

/** The accessibility bar (docs/ui.md): no serious or critical violation (the findings are printed on failure). */
export function expectNoSeriousViolations(findings: AxeFinding[], where: string): void {
  const bad = findings.filter((f) => f.impact === "serious" || f.impact === "critical");
  expect(bad, `${where}: serious/critical axe violations`).toEqual([]);
}

/**
 * Writes a screenshot for the reviewer: test-results/screenshots/<name>.png (the whole page, or for a
 * conversation tab the viewport, where the fixed overlay is).
 */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage });
}

/** Whether the page has the extension's content script world (so an absent overlay is a decision, not a miss). */
export async function contentScriptWorlds(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const names: string[] = [];
  cdp.on("Runtime.executionContextCreated", (e) => {
    const aux = e.context.auxData as { type?: string } | undefined;
    if (aux?.type === "isolated" && e.context.origin.startsWith("chrome-extension://"))
      names.push(e.context.name);
  });
  // Enabling the domain replays a context-created event for every existing context before it returns.
  await cdp.send("Runtime.enable");
  await cdp.detach();
  return names;
}

/** The four states a worker is shown in for review: the label, a file-name slug, and the popup's label (null: gone). */
export type ShownState = readonly [state: string, slug: string, popupState: string | null];

/**
 * Walks one worker through Working, Needs you, Paused and Complete and calls `at` in each. The assistant script must
 * hold its first turn on `first` (then ask a question), its second on `second` (then report working), and complete
 * on the third; `answer` answers the question, a Pause lands during the second turn, Continue now lifts it.
 */
export async function walkFourStates(
  e2e: ChromiumE2E,
  workerId: string,
  gates: { first: { resolve(): void }; second: { resolve(): void }; answer: string },
  dashboard: Page,
  at: (...shown: ShownState) => Promise<void>,
): Promise<WorkerOut> {
  await at("Working", "working", "Working");
  gates.first.resolve();
  await e2e.waitWorker(
    workerId,
    "Needs you, turn ended",
    (w) => w.worker.label === "Needs you" && w.worker.conversation.state === "idle",
  );
  await dashboard.getByTestId("needs-you-item").waitFor();
  await at("Needs you", "needs-you", "Needs you");

  await tool(e2e.mcp, "human_resolve", { workerId, answer: gates.answer });
  await e2e.waitWorker(
    workerId,
    "the answer's turn generating",
    (w) => w.attempts.length === 2 && w.worker.conversation.state === "generating",
  );
  await tool(e2e.mcp, "worker_pause", { workerId });
  gates.second.resolve();
  await e2e.waitWorker(
    workerId,
    "paused after the turn",
    (w) => w.worker.label === "Paused" && w.worker.conversation.state === "idle",
  );
  await at("Paused", "paused", "Paused");

  await tool(e2e.mcp, "worker_continue_now", { workerId, clearPause: true });
  const done = await e2e.waitWorker(
    workerId,
    "complete, last turn ended",
    (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
  );
  await at("Complete", "complete", null);
  expect(done.attempts.map((a) => a.reason)).toEqual(["initial", "followup", "manual_resume"]);
  return done;
}
