// What executors report (acks, results, conversation states, bindings), applied to the engine as core inputs, each
// naming the executor that sent it. A report the disk refused (a full disk) is kept and applied once it takes writes.
import type { ExtensionMessage } from "../../../shared/native-messages.ts";
import type { Input } from "../core/inputs.ts";
import { faultPoint } from "../engine/fault-points.ts";
import type { OperationsContext } from "../operations/context.ts";
import { isStoreError } from "../store/store-error.ts";
import type { StoreLogger } from "../store/store-types.ts";

/** The messages that report on a worker (everything but hello, ui.request and executor.settings). */
export type Report = Exclude<ExtensionMessage, { kind: "hello" | "ui.request" | "executor.settings" }>;

/** Refused reports kept while the disk takes no data (one per worker and kind, so a long outage stays small). */
const MAX_REFUSED = 5_000;

export class ExecutorReports {
  /**
   * What executors reported while the store could not save it (a full disk), newest per worker and kind, in arrival
   * order: re-applied once the store takes writes, so an idle report sent meanwhile still resumes its worker.
   */
  private readonly refused = new Map<string, Input>();

  constructor(
    private readonly engine: OperationsContext,
    private readonly log: StoreLogger,
  ) {}

  /** Applies one report from `executorId`, marking the restart matrix's fault points around it. */
  async report(m: Report, executorId: string): Promise<void> {
    switch (m.kind) {
      case "command.ack":
        faultPoint("ack-received");
        return this.apply({
          type: "command.acked",
          workerId: m.workerId,
          commandId: m.commandId,
          executorId,
        });
      case "command.result":
        faultPoint("result-received");
        await this.apply({
          type: "command.result",
          workerId: m.workerId,
          commandId: m.commandId,
          outcome: m.outcome,
          ...(m.errorCode ? { errorCode: m.errorCode } : {}),
          ...(m.detail ? { detail: m.detail } : {}),
          ...(m.url ? { url: m.url } : {}),
          executorId,
        });
        faultPoint("result-applied");
        return;
      case "conversation.state":
        if (m.state === "idle") faultPoint("idle-received");
        await this.apply({
          type: "conversation.observed",
          workerId: m.workerId,
          state: m.state,
          seq: m.seq,
          ...(m.errorCode ? { errorCode: m.errorCode } : {}),
          ...(m.url ? { url: m.url } : {}),
          ...(m.continuationStatus ? { continuationStatus: m.continuationStatus } : {}),
          ...(m.continuationBlock ? { continuationBlock: m.continuationBlock } : {}),
          ...(m.resetAt ? { resetAt: m.resetAt } : {}),
          ...(m.since ? { since: m.since } : {}),
          // Memory only from here on: the core keeps the brief for the rollover and never writes it.
          ...(m.handoffBrief !== undefined ? { handoffBrief: m.handoffBrief } : {}),
          ...(m.visibleChars !== undefined ? { visibleChars: m.visibleChars } : {}),
          executorId,
        });
        if (m.state === "generating") faultPoint("generating-applied");
        if (m.state === "idle") faultPoint("idle-applied");
        return;
      case "binding":
        // A bound or detached conversation is this browser's: it reopens the tab for the next command.
        return this.apply({
          type: "binding.changed",
          workerId: m.workerId,
          binding: m.binding,
          ...(m.url ? { url: m.url } : {}),
          executorId,
        });
    }
  }

  /** Applies an input for the bridge; a refusal is logged, a store that refused the write keeps it for later. */
  async apply(input: Input): Promise<void> {
    let result: Awaited<ReturnType<OperationsContext["apply"]>>;
    try {
      result = await this.engine.apply(input);
    } catch (error) {
      // The disk refused it: the executor will not send it again, so keep it for when the store takes writes.
      if (!isStoreError(error, "STORE_IO")) throw error;
      this.keepRefused(input);
      return;
    }
    if (result.error)
      this.log.info(
        `${input.type} for ${"workerId" in input ? input.workerId : "?"}: ${result.error.code} ${result.error.message}`,
      );
  }

  /** The store takes writes again: applies what it refused meanwhile, oldest first. */
  async replay(): Promise<void> {
    const inputs = [...this.refused.values()];
    this.refused.clear();
    if (inputs.length > 0)
      this.log.info(`applying ${inputs.length} executor reports the full disk held back`);
    for (const input of inputs) await this.apply(input);
  }

  private keepRefused(input: Input): void {
    const key = `${input.type}|${"workerId" in input ? input.workerId : ""}|${"commandId" in input ? input.commandId : ""}`;
    if (this.refused.size === 0) {
      this.log.warn(`the store refused an executor report (${input.type}); kept until it takes writes again`);
    }
    // Deleted first so the newest report of a key moves to the end: they replay in the order they arrived.
    this.refused.delete(key);
    this.refused.set(key, input);
    if (this.refused.size > MAX_REFUSED) {
      const oldest = this.refused.keys().next().value as string;
      this.refused.delete(oldest);
      this.log.warn(
        `dropped the oldest held-back executor report (${oldest}): more than ${MAX_REFUSED} waiting`,
      );
    }
  }
}
