// status.json in the data directory: what `orchestrator status` and `doctor` read about the running owner.
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NotificationStatus } from "../notify/notifier.ts";
import type { StoreHealth, StoreLogger } from "../store/store-types.ts";
import type { RunSummary, WorkerSummary } from "./status-activity.ts";

export type { RunSummary, WorkerSummary } from "./status-activity.ts";
export type { NotificationStatus } from "../notify/notifier.ts";

export const STATUS_FILE = "status.json";

export interface HostStatus {
  pid: number;
  startedAt: number;
  mcpUrl: string | null;
  /** Why the MCP server did not start (e.g. EADDRINUSE: its port is taken); null while it runs. */
  mcpError: { code: string; message: string; port: number } | null;
  /** The executors (browsers) connected now, rewritten as soon as the set changes. */
  executors: string[];
  lastExecutorContactAt: number | null;
  /** Whether the store can save changes (after a full disk: why, since when). */
  storage: StoreHealth;
  /** Active runs and their workers in operator words (status-activity.ts); older hosts wrote neither. */
  runs?: RunSummary[];
  workers?: WorkerSummary[];
  /**
   * Each notification channel's last delivery (docs/operator-guide.md, "Notifications"): id, kind, name, enabled and
   * what happened, never a URL, topic or token. Older hosts wrote none.
   */
  notifications?: NotificationStatus[];
}

/**
 * Rewrites the file at most once a second (`flush` writes at once, for changes a reader must see promptly); it is
 * informational, so a lost update only ages the contact time.
 */
export class StatusFile {
  private timer: NodeJS.Timeout | undefined;
  /** The last write error logged, so a full disk is reported once, not every second. */
  private lastError: string | undefined;

  constructor(
    private readonly dir: string,
    readonly status: HostStatus,
    private readonly log: StoreLogger,
  ) {
    this.flush();
  }

  update(patch: Partial<HostStatus>): void {
    Object.assign(this.status, patch);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, 1_000).unref();
  }

  /** Writes the file now. It is informational: a failure (a full disk) is logged once and never stops the host. */
  flush(): void {
    const file = join(this.dir, STATUS_FILE);
    const temp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(this.status, null, 2)}\n`, { mode: 0o600 });
      renameSync(temp, file);
      this.lastError = undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== this.lastError) this.log.warn(`could not update ${file}: ${message}`);
      this.lastError = message;
      rmSync(temp, { force: true });
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
