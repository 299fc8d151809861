// status.json in the data directory: what `orchestrator status` and `doctor` read about the running owner.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const STATUS_FILE = "status.json";

export interface HostStatus {
  pid: number;
  startedAt: number;
  mcpUrl: string | null;
  executors: string[];
  lastExecutorContactAt: number | null;
}

/** Rewrites the file at most once a second; it is informational, so a lost update only ages the contact time. */
export class StatusFile {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    readonly status: HostStatus,
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

  flush(): void {
    const file = join(this.dir, STATUS_FILE);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(this.status, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
