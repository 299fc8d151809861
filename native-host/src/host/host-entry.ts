// Wires the real pieces for the CLI: data directory, config, logger and the MCP server.
import { PRODUCT_VERSION } from "../../../shared/product-version.ts";
import { loadHostConfig, newToken, saveHostConfig } from "../config/host-config.ts";
import { startMcpServer } from "../mcp/mcp-server.ts";
import { OPERATIONS } from "../operations/all-operations.ts";
import type { OperationsContext } from "../operations/context.ts";
import { resolveDataDir, secureDataDir } from "../store/data-dir.ts";
import type { StoreFaultPoint, StoreLogger } from "../store/store-types.ts";
import { fileLogger } from "./file-logger.ts";
import type { McpHandle, OwnerOptions } from "./owner.ts";

export const HOST_VERSION = PRODUCT_VERSION;

/** Builds owner options from the environment: ORCHESTRATOR_HOME, ORCHESTRATOR_MCP_PORT, ORCHESTRATOR_FAULT. */
export function ownerOptionsFromEnv(env: NodeJS.ProcessEnv, log?: StoreLogger): OwnerOptions {
  const dir = resolveDataDir(env);
  const tightened = secureDataDir(dir);
  const logger = log ?? fileLogger(dir);
  if (tightened) logger.warn(tightened);
  const config = loadHostConfig(dir, env);
  const fault = faultHookFromEnv(env);
  return {
    dir,
    log: logger,
    hostVersion: HOST_VERSION,
    ...(fault ? { store: { faultHook: fault } } : {}),
    startMcp: async (engine: OperationsContext): Promise<McpHandle> => {
      const server = await startMcpServer({
        backend: engine,
        operations: OPERATIONS,
        port: config.port,
        token: config.token,
        log: logger,
      });
      // Port 0 asks for any free port: record the one we got so `connector` and clients can find it.
      if (config.port !== server.port) saveHostConfig(dir, { ...loadHostConfig(dir, {}), port: server.port });
      return {
        url: server.url,
        port: server.port,
        get connectorUrl() {
          return server.connectorUrl;
        },
        token: () => server.token,
        rotateToken() {
          const next = newToken();
          // On disk first: a crash right after leaves the new token in force at the next start, never the old one.
          saveHostConfig(dir, { ...loadHostConfig(dir, {}), token: next });
          server.rotateToken(next);
        },
        close: () => server.close(),
      };
    },
  };
}

/** ORCHESTRATOR_FAULT=<point>[:<hit>] kills the process with SIGKILL at that store point (restart tests only). */
function faultHookFromEnv(env: NodeJS.ProcessEnv): ((point: StoreFaultPoint) => void) | undefined {
  const spec = env.ORCHESTRATOR_STORE_FAULT;
  if (!spec) return undefined;
  const [point, hit = "1"] = spec.split(":");
  let remaining = Number(hit);
  return (p) => {
    if (p === point && --remaining === 0) process.kill(process.pid, "SIGKILL");
  };
}
