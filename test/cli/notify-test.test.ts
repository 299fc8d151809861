// `orchestrator notify test` as a user runs it: the spawned CLI reads the channels from config.json in a temp data
// directory and sends to a real node:http receiver standing for the webhook, the ntfy server and Telegram's Bot API.
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { notificationPayloadSchema } from "../../shared/notify-settings.ts";
import { type CliHome, type CliResult, cliHome } from "./spawn-cli.ts";

interface Received {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const SECRETS = {
  hookPath: "k7q2m9x4w8p3z6r1",
  hookKey: "hookkey-5v8n1c4x7z0b",
  topic: "orch-topic-3j6h9g2f5d8s",
  ntfyToken: "tk_ntfytoken0a1b2c3d4e5f",
  botToken: "123456789:AAbottokenbottokenbottoken42",
};

let cli: CliHome;
let server: Server;
let port: number;
let received: Received[];
/** What the receiver answers a request: 200 unless a test says otherwise. */
let answer: (url: string) => { status: number; body: string };

beforeEach(async () => {
  cli = cliHome();
  received = [];
  answer = () => ({ status: 200, body: "{}" });
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ url: req.url ?? "", headers: req.headers, body });
      const { status, body: reply } = answer(req.url ?? "");
      res.writeHead(status, { "content-type": "text/plain" }).end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  cli.cleanup();
});

function channels(): unknown[] {
  const base = `http://127.0.0.1:${port}`;
  return [
    {
      id: "hook",
      name: "Hook",
      kind: "webhook",
      enabled: true,
      url: `${base}/hooks/${SECRETS.hookPath}?key=${SECRETS.hookKey}`,
    },
    {
      id: "phone",
      name: "My phone",
      kind: "ntfy",
      enabled: true,
      server: base,
      topic: SECRETS.topic,
      token: SECRETS.ntfyToken,
    },
    {
      id: "tg",
      name: "Telegram",
      kind: "telegram",
      enabled: true,
      botToken: SECRETS.botToken,
      chatId: "4242",
      apiBase: base,
    },
    {
      id: "off",
      name: "Switched off",
      kind: "webhook",
      enabled: false,
      url: `${base}/off/${SECRETS.hookPath}`,
    },
  ];
}

function writeConfig(notifications: unknown): void {
  mkdirSync(cli.dataDir, { recursive: true, mode: 0o700 });
  const config = {
    port: 8765,
    token: "ab".repeat(32),
    ...(notifications === undefined ? {} : { notifications }),
  };
  writeFileSync(path.join(cli.dataDir, "config.json"), JSON.stringify(config), { mode: 0o600 });
}

function expectNoSecret(result: CliResult): void {
  for (const secret of Object.values(SECRETS)) {
    expect(result.stdout, secret).not.toContain(secret);
    expect(result.stderr, secret).not.toContain(secret);
  }
}

const byPath = (prefix: string) => received.filter((r) => r.url.startsWith(prefix));

describe("orchestrator notify test", () => {
  it("sends the test payload to every enabled channel and prints one OK line each", async () => {
    writeConfig({ channels: channels() });
    const result = await cli.run(["notify", "test"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n").sort()).toEqual([
      "OK   Hook (webhook)",
      "OK   My phone (ntfy)",
      "OK   Telegram (telegram)",
    ]);
    expectNoSecret(result);
    expect(received).toHaveLength(3);
    expect(byPath("/off/")).toEqual([]);

    // The webhook: the documented payload, version 1, kind test.
    const [hook] = byPath("/hooks/");
    expect(hook?.url).toBe(`/hooks/${SECRETS.hookPath}?key=${SECRETS.hookKey}`);
    expect(hook?.headers["content-type"]).toBe("application/json");
    const payload = notificationPayloadSchema.parse(JSON.parse(hook?.body ?? ""));
    expect(payload).toMatchObject({
      version: 1,
      kind: "test",
      run: null,
      worker: null,
    });
    expect(payload.title).toMatch(/^Test from ChatGPT Orchestrator\b/);
    expect(payload.episode).toBe(`test:${payload.at}`);
    expect(Math.abs(payload.at - Date.now())).toBeLessThan(60_000);
    expect(payload.link).toMatch(/^chrome-extension:\/\/[a-p]{32}\/extension\/dashboard\/dashboard\.html$/);

    // ntfy: the topic's URL with the access token; Telegram: sendMessage through the configured API base.
    const [ntfy] = byPath(`/${SECRETS.topic}`);
    expect(ntfy?.headers.authorization).toBe(`Bearer ${SECRETS.ntfyToken}`);
    expect(ntfy?.headers.title).toBe(payload.title);
    const [telegram] = byPath(`/bot${SECRETS.botToken}/sendMessage`);
    expect(JSON.parse(telegram?.body ?? "{}")).toMatchObject({
      chat_id: "4242",
      text: expect.stringContaining(payload.title) as string,
    });
  }, 30_000);

  it("prints a FAIL line with the receiver's answer, masked, and exits 1 when a receiver fails", async () => {
    writeConfig({ channels: channels() });
    // The failing receiver echoes the path it was called on, which holds the topic: the line must not.
    answer = (url) =>
      url.startsWith(`/${SECRETS.topic}`)
        ? { status: 500, body: `no room for ${url}` }
        : { status: 200, body: "{}" };
    const result = await cli.run(["notify", "test"]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines).toContain("OK   Hook (webhook)");
    expect(lines).toContainEqual(expect.stringMatching(/^FAIL My phone \(ntfy\): .*HTTP 500: no room for /));
    expectNoSecret(result);

    const json = await cli.run(["notify", "test", "--json"]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { ok: boolean; results: Record<string, unknown>[] };
    expect(report.ok).toBe(false);
    expect(report.results.find((r) => r.id === "phone")).toMatchObject({
      id: "phone",
      name: "My phone",
      kind: "ntfy",
      ok: false,
      detail: expect.stringContaining("HTTP 500") as string,
    });
    expect(report.results.find((r) => r.id === "hook")).toEqual({
      id: "hook",
      name: "Hook",
      kind: "webhook",
      ok: true,
      detail: "HTTP 200",
    });
    expectNoSecret(json);
  }, 30_000);

  it("--channel sends to that channel only, even a disabled one; an unknown id names the ones there are", async () => {
    writeConfig({ channels: channels() });
    let result = await cli.run(["notify", "test", "--channel", "tg", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: true,
      results: [{ id: "tg", name: "Telegram", kind: "telegram", ok: true, detail: "HTTP 200" }],
    });
    expect(received.map((r) => r.url)).toEqual([`/bot${SECRETS.botToken}/sendMessage`]);
    expectNoSecret(result);

    result = await cli.run(["notify", "test", "--channel", "off"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("OK   Switched off (webhook)\n");
    expect(byPath("/off/")).toHaveLength(1);

    result = await cli.run(["notify", "test", "--channel", "nope"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no channel with id 'nope' (there are: hook, phone, tg, off)");
    expect(received).toHaveLength(2);
  }, 30_000);

  it("without a channel says where to add one and exits 1", async () => {
    let result = await cli.run(["notify", "test"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("no notification channel is configured");
    expect(result.stderr).toContain("Settings → Notifications");
    expect(result.stderr).toContain(path.join(cli.dataDir, "config.json"));

    writeConfig({ channels: [] });
    result = await cli.run(["notify", "test", "--json"]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: false,
      results: [],
      error: expect.stringContaining("no notification channel is configured") as string,
    });
    expect(received).toEqual([]);
  }, 30_000);

  it("refuses invalid settings with what is wrong, without the secret given", async () => {
    const [hook] = channels();
    writeConfig({
      channels: [{ ...(hook as object), kind: "telegram", botToken: SECRETS.hookKey, chatId: "1" }],
    });
    const result = await cli.run(["notify", "test"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/"notifications" in .*config\.json is invalid: /);
    expectNoSecret(result);
    expect(received).toEqual([]);
  }, 30_000);

  it("has usage: --help, and a missing or unknown sub-command is bad usage", async () => {
    const help = await cli.run(["notify", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: orchestrator notify test \[--channel ID\] \[--json\]$/m);
    for (const args of [["notify"], ["notify", "send"], ["notify", "test", "--bogus"]]) {
      const result = await cli.run(args);
      expect(result.code, args.join(" ")).toBe(64);
      expect(result.stderr, args.join(" ")).toContain("Usage: orchestrator notify test");
    }
  }, 30_000);
});
