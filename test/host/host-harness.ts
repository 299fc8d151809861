// Integration harness: temp data dirs, the real host executable, and an MCP SDK client to its HTTP endpoint.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { waitFor } from "./scripted-extension.ts";

const ROOT = join(import.meta.dirname, "..", "..");

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), "orch-host-"));
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** Connects the official SDK client to the owner's MCP endpoint, as an agent would. */
export async function connectMcp(home: string): Promise<Client> {
  const statusPath = join(home, "status.json");
  const url = await waitFor(() => {
    if (!existsSync(statusPath)) return undefined;
    const status = JSON.parse(readFileSync(statusPath, "utf8")) as { mcpUrl: string | null };
    return status.mcpUrl ?? undefined;
  }, "the MCP URL in status.json");
  const { token } = JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as { token: string };
  const client = new Client({ name: "scripted-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Calls a tool; returns its structured result or throws with the tool's error text. */
export async function tool<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    const text = (result.content as { text?: string }[])[0]?.text ?? "?";
    throw new Error(`${name} failed: ${text}`);
  }
  return result.structuredContent as T;
}

/** `orchestrator serve`: an owner without a browser, so executors can come and go as relays. */
export function spawnServe(home: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [join(ROOT, "bin", "orchestrator.js"), "serve"], {
    cwd: ROOT,
    env: { ...process.env, ORCHESTRATOR_HOME: home, ORCHESTRATOR_MCP_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}
