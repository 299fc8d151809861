// One Firefox ESR profile with the extension, its native host and the fake chatgpt.com, for scenarios beyond the
// primary one: the wiring of primary.firefox.test.ts (a temp HOME with `orchestrator install --browser firefox`, the
// CONNECT proxy, WebDriver BiDi) behind the calls the Chromium harness offers.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";
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
  removeExtensionBuild,
  tool,
  waitFor,
  type WorkerOut,
} from "./harness.ts";

export class FirefoxE2E {
  private constructor(
    readonly fake: FakeChatGPT,
    readonly proxy: ConnectProxy,
    readonly firefox: FirefoxBidi,
    readonly mcp: Client,
    readonly home: string,
    readonly userHome: string,
    readonly ext: string,
  ) {}

  static async start(): Promise<FirefoxE2E> {
    const ext = await buildExtension("firefox");
    const fake = await FakeChatGPT.start();
    const proxy = await ConnectProxy.start(fake.port);
    const home = mkdtempSync(path.join(tmpdir(), "orch-e2e-home-"));
    const userHome = mkdtempSync(path.join(tmpdir(), "orch-e2e-ffhome-"));
    await orchestratorCli(["install", "--browser", "firefox"], { ORCHESTRATOR_HOME: home, HOME: userHome });
    const firefox = await FirefoxBidi.launch({
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
    const mcp = await connectMcp(home);
    const { token } = JSON.parse(readFileSync(path.join(home, "config.json"), "utf8")) as { token: string };
    fake.setConnectorUrl(`${status.mcpUrl}/${token}`);
    return new FirefoxE2E(fake, proxy, firefox, mcp, home, userHome, ext);
  }

  async createRun(policy: Record<string, unknown>): Promise<string> {
    const { run } = await tool<{ run: { id: string } }>(this.mcp, "run_create", {
      name: "E2E run (Firefox)",
      policy,
    });
    return run.id;
  }

  async spawn(runId: string, workerPath: string): Promise<string> {
    const { worker } = await tool<WorkerOut>(this.mcp, "worker_spawn", {
      runId,
      path: workerPath,
      objective: `work at ${workerPath}`,
    });
    return worker.id;
  }

  worker(workerId: string): Promise<WorkerOut> {
    return tool<WorkerOut>(this.mcp, "worker_get", { workerId });
  }

  waitWorker(workerId: string, what: string, ok: (w: WorkerOut) => boolean, timeoutMs = 60_000) {
    return waitFor(
      async () => {
        const w = await this.worker(workerId);
        return ok(w) ? w : undefined;
      },
      what,
      timeoutMs,
    );
  }

  conversationOf(workerId: string): Promise<string> {
    return waitFor(
      () => [...this.fake.conversations.values()].find((c) => c.workerId === workerId)?.id,
      `the conversation of worker ${workerId}`,
      30_000,
    );
  }

  /** The browsing contexts (tabs) showing the conversation. */
  async tabsShowing(conversationId: string): Promise<string[]> {
    const tabs = await this.firefox.tabs();
    return tabs.filter((t) => t.url.includes(`/c/${conversationId}`)).map((t) => t.context);
  }

  async diagnostics(): Promise<string> {
    const ff = `--- firefox stderr (tail) ---\n${this.firefox.stderr.join("").slice(-4000)}`;
    return `${await diagnostics(this.fake, this.mcp, this.home)}\n${ff}`;
  }

  async close(): Promise<void> {
    await this.mcp.close().catch(() => undefined);
    await this.firefox.close();
    await this.proxy.close();
    await this.fake.close();
    const pid = readStatus(this.home)?.pid;
    if (pid !== undefined)
      await waitFor(() => !isAlive(pid), "the host to exit", 15_000).catch(() => undefined);
    rmSync(this.home, { recursive: true, force: true });
    rmSync(this.userHome, { recursive: true, force: true });
    removeExtensionBuild(this.ext);
  }
}
