// `orchestrator mcp`: an MCP server on stdio for local clients that spawn their tools, forwarding every
// JSON-RPC message to the running backend's HTTP endpoint (so there is still one backend and one database).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadHostConfig } from "../config/host-config.ts";
import { STATUS_FILE, type HostStatus } from "../host/status-file.ts";
import { resolveDataDir } from "../store/data-dir.ts";
import type { CliContext } from "./context.ts";
import { commandLine } from "./context.ts";

export async function runMcpProxyCommand(args: readonly string[], ctx: CliContext): Promise<number> {
  parseArgs({ args: [...args], options: {}, strict: true, allowPositionals: false });
  const dir = resolveDataDir(ctx.env);
  const statusPath = join(dir, STATUS_FILE);
  const url = existsSync(statusPath)
    ? (JSON.parse(readFileSync(statusPath, "utf8")) as HostStatus).mcpUrl
    : null;
  if (!url) {
    ctx.err(
      `orchestrator mcp: no backend is running; start it with \`${commandLine(ctx, "serve")}\` or open the browser ` +
        "with the extension",
    );
    return 1;
  }
  const { token } = loadHostConfig(dir, {});
  const upstream = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const local = new StdioServerTransport();
  const done = new Promise<number>((resolve) => {
    local.onclose = () => resolve(0);
    upstream.onclose = () => resolve(0);
    upstream.onerror = (e) => {
      ctx.err(`orchestrator mcp: backend connection failed: ${e.message}`);
      resolve(1);
    };
  });
  local.onmessage = (message) => {
    upstream
      .send(message)
      .catch((e: unknown) => ctx.err(`orchestrator mcp: forwarding failed: ${String(e)}`));
  };
  upstream.onmessage = (message) => {
    local.send(message).catch((e: unknown) => ctx.err(`orchestrator mcp: reply failed: ${String(e)}`));
  };
  await upstream.start();
  await local.start();
  const code = await done;
  await Promise.allSettled([local.close(), upstream.close()]);
  return code;
}
