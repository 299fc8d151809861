// `orchestrator connector`: what to paste into an MCP client, from config.json (docs/mcp.md, "Connecting").
import { existsSync, readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { configPath, hostConfigSchema, loadHostConfig } from "../config/host-config.ts";
import type { CliContext } from "./context.ts";
import { cliEntry, dataDirOf } from "./context.ts";

export type ConfigRead =
  | { readonly state: "missing"; readonly file: string }
  | { readonly state: "invalid"; readonly file: string; readonly error: string }
  | {
      readonly state: "ok";
      readonly file: string;
      readonly port: number;
      readonly token: string;
      readonly mode: number;
    };

/** Reads config.json without creating or changing it (doctor). */
export function readConfig(dataDir: string): ConfigRead {
  const file = configPath(dataDir);
  if (!existsSync(file)) return { state: "missing", file };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return { state: "invalid", file, error: `not valid JSON (${(e as Error).message})` };
  }
  const parsed = hostConfigSchema.safeParse(raw);
  if (!parsed.success)
    return { state: "invalid", file, error: z.prettifyError(parsed.error).replace(/\n/g, "; ") };
  return {
    state: "ok",
    file,
    port: parsed.data.port,
    token: parsed.data.token,
    mode: statSync(file).mode & 0o777,
  };
}

/** The port clients should use: ORCHESTRATOR_MCP_PORT when it names a fixed port, else config.json's. */
export function effectivePort(configPort: number, env: NodeJS.ProcessEnv): number {
  const override = Number(env.ORCHESTRATOR_MCP_PORT);
  return env.ORCHESTRATOR_MCP_PORT !== undefined &&
    Number.isInteger(override) &&
    override > 0 &&
    override < 65_536
    ? override
    : configPort;
}

export interface ConnectorInfo {
  readonly configFile: string;
  /** True if this call created config.json (fresh token). */
  readonly createdConfig: boolean;
  /** 0 until a backend started with port 0 has written the port it picked. */
  readonly port: number;
  readonly token: string;
  /** For clients that send headers. */
  readonly url: string;
  readonly headers: { readonly Authorization: string };
  /** For clients that cannot send headers (ChatGPT developer-mode connectors): the token is in the path. */
  readonly tokenUrl: string;
  /** Local stdio alternative (`orchestrator mcp`). */
  readonly stdio: { readonly command: string; readonly args: readonly string[] };
  readonly tunnel: { readonly cloudflared: string; readonly ngrok: string; readonly publicUrl: string };
  readonly warnings: readonly string[];
}

/** The one way to rotate the token (docs/cli.md, "orchestrator connector"); the warnings say it. */
export const ROTATE_TOKEN_HINT = 'the extension\'s settings page, "MCP connection" → "Regenerate token"';

export function connectorInfo(ctx: CliContext): ConnectorInfo {
  const dataDir = dataDirOf(ctx);
  let config = readConfig(dataDir);
  let createdConfig = false;
  if (config.state === "missing") {
    // Same file and token the backend will use when it starts; ORCHESTRATOR_MCP_PORT is applied below, not persisted.
    loadHostConfig(dataDir, {});
    createdConfig = true;
    config = readConfig(dataDir);
  }
  if (config.state !== "ok") {
    throw new Error(
      `${config.file} is invalid: ${config.state === "invalid" ? config.error : "missing"}; fix or delete it`,
    );
  }
  const port = effectivePort(config.port, ctx.env);
  const local = `127.0.0.1:${port}`;
  const warnings = [
    "The token is the only guard: anyone who has it (or the /mcp/<token> URL) can call every tool. Keep it " +
      `secret. To rotate it, open ${ROTATE_TOKEN_HINT}: the ` +
      "running backend takes the new token at once (no restart); paste the new URL or header into your clients.",
    "Exposing the server through a tunnel makes it reachable from the internet, guarded by the token alone. Stop " +
      "the tunnel when you do not need it.",
    "ChatGPT asks you to confirm every call of a tool marked readOnlyHint: false (the state-changing ones).",
  ];
  if (port === 0) {
    warnings.unshift(
      "The port is 0 (pick a free one): start the backend first, it writes the port it chose.",
    );
  }
  return {
    configFile: config.file,
    createdConfig,
    port,
    token: config.token,
    url: `http://${local}/mcp`,
    headers: { Authorization: `Bearer ${config.token}` },
    tokenUrl: `http://${local}/mcp/${config.token}`,
    stdio: { command: ctx.nodePath, args: [cliEntry(ctx), "mcp"] },
    tunnel: {
      // The server rejects foreign Host headers (DNS rebinding); both tunnels rewrite Host to the local address.
      cloudflared: `cloudflared tunnel --url http://${local} --http-host-header ${local}`,
      ngrok: `ngrok http --host-header=rewrite ${local}`,
      publicUrl: `https://<tunnel-host>/mcp/${config.token}`,
    },
    warnings,
  };
}

export function formatConnector(info: ConnectorInfo): string[] {
  return [
    ...(info.createdConfig ? [`Created ${info.configFile} with a new token.`, ""] : []),
    "MCP server (Streamable HTTP, loopback only)",
    `  URL:     ${info.url}`,
    `  Header:  Authorization: ${info.headers.Authorization}`,
    "",
    "Clients that cannot send headers (ChatGPT developer-mode connectors): the token goes in the path",
    `  URL:     ${info.tokenUrl}`,
    "",
    "ChatGPT connects from its servers, so it cannot reach 127.0.0.1: expose the port through a tunnel",
    `  ${info.tunnel.cloudflared}`,
    `  ${info.tunnel.ngrok}`,
    `and paste the tunnel's https address with the token path as the connector URL: ${info.tunnel.publicUrl}`,
    "",
    "Local MCP clients can also use stdio (no port, no token):",
    `  command: ${info.stdio.command}`,
    `  args:    ${info.stdio.args.join(" ")}`,
    "  config:  " +
      JSON.stringify({
        mcpServers: {
          "chatgpt-orchestrator": { type: "http", url: info.url, headers: info.headers },
        },
      }),
    "",
    "Warnings:",
    ...info.warnings.map((w) => `  - ${w}`),
  ];
}
