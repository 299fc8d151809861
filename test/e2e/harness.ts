// The end-to-end harness: builds the production extension into a temp dir, starts the fake chatgpt.com, installs
// the native host manifest into a temp Chromium profile, launches Debian's Chromium through playwright-core with
// the extension loaded and chatgpt.com mapped to the fake, and connects an MCP client to the real host it spawns.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { chromium, type BrowserContext, type Page, type Worker as PwWorker } from "playwright-core";
import { DEFAULT_CHROME_EXTENSION_ID } from "../../shared/extension-ids.ts";
import { FakeChatGPT, type FakeOptions } from "../fake-chatgpt/server.ts";
import { connectMcp, tool } from "../host/host-harness.ts";
import { waitFor as waitForCondition } from "../wait-for.ts";
import { ExtensionConsole } from "./extension-console.ts";
import { launchThrottledChromium } from "./throttled-chromium.ts";

const run = promisify(execFile);
export const ROOT = path.resolve(import.meta.dirname, "../..");
export const CHROMIUM = "/usr/lib/chromium/chromium";
export const FIREFOX = "/usr/bin/firefox-esr";

/** Chromium switches for a quiet, offline run: no GPU, QUIC, first-run UI, background fetches, updates or sync. */
export const QUIET_CHROMIUM = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** chatgpt.com resolves to the fake on `port` (self-signed), and every other host to nothing. */
export function fakeSiteSwitches(port: number): string[] {
  return [
    `--host-resolver-rules=MAP chatgpt.com 127.0.0.1:${port}, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1`,
    "--ignore-certificate-errors",
  ];
}
const VITE = path.join(ROOT, "node_modules/vite/bin/vite.js");
const CLI = path.join(ROOT, "bin/orchestrator.js");

export { tool };

/** Waits for a condition with a deadline (polling every 100 ms: probes here are MCP calls, not free). */
export function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  return waitForCondition(probe, what, timeoutMs, 100);
}

/** Builds the extension exactly as `npm run build:<target>` does, into a temp dir (never the repo's dist/). */
export async function buildExtension(target: "chrome" | "firefox"): Promise<string> {
  const out = mkdtempSync(path.join(tmpdir(), "orch-e2e-ext-"));
  await run(process.execPath, [VITE, "build", "--mode", target], {
    cwd: ROOT,
    env: { ...process.env, ORCHESTRATOR_EXT_OUT_DIR: out, NODE_ENV: "production" },
    timeout: 120_000,
  });
  return path.join(out, target);
}

/** Removes a build made by `buildExtension`. */
export function removeExtensionBuild(dir: string): void {
  rmSync(path.dirname(dir), { recursive: true, force: true });
}

export async function orchestratorCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
}

export interface HostStatus {
  pid: number;
  mcpUrl: string | null;
  executors: string[];
}

export function readStatus(home: string): HostStatus | undefined {
  const file = path.join(home, "status.json");
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as HostStatus;
  } catch {
    return undefined; // mid-rename on some filesystems; the caller polls again
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface WorkerOut {
  worker: {
    id: string;
    runId: string;
    label: string;
    status: string;
    attempt: { seq: number; reason: string; state: string } | null;
    pendingContinuation: unknown;
    noProgressAttempts: number;
    stallWarning: boolean;
    pause: { source: string } | null;
    conversation: { state: string; binding: string; url: string | null };
  };
  attempts: {
    seq: number;
    reason: string;
    state: string;
    outcome: string | null;
    submittedAt: number | null;
    /** When the attempt ended (its turn's idle, a failure, a cancel). */
    terminalAt: number | null;
    errorCode: string | null;
  }[];
}

export interface E2EOptions extends FakeOptions {
  /** An existing fake to reuse (two profiles on one backend share one chatgpt.com). */
  fake?: FakeChatGPT;
  /** An existing data directory (a second browser on the same backend). */
  home?: string;
  /** Default true; `npm run demo` shows the browser where a display exists. */
  headless?: boolean;
  /**
   * Hidden tabs as in a person's browser (default false): without Playwright's anti-throttling switches
   * (`--disable-background-timer-throttling`, `--disable-renderer-backgrounding`,
   * `--disable-backgrounding-occluded-windows`) and without its focus emulation, which keeps every page visible; the
   * browser is started by `throttled-chromium.ts` and attached over CDP.
   */
  backgroundThrottling?: boolean;
}

/** One Chromium profile with the extension, its native host, and the fake site. */
export class ChromiumE2E {
  context!: BrowserContext;
  mcp!: Client;
  connectorUrl = "";
  headless = true;
  backgroundThrottling = false;
  /** The extension's log lines, for diagnostics (every launch of this profile appends to it). */
  readonly console = new ExtensionConsole();
  private closeContext: () => Promise<void> = () => this.context.close();
  private readonly ownsFake: boolean;
  private readonly ownsHome: boolean;

  private constructor(
    readonly ext: string,
    readonly fake: FakeChatGPT,
    readonly home: string,
    readonly udd: string,
    readonly fakeHome: string,
    ownsFake: boolean,
    ownsHome: boolean,
  ) {
    this.ownsFake = ownsFake;
    this.ownsHome = ownsHome;
  }

  static async start(ext: string, opts: E2EOptions = {}): Promise<ChromiumE2E> {
    const fake = opts.fake ?? (await FakeChatGPT.start(opts));
    const home = opts.home ?? mkdtempSync(path.join(tmpdir(), "orch-e2e-home-"));
    const fakeHome = mkdtempSync(path.join(tmpdir(), "orch-e2e-userhome-"));
    // Chromium's default profile under that HOME: it reads the user-level manifest from
    // ~/.config/chromium/NativeMessagingHosts, exactly where a plain `orchestrator install` writes it.
    const udd = path.join(fakeHome, ".config", "chromium");
    mkdirSync(udd, { recursive: true });
    const e2e = new ChromiumE2E(ext, fake, home, udd, fakeHome, !opts.fake, !opts.home);
    e2e.headless = opts.headless ?? true;
    e2e.backgroundThrottling = opts.backgroundThrottling ?? false;
    await orchestratorCli(["install", "--browser", "chromium"], { ORCHESTRATOR_HOME: home, HOME: fakeHome });
    await e2e.launch();
    return e2e;
  }

  get env(): Record<string, string> {
    return { ORCHESTRATOR_HOME: this.home, HOME: this.fakeHome, ORCHESTRATOR_MCP_PORT: "0" };
  }

  /** Launches (or relaunches, after `closeBrowser`) Chromium on the same profile. */
  async launch(opts: { restoreSession?: boolean; previousPid?: number } = {}): Promise<void> {
    const args = [
      `--disable-extensions-except=${this.ext}`,
      `--load-extension=${this.ext}`,
      ...QUIET_CHROMIUM,
      ...fakeSiteSwitches(this.fake.port),
      ...(opts.restoreSession ? ["--restore-last-session"] : []),
    ];
    if (this.backgroundThrottling) {
      const browser = await launchThrottledChromium(CHROMIUM, this.udd, args, this.env);
      this.context = browser.context;
      this.closeContext = () => browser.close();
    } else {
      this.context = await chromium.launchPersistentContext(this.udd, {
        executablePath: CHROMIUM,
        headless: this.headless,
        env: { ...process.env, ...this.env },
        args,
      });
      this.closeContext = () => this.context.close();
    }
    this.console.attach(this.context);
    await this.serviceWorker();
    await this.connect(opts.previousPid);
  }

  /** Waits for the owner's MCP endpoint and connects the operator's client and the fake's connector to it. */
  async connect(previousPid?: number): Promise<void> {
    const status = await waitFor(
      () => {
        const s = readStatus(this.home);
        return s?.mcpUrl && s.pid !== previousPid && isAlive(s.pid) ? s : undefined;
      },
      "the host's MCP endpoint (status.json)",
      30_000,
    );
    await this.mcp?.close().catch(() => undefined);
    this.mcp = await connectMcp(this.home);
    const { token } = JSON.parse(readFileSync(path.join(this.home, "config.json"), "utf8")) as {
      token: string;
    };
    this.connectorUrl = `${status.mcpUrl}/${token}`;
    this.fake.setConnectorUrl(this.connectorUrl);
  }

  async serviceWorker(): Promise<PwWorker> {
    const prefix = `chrome-extension://${DEFAULT_CHROME_EXTENSION_ID}/`;
    return (
      this.context.serviceWorkers().find((w) => w.url().startsWith(prefix)) ??
      (await this.context.waitForEvent("serviceworker", {
        predicate: (w) => w.url().startsWith(prefix),
        timeout: 15_000,
      }))
    );
  }

  hostPid(): number | undefined {
    return readStatus(this.home)?.pid;
  }

  /** The tab showing a conversation of the fake, once its /c/<uuid> URL is there. */
  async pageFor(conversationId: string): Promise<Page> {
    return waitFor(
      () => this.context.pages().find((p) => p.url().includes(conversationId)),
      `a tab on conversation ${conversationId}`,
    );
  }

  /** The fake's conversation whose first prompt named this worker. */
  async conversationOf(workerId: string): Promise<string> {
    return waitFor(
      () => [...this.fake.conversations.values()].find((c) => c.workerId === workerId)?.id,
      `the conversation of worker ${workerId}`,
      30_000,
    );
  }

  async worker(workerId: string): Promise<WorkerOut> {
    return tool<WorkerOut>(this.mcp, "worker_get", { workerId });
  }

  async waitWorker(
    workerId: string,
    what: string,
    ok: (w: WorkerOut) => boolean,
    timeoutMs = 60_000,
  ): Promise<WorkerOut> {
    return waitFor(
      async () => {
        const w = await this.worker(workerId);
        return ok(w) ? w : undefined;
      },
      what,
      timeoutMs,
    );
  }

  async createRun(policy: Record<string, unknown>): Promise<string> {
    const { run } = await tool<{ run: { id: string } }>(this.mcp, "run_create", {
      name: "E2E run",
      objective: "exercise the orchestrator end to end",
      policy,
    });
    return run.id;
  }

  async spawn(runId: string, workerPath: string, objective = `work at ${workerPath}`): Promise<string> {
    const { worker } = await tool<WorkerOut>(this.mcp, "worker_spawn", {
      runId,
      path: workerPath,
      objective,
    });
    return worker.id;
  }

  async diagnostics(): Promise<string> {
    return `${await diagnostics(this.fake, this.mcp, this.home)}\n--- extension console ---\n${this.console.format()}`;
  }

  /** Whether Chromium's session files (what `--restore-last-session` reopens) already hold this text. */
  sessionHolds(text: string): boolean {
    const dir = path.join(this.udd, "Default", "Sessions");
    if (!existsSync(dir)) return false;
    return readdirSync(dir).some((f) => readFileSync(path.join(dir, f)).includes(text));
  }

  async closeBrowser(): Promise<void> {
    await this.mcp?.close().catch(() => undefined);
    await this.closeContext();
  }

  async close(): Promise<void> {
    await this.closeBrowser().catch(() => undefined);
    if (this.ownsFake) await this.fake.close();
    // The host exits when the browser closes its port; wait so its files are released before removal.
    const pid = this.hostPid();
    if (pid !== undefined && this.ownsHome)
      await waitFor(() => !isAlive(pid), "the host to exit", 15_000).catch(() => undefined);
    rmSync(this.udd, { recursive: true, force: true });
    rmSync(this.fakeHome, { recursive: true, force: true });
    if (this.ownsHome) {
      rmSync(this.home, { recursive: true, force: true });
      // The first browser of a file owns the build too (a second profile on the same backend shares it).
      removeExtensionBuild(this.ext);
    }
  }
}

/** What a reader needs when a scenario fails: the fake page's log and the host's durable event trail. */
export async function diagnostics(fake: FakeChatGPT, mcp: Client | undefined, home: string): Promise<string> {
  const parts = [`--- fake chatgpt.com log ---\n${fake.formatLog()}`];
  try {
    if (!mcp) throw new Error("no MCP client");
    const { events } = await tool<{ events: unknown[] }>(mcp, "events_list", { cursor: 0, limit: 200 });
    parts.push(`--- host events ---\n${events.map((e) => JSON.stringify(e)).join("\n")}`);
  } catch (e) {
    parts.push(`--- host events unavailable: ${String(e)}`);
  }
  const hostLog = path.join(home, "logs", "host.log");
  if (existsSync(hostLog))
    parts.push(`--- host.log (tail) ---\n${readFileSync(hostLog, "utf8").slice(-8000)}`);
  return parts.join("\n");
}
