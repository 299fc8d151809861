// What one `orchestrator doctor` check reports, the options every check reads, and the report `--json` prints
// (a stable shape for scripts, documented in docs/cli.md).
import type { Browser } from "./browsers.ts";
import type { ExtensionIds } from "./install.ts";

/**
 * OK: checked and fine. SKIP: does not apply here (a browser that is not installed, a check of a backend that has not
 * run yet); not a problem. WARN: works, but needs attention. FAIL: broken; doctor exits 1.
 */
export type CheckStatus = "OK" | "SKIP" | "WARN" | "FAIL";

export interface Check {
  /** Stable identifier: `data-dir`, `config`, `manifest:<browser|profile>`, `manifests`, `owner`, `mcp`, … */
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** A command or step that fixes it, runnable where the user is (only on WARN and FAIL). */
  readonly fix?: string;
}

export interface DoctorSummary {
  readonly ok: number;
  readonly warn: number;
  readonly fail: number;
  readonly skip: number;
}

/** What `orchestrator doctor --json` prints. `ok` is true when nothing FAILs (then the exit code is 0). */
export interface DoctorReport {
  readonly ok: boolean;
  readonly dataDir: string;
  readonly checks: readonly Check[];
  readonly summary: DoctorSummary;
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

export function summarize(checks: readonly Check[]): DoctorSummary {
  const count = (status: CheckStatus) => checks.filter((c) => c.status === status).length;
  return { ok: count("OK"), warn: count("WARN"), fail: count("FAIL"), skip: count("SKIP") };
}
