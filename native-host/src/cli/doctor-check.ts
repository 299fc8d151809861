// What one `orchestrator doctor` check reports, and the options every check reads.
import type { Browser } from "./browsers.ts";
import type { ExtensionIds } from "./install.ts";

export type CheckStatus = "OK" | "WARN" | "FAIL";

export interface Check {
  /** Stable identifier: `data-dir`, `config`, `manifest:<browser|profile>`, `manifests`, `owner`, `mcp`, … */
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  readonly fix?: string;
}

export interface DoctorOptions {
  readonly browsers: readonly Browser[];
  readonly profileDir?: string | undefined;
  readonly extensionIds: ExtensionIds;
  /** How long the MCP port may take to answer. */
  readonly probeTimeoutMs?: number;
  /** Injected clock for "last contact … ago". */
  readonly now?: () => number;
}
