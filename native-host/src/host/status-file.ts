// status.json in the data directory: what `orchestrator status` and `doctor` read about the running owner.
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StoreHealth, StoreLogger } from "../store/store-types.ts";

export const STATUS_FILE = "status.json";

export interface HostStatus {
  pid: number;
  startedAt: number;
  mcpUrl: string | null;
  executors: string[];
  lastExecutorContactAt: number | null;
  /** Whether the store can save changes (after a full disk: why, since when). */
  storage: StoreHealth;
}

/** Rewrites the file at most once a second; it is informational, so a lost update only ages the contact time. */
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
