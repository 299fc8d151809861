// The real page adapter in a fake chatgpt.com page, for the fake's own tests in real Chromium (no extension, no host):
// bundled as the content script bundles it (one IIFE, `ChatGptAdapter` on the window), its reports read, a send made.
import path from "node:path";
import { build, type Rolldown } from "vite";
import type { Page } from "playwright-core";
import type { StateReport, SubmitOutcome } from "../../extension/content/adapter/index.ts";
import { waitFor } from "../e2e/harness.ts";

const ADAPTER = path.join(import.meta.dirname, "../../extension/content/adapter/index.ts");

/** The page's window once the bundle ran and a test script started the adapter, collecting its reports. */
export type AdapterWindow = Window & {
  ChatGptAdapter: typeof import("../../extension/content/adapter/index.ts");
  reports: StateReport[];
  adapter: ReturnType<typeof import("../../extension/content/adapter/index.ts").createChatGptAdapter>;
};

export async function bundleAdapter(): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: "warn",
    build: {
      write: false,
      minify: false,
      target: "chrome120",
      lib: { entry: ADAPTER, formats: ["iife"], name: "ChatGptAdapter" },
    },
  })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  return (Array.isArray(out) ? out[0]! : out).output[0].code;
}

/** Every report the adapter made in the page so far. */
export const reports = (page: Page): Promise<StateReport[]> =>
  page.evaluate(() => (window as unknown as AdapterWindow).reports);

/** The newest report passing `test`, waited for (10 s); on failure the error lists what was reported. */
export async function waitReport(
  page: Page,
  test: (r: StateReport) => boolean,
  what: string,
): Promise<StateReport> {
  let last: StateReport[] = [];
  try {
    return await waitFor(
      async () => {
        last = await reports(page);
        return last.findLast(test);
      },
      `the report: ${what}`,
      10_000,
    );
  } catch (e) {
    throw new Error(`${String(e)}; reports: ${JSON.stringify(last)}`);
  }
}

/** A `continue` sent through the adapter, with the marker the executor would embed. */
export function submit(page: Page, marker: string): Promise<SubmitOutcome> {
  return page.evaluate(
    (m) =>
      (window as unknown as AdapterWindow).adapter.submit({
        text: `continue\n\n[ref: ${m}]`,
        marker: m,
        mode: "send",
      }),
    marker,
  );
}
