// The lifecycle every managed-tabs scenario file shares (docs/e2e.md, "Managed tabs"): one Chromium with the built
// extension per file, the fake reset before each scenario, and after it held turns released, the run stopped and the
// chat tabs closed, so scenarios stay independent.
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { buildExtension, ChromiumE2E, tool } from "./harness.ts";
import { HeldTurns } from "./scenario-kit.ts";
import { closeChatTabs } from "./tabs-kit.ts";

export interface TabsSuite {
  /** The file's browser, host and fake (set before the first scenario). */
  readonly e2e: ChromiumE2E;
  readonly held: HeldTurns;
  /** Creates the scenario's run; it is stopped after the scenario. */
  createRun(policy: Record<string, unknown>): Promise<string>;
}

export function tabsSuite(): TabsSuite {
  let e2e: ChromiumE2E | undefined;
  let runId: string | undefined;
  const held = new HeldTurns();
  const browser = (): ChromiumE2E => {
    if (!e2e) throw new Error("the suite's browser is not started yet");
    return e2e;
  };

  beforeAll(async () => {
    e2e = await ChromiumE2E.start(await buildExtension("chrome"));
  }, 120_000);

  beforeEach(() => {
    browser().fake.reset();
    runId = undefined;
  });

  afterEach(async (ctx) => {
    const b = browser();
    if (ctx.task.result?.state === "fail") console.error(await b.diagnostics());
    held.releaseAll();
    if (runId) await tool(b.mcp, "run_stop", { runId }).catch(() => undefined);
    await b.fake.settled();
    await closeChatTabs(b);
  }, 30_000);

  afterAll(async () => {
    await e2e?.close();
  });

  return {
    get e2e() {
      return browser();
    },
    held,
    async createRun(policy) {
      runId = await browser().createRun(policy);
      return runId;
    },
  };
}
