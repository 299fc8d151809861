// Debian's Firefox ESR driven through raw WebDriver BiDi (built into Firefox; no geckodriver, no Playwright,
// which cannot drive stock ESR): spawn headless with a temp profile and HOME, install the extension as a
// temporary add-on, and close. How it is wired: docs/e2e.md, "How a browser is wired".
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import WebSocket from "ws";

export interface FirefoxOptions {
  executable: string;
  /** HOME for Firefox: its native-messaging-hosts manifest lives under it. */
  home: string;
  proxyPort: number;
  env?: Record<string, string>;
}

export class FirefoxBidi {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly stderr: string[] = [];

  private constructor(
    private readonly child: ChildProcess,
    private readonly ws: WebSocket,
    private readonly profile: string,
  ) {
    ws.on("message", (data: Buffer) => {
      const msg = JSON.parse(data.toString()) as {
        id?: number;
        type: string;
        result?: unknown;
        error?: string;
        message?: string;
      };
      if (msg.id === undefined) return;
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === "error") p?.reject(new Error(`${msg.error}: ${msg.message}`));
      else p?.resolve(msg.result);
    });
  }

  static async launch(opts: FirefoxOptions): Promise<FirefoxBidi> {
    const profile = mkdtempSync(path.join(tmpdir(), "orch-e2e-ff-profile-"));
    const prefs: Record<string, string | number | boolean> = {
      "network.proxy.type": 1,
      "network.proxy.ssl": "127.0.0.1",
      "network.proxy.ssl_port": opts.proxyPort,
      "network.proxy.http": "127.0.0.1",
      "network.proxy.http_port": opts.proxyPort,
      "network.proxy.no_proxies_on": "",
      "network.proxy.allow_hijacking_localhost": false,
      "network.trr.mode": 5,
      "browser.shell.checkDefaultBrowser": false,
      "datareporting.policy.dataSubmissionEnabled": false,
      "app.update.enabled": false,
      "extensions.update.enabled": false,
    };
    writeFileSync(
      path.join(profile, "user.js"),
      Object.entries(prefs)
        .map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`)
        .join("\n"),
    );
    const child = spawn(
      opts.executable,
      ["--headless", "--no-remote", "--remote-debugging-port=0", "--profile", profile, "about:blank"],
      {
        env: { ...process.env, ...opts.env, HOME: opts.home, MOZ_CRASHREPORTER_DISABLE: "1" },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const stderr: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Firefox did not start BiDi:\n${stderr.join("")}`)),
        30_000,
      );
      child.stderr.on("data", (chunk: Buffer) => {
        stderr.push(chunk.toString());
        const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(stderr.join(""));
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once("exit", (code) => reject(new Error(`Firefox exited (${code}):\n${stderr.join("")}`)));
    });
    const ws = new WebSocket(`${url}/session`);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const ff = new FirefoxBidi(child, ws, profile);
    ff.stderr.push(...stderr);
    child.stderr.on("data", (chunk: Buffer) => ff.stderr.push(chunk.toString()));
    await ff.send("session.new", { capabilities: { alwaysMatch: { acceptInsecureCerts: true } } });
    return ff;
  }

  send<T = unknown>(method: string, params: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Installs an unpacked extension as a temporary add-on; returns its id. */
  async installExtension(dir: string): Promise<string> {
    const { extension } = await this.send<{ extension: string }>("webExtension.install", {
      extensionData: { type: "path", path: dir },
    });
    return extension;
  }

  /** The URLs of the open tabs. */
  async tabUrls(): Promise<string[]> {
    const { contexts } = await this.send<{ contexts: { url: string }[] }>("browsingContext.getTree", {});
    return contexts.map((c) => c.url);
  }

  /** The open tabs: their browsing context ids and URLs. */
  async tabs(): Promise<{ context: string; url: string }[]> {
    const { contexts } = await this.send<{ contexts: { context: string; url: string }[] }>(
      "browsingContext.getTree",
      { maxDepth: 0 },
    );
    return contexts.map((c) => ({ context: c.context, url: c.url }));
  }

  /** Closes a tab as a person does. */
  async closeTab(context: string): Promise<void> {
    await this.send("browsingContext.close", { context });
  }

  /** Evaluates `expression` in a tab's page; resolves with its value when it is a string, number or boolean. */
  async evaluate(context: string, expression: string): Promise<unknown> {
    const out = await this.send<{ type: string; result?: { value?: unknown }; exceptionDetails?: unknown }>(
      "script.evaluate",
      { expression, target: { context }, awaitPromise: true },
    );
    if (out.type !== "success") throw new Error(`script.evaluate: ${JSON.stringify(out.exceptionDetails)}`);
    return out.result?.value;
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) resolve();
      else this.child.once("exit", () => resolve());
    });
    await this.send("browser.close", {}).catch(() => undefined);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
    this.ws.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}
