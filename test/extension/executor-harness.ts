// Runs the real background executor against the fake browser, with fake-indexeddb behind Dexie. A "restart"
// kills the background (listeners, port, database connection) and starts a new executor on the same database.
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { OrchestratorDb } from "../../extension/background/db.ts";
import { Executor } from "../../extension/background/executor.ts";
import type { ExecutorOptions } from "../../extension/background/executor-options.ts";
import { realTimers } from "../../extension/background/native-connection.ts";
import type { CommandMessage } from "../../shared/native-messages.ts";
import { FakeBrowser, MemoryLogger, type HostMessageRecord } from "./fake-browser.ts";
import { waitFor as waitForCondition } from "../wait-for.ts";

export const FAST: Partial<ExecutorOptions> = {
  contentReadyTimeoutMs: 2_000,
  submitTimeoutMs: 1_500,
  probeTimeoutMs: 300,
  recoveryWaitMs: 400,
  backoff: { baseMs: 5, maxMs: 40 },
};

let dbCounter = 0;

export class Harness {
  readonly browser = new FakeBrowser();
  readonly log = new MemoryLogger();
  readonly factory = new IDBFactory();
  readonly dbName = `orchestrator-test-${++dbCounter}`;
  executor!: Executor;
  db!: OrchestratorDb;

  constructor(readonly options: Partial<ExecutorOptions> = {}) {
    this.boot();
  }

  get host() {
    return this.browser.host;
  }

  boot(): Executor {
    this.db = new OrchestratorDb({ name: this.dbName, indexedDB: this.factory, IDBKeyRange });
    this.executor = new Executor({
      api: this.browser.api,
      db: this.db,
      timers: realTimers,
      log: this.log,
      browser: "chromium",
      options: { ...FAST, ...this.options },
    });
    this.executor.listen();
    void this.executor.start();
    return this.executor;
  }

  /** The background dies mid-flight; nothing it still had in memory reaches the database any more. */
  kill(): void {
    this.browser.killBackground();
    this.executor.stop();
    this.db.close();
  }

  restart(): Executor {
    this.kill();
    return this.boot();
  }

  async connected(): Promise<void> {
    await waitFor(() => this.executor.health().connection.status === "connected", "connected");
  }

  sent(kind: string, commandId?: string): HostMessageRecord[] {
    return this.host.of(kind).filter((m) => commandId === undefined || m.commandId === commandId);
  }

  async result(commandId: string): Promise<HostMessageRecord> {
    await waitFor(() => this.sent("command.result", commandId).length > 0, `result of ${commandId}`);
    return this.sent("command.result", commandId)[0]!;
  }

  /** Sends `conversation.create` for a worker and waits until its tab is bound to the new conversation. */
  async createWorker(workerId: string): Promise<{ tabId: number; url: string }> {
    const cmd = command(workerId, 0, "conversation.create");
    this.host.send(cmd);
    const result = await this.result(cmd.commandId);
    if (result.outcome !== "submitted") throw new Error(`create failed: ${JSON.stringify(result)}`);
    // The page's "generating" report travels separately from the result; let it arrive too.
    await waitFor(
      () => this.host.of("conversation.state").some((m) => m.workerId === workerId),
      `first report of ${workerId}`,
    );
    const binding = await this.db.bindings.get(workerId);
    if (!binding?.url) throw new Error("no binding after create");
    return { tabId: binding.tabId, url: binding.url };
  }

  tab(tabId: number) {
    const tab = this.browser.tabs.get(tabId);
    if (!tab) throw new Error(`no tab ${tabId}`);
    return tab;
  }

  adapter(tabId: number) {
    const adapter = this.tab(tabId).adapter;
    if (!adapter) throw new Error(`tab ${tabId} has no content script`);
    return adapter;
  }
}

export function command(
  workerId: string,
  n: number,
  type: CommandMessage["type"] = "conversation.send",
  extra: Partial<CommandMessage> = {},
): CommandMessage {
  const attempt = `${workerId}:${n}`;
  return {
    kind: "command",
    type,
    commandId: `${attempt}:cmd`,
    idempotencyKey: `${type}:${attempt}`,
    executionId: attempt,
    runId: "run-1",
    workerId,
    deadlineAt: Date.now() + 60_000,
    prompt: { promptId: "resume@1", text: `Prompt ${n} for ${workerId}: continue the assignment.` },
    ...extra,
  };
}

export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  await waitForCondition(cond, what, timeoutMs, 3);
}

export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
