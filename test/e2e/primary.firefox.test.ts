// The primary scenario (docs/e2e.md) in Debian's Firefox ESR (WebDriver BiDi): the production Firefox build as a
// temporary add-on, its native host manifest under a temp HOME written by `orchestrator install`, the real host,
// and the fake chatgpt.com reached through a CONNECT proxy. Three attempts, worker_complete, no fourth.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_FIREFOX_EXTENSION_ID } from "../../shared/extension-ids.ts";
import { ConnectProxy } from "../fake-chatgpt/connect-proxy.ts";
import { FakeChatGPT } from "../fake-chatgpt/server.ts";
import { connectMcp } from "../host/host-harness.ts";
import { FirefoxBidi } from "./firefox-bidi.ts";
import {
  buildExtension,
  diagnostics,
  FIREFOX,
  isAlive,
  orchestratorCli,
  readStatus,
  tool,
  waitFor,
  type WorkerOut,
} from "./harness.ts";
import { completingTurn, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";

let fake: FakeChatGPT;
let proxy: ConnectProxy;
let firefox: FirefoxBidi | undefined;
let mcp: Client | undefined;
let home: string;
let userHome: string;
let ext: string;

beforeAll(async () => {
  ext = await buildExtension("firefox");
  fake = await FakeChatGPT.start();
  proxy = await ConnectProxy.start(fake.port);
  home = mkdtempSync(path.join(tmpdir(), "orch-e2e-home-"));
  userHome = mkdtempSync(path.join(tmpdir(), "orch-e2e-ffhome-"));
  await orchestratorCli(["install", "--browser", "firefox"], { ORCHESTRATOR_HOME: home, HOME: userHome });
  firefox = await FirefoxBidi.launch({
    executable: FIREFOX,
    home: userHome,
    proxyPort: proxy.port,
    env: { ORCHESTRATOR_MCP_PORT: "0" },
  });
  expect(await firefox.installExtension(ext)).toBe(DEFAULT_FIREFOX_EXTENSION_ID);
  const status = await waitFor(
    () => {
      const s = readStatus(home);
      return s?.mcpUrl && isAlive(s.pid) ? s : undefined;
    },
    "the host started by Firefox",
    30_000,
  );
  mcp = await connectMcp(home);
  const { token } = JSON.parse(readFileSync(path.join(home, "config.json"), "utf8")) as { token: string };
  fake.setConnectorUrl(`${status.mcpUrl}/${token}`);
}, 180_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") {
    console.error(await diagnostics(fake, mcp, home));
    console.error(`--- firefox stderr (tail) ---\n${firefox?.stderr.join("").slice(-4000)}`);
  }
});

afterAll(async () => {
  await mcp?.close().catch(() => undefined);
  await firefox?.close();
  await proxy?.close();
  await fake?.close();
  const pid = readStatus(home)?.pid;
  if (pid !== undefined)
    await waitFor(() => !isAlive(pid), "the host to exit", 15_000).catch(() => undefined);
  rmSync(home, { recursive: true, force: true });
  rmSync(userHome, { recursive: true, force: true });
  rmSync(path.dirname(ext), { recursive: true, force: true });
}, 60_000);

describe("primary scenario in Firefox ESR", () => {
  it("three attempts, worker_complete, no fourth; no manual prompt, duplicate or Retry", async () => {
    fake.setAssistant(async (turn) => {
      if (turn.index <= 2) await workingTurn(turn, `step ${turn.index}`);
      else await completingTurn(turn);
    });
    const client = mcp!;
    const { run } = await tool<{ run: { id: string } }>(client, "run_create", {
      name: "E2E run (Firefox)",
      policy: FAST_POLICY,
    });
    const { worker } = await tool<WorkerOut>(client, "worker_spawn", {
      runId: run.id,
      path: "/root",
      objective: "work at /root",
    });
    const done = await waitFor(
      async () => {
        const w = await tool<WorkerOut>(client, "worker_get", { workerId: worker.id });
        return w.worker.label === "Complete" && w.worker.attempt?.state === "completed" ? w : undefined;
      },
      "worker complete and the last turn ended",
      120_000,
    );
    await fake.settled();
    expect(done.attempts.map((a) => a.reason)).toEqual(["initial", "auto_resume", "auto_resume"]);
    const conversationId = [...fake.conversations.values()].find((c) => c.workerId === worker.id)?.id;
    expect(conversationId).toBeDefined();
    expect(await firefox!.tabUrls()).toContain(`https://chatgpt.com/c/${conversationId}`);
    expect(fake.stored(conversationId)).toHaveLength(3);
    expect(fake.stored()).toHaveLength(3);
    expectCleanRun(fake);
  }, 150_000);
});
