// The command runner: receives the host's commands, journals each one (it owns the `journal` table) before it is
// acknowledged, carries it out once in the worker's queue through the content channel, and reports the result
// (docs/extension.md). It never decides that another turn is warranted: it only submits what the host commands.
import type { CommandMessage, ExtensionMessage } from "../../shared/native-messages.ts";
import { conversationIdOf } from "../lib/chatgpt-url.ts";
import type { SubmitMode } from "../lib/content-protocol.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import { commandMarker, embedMarker } from "../lib/marker.ts";
import type { BindingStore } from "./binding-store.ts";
import { JournalStore, type BindingRecord, type OrchestratorDb } from "./db.ts";
import type { CommandTabs } from "./command-tabs.ts";
import type { ContentChannel } from "./content-channel.ts";
import type { GeneratingSlots } from "./generating-slots.ts";
import { newEntry, type JournalEntry } from "./journal.ts";
import type { PortHandle, Timers } from "./native-connection.ts";
import type { Outbox } from "./outbox.ts";
import type { SerialQueues } from "./queue.ts";
import { AMBIGUOUS, type Outcome, type SubmissionOutcomes } from "./submission-outcome.ts";

/** Not a protocol error code: the host cancelled the command before its submission started. */
const CANCELLED = "CANCELLED";

export interface CommandRunnerDeps {
  readonly db: OrchestratorDb;
  readonly log: Logger;
  readonly timers: Timers;
  readonly content: ContentChannel;
  readonly outbox: Outbox;
  /** One command at a time per worker (shared with the bindings, which revive tabs in the same queue). */
  readonly queues: SerialQueues;
  readonly slots: GeneratingSlots;
  readonly bindings: BindingStore;
  readonly commandTabs: CommandTabs;
  readonly outcomes: SubmissionOutcomes;
  readonly submitTimeoutMs: number;
  /** Finished journal entries are kept this long (to answer a redelivered command), and at most this many. */
  readonly journalKeepMs: number;
  readonly journalKeepMax: number;
}

export class CommandRunner {
  private readonly journal: JournalStore;
  /** Commands whose submission this process is carrying out right now. */
  private readonly inFlight = new Set<string>();
  /** Commands with a task in a worker queue. */
  private readonly scheduled = new Set<string>();
  private readonly aborts = new Map<string, AbortController>();

  constructor(private readonly deps: CommandRunnerDeps) {
    this.journal = new JournalStore(deps.db);
  }

  /** A command is queued or running. */
  get busy(): boolean {
    return this.scheduled.size > 0;
  }

  /** Every journal entry, oldest change first (recovery, `hello`). */
  entries(): Promise<JournalEntry[]> {
    return this.journal.all();
  }

  /** This very process is carrying out the command's submission now. */
  inFlightHere(commandId: string): boolean {
    return this.inFlight.has(commandId);
  }

  /** The host answered a `hello` that told it these outcomes: submitted ones complete, failures are reported. */
  async acknowledged(commandIds: readonly string[]): Promise<void> {
    const now = this.deps.timers.now();
    for (const id of commandIds) {
      await this.journal.transition(id, ["submitted"], "completed", {}, now);
      await this.journal.markFailureReported(id, now);
    }
  }

  /** Drops finished entries the host knows about, past their keeping time or count. */
  async prune(): Promise<void> {
    await this.journal.prune(this.deps.timers.now(), this.deps.journalKeepMs, this.deps.journalKeepMax);
  }

  // ── receiving commands ────────────────────────────────────────────────────────────────────────

  async onCommand(command: CommandMessage, port: PortHandle): Promise<void> {
    const { log, timers } = this.deps;
    const known = await this.journal.get(command.commandId);
    if (known) return this.redelivered(known, port);
    const twin = (await this.journal.byIdempotencyKey(command.idempotencyKey)).find(
      (e) => e.commandId !== command.commandId,
    );
    // Journal first (strict durability), then acknowledge: an acknowledged command survives any crash.
    const entry = await this.journal.insert(
      newEntry(command, commandMarker(command.commandId), timers.now()),
    );
    port.send({ kind: "command.ack", commandId: entry.commandId, workerId: entry.workerId });
    if (twin) {
      log.warn(`${command.commandId} repeats idempotency key of ${twin.commandId}: not submitted again`);
      return this.finish(entry, {
        outcome: "failed",
        errorCode: "CONFLICT",
        detail: `same idempotency key as command ${twin.commandId}, which is ${twin.phase}`,
      });
    }
    this.schedule(entry);
  }

  /** A command id already journaled: answer from the journal, never submit again (a command runs at most once). */
  private async redelivered(entry: JournalEntry, port: PortHandle): Promise<void> {
    port.send({ kind: "command.ack", commandId: entry.commandId, workerId: entry.workerId });
    switch (entry.phase) {
      case "completed":
      case "failed":
        return this.deps.outbox.step(async () => {
          this.deps.outbox.send(resultMessage(entry));
          if (entry.phase === "failed") await this.journal.markFailureReported(entry.commandId, this.now());
        });
      case "submitted":
        return this.deps.outbox.step(() => this.reportSubmitted(entry));
      case "received":
        if (!this.scheduled.has(entry.commandId)) this.schedule(entry);
        return;
      case "submission-started":
        return; // being carried out here: its result follows
    }
  }

  /**
   * A cancelled command not yet being submitted is withdrawn, and the host is told (CANCELLED proves it was never
   * sent, so the host can close the attempt). One already being submitted runs on; its result is reported.
   */
  onCancel(commandId: string): Promise<void> {
    return this.deps.outbox.step(async () => {
      const now = this.now();
      // Only from `received`, in one transaction: a submission that has started wins and reports its own result.
      const cancelled = await this.journal.transition(
        commandId,
        ["received"],
        "failed",
        { errorCode: CANCELLED, detail: "cancelled by the host before submission" },
        now,
      );
      if (!cancelled) {
        const entry = await this.journal.get(commandId);
        this.deps.log.info(`cancel of ${commandId} ignored: ${entry ? entry.phase : "unknown command"}`);
        return;
      }
      this.aborts.get(commandId)?.abort();
      this.deps.log.info(`${commandId} cancelled before submission`);
      if (this.deps.outbox.send(resultMessage(cancelled)))
        await this.journal.markFailureReported(commandId, now);
    });
  }

  // ── carrying out a command ────────────────────────────────────────────────────────────────────

  schedule(entry: JournalEntry): void {
    const { commandId, workerId } = entry;
    this.scheduled.add(commandId);
    const abort = new AbortController();
    this.aborts.set(commandId, abort);
    this.deps.queues
      .run(workerId, () =>
        this.execute(commandId, abort.signal).catch((e: unknown) => this.failUnexpected(commandId, e)),
      )
      .catch((e: unknown) => this.deps.log.warn(`${commandId}: ${errorText(e)}`))
      .finally(() => {
        this.scheduled.delete(commandId);
        this.aborts.delete(commandId);
      });
  }

  /** A browser API threw mid-command: before submission nothing was sent; after it, the marker decides. */
  private async failUnexpected(commandId: string, error: unknown): Promise<void> {
    const why = errorText(error);
    this.deps.log.warn(`${commandId}: ${why}`);
    const entry = await this.journal.get(commandId);
    if (entry?.phase === "received")
      return this.finish(entry, { outcome: "failed", errorCode: "EXECUTOR_UNAVAILABLE", detail: why });
    if (entry?.phase === "submission-started") {
      const outcome: Outcome =
        entry.tabId !== undefined
          ? await this.deps.outcomes.unknownOutcome(entry.tabId, entry, why)
          : { outcome: "failed", errorCode: AMBIGUOUS, detail: `delivery unknown: ${why}` };
      return this.finish(entry, outcome);
    }
  }

  private async execute(commandId: string, signal: AbortSignal): Promise<void> {
    const entry = await this.journal.get(commandId);
    if (entry?.phase !== "received" || signal.aborted) return;
    const { workerId } = entry;
    const fail = (errorCode: string, detail: string) =>
      this.finish(entry, { outcome: "failed", errorCode, detail });
    if (!entry.prompt) return fail("EXECUTOR_UNAVAILABLE", "the journal holds no prompt for this command");
    if (this.now() > entry.deadlineAt)
      return fail("DEADLINE_EXCEEDED", "the deadline passed before submission");

    // Counted as generating from here; the host already kept the limit, so nothing waits for a slot here.
    const needsSlot = entry.type !== "conversation.steer";
    let submitted = false;
    let createdTab: { tabId: number; previous: BindingRecord | undefined } | undefined;
    try {
      if (needsSlot) this.deps.slots.occupy(workerId);
      const target = await this.deps.commandTabs.targetTab(entry);
      if ("errorCode" in target) return await fail(target.errorCode, target.detail);
      if (target.created) createdTab = { tabId: target.tabId, previous: target.previous };
      const { tabId } = target;
      const reachable = await this.deps.commandTabs.ensureContent(
        target,
        entry.type !== "conversation.steer",
      );
      if (!reachable)
        return await fail("EXECUTOR_UNAVAILABLE", "the ChatGPT tab did not load the extension's page script");
      if (signal.aborted) return;
      if (this.now() > entry.deadlineAt)
        return await fail("DEADLINE_EXCEEDED", "the deadline passed before submission");

      // From here on the outcome is "submitted" only with proof; a crash leaves it ambiguous.
      const started = await this.journal.transition(
        commandId,
        ["received"],
        "submission-started",
        { tabId },
        this.now(),
      );
      if (!started) return; // cancelled meanwhile
      createdTab = undefined; // the prompt may be in that tab now: it stays, bound
      this.inFlight.add(commandId);
      this.deps.slots.submissionStarted(workerId);
      const mode = submitMode(entry.type);
      const reply = await this.deps.content.submit(
        tabId,
        {
          commandId,
          text: embedMarker(entry.prompt.text, entry.marker),
          marker: entry.marker,
          mode,
          deadlineAt: entry.deadlineAt,
          ...(target.expectUrl !== undefined ? { expectUrl: target.expectUrl } : {}),
        },
        this.deps.submitTimeoutMs,
      );
      const outcome = reply.ok
        ? await this.deps.outcomes.settle(tabId, started, reply.value)
        : await this.deps.outcomes.unknownOutcome(tabId, started, reply.error);
      submitted = outcome.outcome === "submitted";
      await this.finish(started, outcome);
    } finally {
      this.inFlight.delete(commandId);
      this.deps.slots.commandEnded(workerId, needsSlot, submitted);
      if (createdTab)
        await this.deps.commandTabs.discardCreated(workerId, createdTab.tabId, createdTab.previous);
    }
  }

  /** Journals the outcome and reports it (when a port is up; otherwise the next `hello` carries it). */
  finish(entry: JournalEntry, outcome: Outcome, how: { report: boolean } = { report: true }) {
    return this.deps.outbox.step(async () => {
      const now = this.now();
      if (outcome.outcome === "submitted") {
        const url = outcome.url ?? entry.url;
        const next = await this.journal.transition(
          entry.commandId,
          ["submission-started"],
          "submitted",
          url !== undefined ? { url } : {},
          now,
        );
        if (!next) return;
        await this.bindAfterSubmission(next, how);
        if (how.report) await this.reportSubmitted(next);
      } else {
        const next = await this.journal.transition(
          entry.commandId,
          ["received", "submission-started"],
          "failed",
          {
            errorCode: outcome.errorCode,
            ...(outcome.detail !== undefined ? { detail: outcome.detail } : {}),
          },
          now,
        );
        if (!next || !how.report) return;
        if (this.deps.outbox.send(resultMessage(next)))
          await this.journal.markFailureReported(next.commandId, now);
      }
    });
  }

  /** Sends `command.result` (submitted) and marks the entry completed; runs inside an outbox step. */
  private async reportSubmitted(entry: JournalEntry): Promise<void> {
    if (!this.deps.outbox.send(resultMessage(entry))) return;
    await this.journal.transition(entry.commandId, ["submitted"], "completed", {}, this.now());
  }

  /** A new chat got its conversation URL with the submission: the binding now names it. */
  private async bindAfterSubmission(entry: JournalEntry, how: { report: boolean }): Promise<void> {
    const binding = await this.deps.bindings.get(entry.workerId);
    if (binding?.state !== "bound" || binding.tabId !== entry.tabId) return;
    const conversationId = conversationIdOf(entry.url);
    if (conversationId === undefined || conversationId === binding.conversationId) return;
    await this.deps.bindings.set(
      entry.workerId,
      { ...binding, url: entry.url, conversationId },
      { report: how.report, inStep: true },
    );
  }

  private now(): number {
    return this.deps.timers.now();
  }
}

function submitMode(type: CommandMessage["type"]): SubmitMode {
  switch (type) {
    case "conversation.create":
      return "create";
    case "conversation.send":
      return "send";
    case "conversation.steer":
      return "steer";
  }
}

function resultMessage(entry: JournalEntry): ExtensionMessage {
  const submitted = entry.phase === "submitted" || entry.phase === "completed";
  return {
    kind: "command.result",
    commandId: entry.commandId,
    workerId: entry.workerId,
    outcome: submitted ? "submitted" : "failed",
    ...(!submitted ? { errorCode: entry.errorCode ?? "EXECUTOR_UNAVAILABLE" } : {}),
    ...(!submitted && entry.detail !== undefined ? { detail: entry.detail.slice(0, 2_000) } : {}),
    ...(entry.url !== undefined ? { url: entry.url } : {}),
  };
}
