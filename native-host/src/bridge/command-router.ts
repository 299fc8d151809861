// Routing of the core's commands to executors: each waits in the host until the executor holding its worker's
// conversation (recorded by the core; for a new conversation the least loaded one) is connected and has a tab slot
// free (docs/host.md, "Tab slots"), then goes out with its rendered prompt. Also the browser facts liveness needs.
import type { Hello } from "../../../shared/native-messages.ts";
import { COMMAND_DEADLINE_MS } from "../core/attempts.ts";
import { COMMAND_TYPES, pendingCommands } from "../core/commands.ts";
import type { ExecutorCommand } from "../core/effects.ts";
import type { Input } from "../core/inputs.ts";
import type { Dispatch, LivenessEnv } from "../core/liveness.ts";
import { faultPoint } from "../engine/fault-points.ts";
import type { OperationsContext } from "../operations/context.ts";
import type { StoreLogger } from "../store/store-types.ts";
import type { ExecutorReports } from "./executor-reports.ts";
import type { Session } from "./session.ts";
import { DEFAULT_MAX_GENERATING, SlotQueue, slotsInUse, type Unanswered } from "./slot-queue.ts";

/** A command sent to an executor without a result yet; `deadlineAt` is the one sent (unknown for one it journaled earlier). */
interface Sent extends Unanswered {
  readonly deadlineAt?: number;
}

const ENDED_BEFORE_SENT = "the worker ended before the command reached a browser";

/** The result that closes a command no browser ever had: not delivered, so the core restores the wish to continue. */
function withdrawal(command: ExecutorCommand, detail: string): Input {
  return {
    type: "command.result",
    workerId: command.workerId,
    commandId: command.commandId,
    outcome: "failed",
    errorCode: "CANCELLED",
    detail,
  };
}

export class CommandRouter {
  /** Commands waiting for a tab slot on their executor, or held while no executor that may run them is connected. */
  private readonly waiting = new SlotQueue<ExecutorCommand>();
  /** commandId → a command an executor holds and has not answered (it takes a slot there until it does). */
  private readonly sent = new Map<string, Sent>();
  /** executorId → the tabs it may have generating at once (its `maxGenerating` setting). */
  private readonly limits = new Map<string, number>();
  /** Whether any executor is connected, and since when that has been so (the host's start, at first). */
  private browser: { connected: boolean; since: number };
  /** What liveness showed at the last look: a change is announced to open views (ui.changed). */
  private shown = "";

  constructor(
    private readonly engine: OperationsContext,
    private readonly reports: ExecutorReports,
    private readonly log: StoreLogger,
    /** The hub's connections (a session is routed commands once its hello is done). */
    private readonly sessions: ReadonlySet<Session>,
  ) {
    this.browser = { connected: false, since: engine.now() };
    this.shown = this.livenessSignature();
  }

  /**
   * A command the core scheduled: it waits in the host, in order, until its executor has a tab slot free (a steer needs
   * none) or, with no executor that may run it connected, until one says hello (docs/host.md, "Tab slots").
   */
  dispatch(command: ExecutorCommand): void {
    if (this.sent.has(command.commandId) || this.waiting.has(command.commandId)) return;
    const executorId = this.routeOf(command);
    if (executorId === undefined) this.log.info(`command ${command.commandId} waits for an executor`);
    this.waiting.add(command, executorId, this.engine.now());
    this.pump();
  }

  cancel(workerId: string, commandId: string): void {
    // Still in the host: no browser has it, so nobody else would answer; it is closed here as not delivered.
    const queued = this.waiting.remove(commandId);
    if (queued) {
      this.withdraw(queued.command, "withdrawn before it reached a browser");
      this.pump();
      return;
    }
    const executorId = this.sent.get(commandId)?.executorId ?? this.holderOf(workerId);
    for (const s of this.sessions) {
      if (s.executorId !== undefined && s.executorId === executorId)
        s.conn.send({ kind: "command.cancel", commandId, workerId });
    }
  }

  /** The browser facts of worker liveness: connected or since when not, and where a scheduled command is. */
  livenessEnv(): LivenessEnv {
    const browser = { ...this.browser };
    return {
      browser,
      dispatch: (workerId: string): Dispatch | undefined => {
        const queued = this.waiting.position(workerId);
        if (queued) return { kind: "queued", ...queued };
        const commandId = this.engine.state.workers[workerId]?.current?.commandId;
        const sent = commandId === undefined ? undefined : this.sent.get(commandId);
        return sent?.deadlineAt === undefined ? undefined : { kind: "sent", deadlineAt: sent.deadlineAt };
      },
    };
  }

  /**
   * Announces durable changes to every executor (open popups and dashboards refresh). Any change may also have freed a
   * tab slot (a worker ended while its tab generated, say), so the queue is looked at first; one announcement covers
   * both.
   */
  changed(eventSeq: number): void {
    this.pump(false);
    this.shown = this.livenessSignature();
    this.sendChanged(eventSeq);
  }

  /** The executor's own limit of tabs generating at once (hello or its settings). */
  setLimit(executorId: string, maxGenerating: number): void {
    this.limits.set(executorId, maxGenerating);
  }

  /** The executor answered the command: it no longer takes a slot there. */
  answered(commandId: string): void {
    this.sent.delete(commandId);
  }

  /**
   * The executor's hello is reconciled and welcomed: what it was sent and its journal does not list never reached it
   * (the port died first) and is offered again; a browser is connected from now on.
   */
  welcomed(executorId: string, journaled: ReadonlySet<string>): void {
    for (const [commandId, s] of this.sent) {
      if (s.executorId === executorId && !journaled.has(commandId)) this.sent.delete(commandId);
    }
    if (!this.browser.connected) this.browser = { connected: true, since: this.engine.now() };
  }

  /** The last session of `executorId` closed: what it held unanswered stays pending in the store for its hello. */
  executorLeft(executorId: string): void {
    for (const [commandId, s] of this.sent) if (s.executorId === executorId) this.sent.delete(commandId);
    if (this.liveExecutors().length === 0) this.browser = { connected: false, since: this.engine.now() };
  }

  /**
   * Offers again what this executor should hold and does not know, through its tab slots: same command id and
   * idempotency key. One the host already holds (queued, held, or sent to a browser still connected) is not repeated.
   */
  async offerPending(executorId: string, journaled: ReadonlySet<string>): Promise<void> {
    for (const command of pendingCommands(this.engine.state)) {
      const known = this.waiting.has(command.commandId) || this.sent.has(command.commandId);
      if (journaled.has(command.commandId) || known || this.routeOf(command) !== executorId) continue;
      if (this.isActive(command.workerId)) {
        this.waiting.add(command, executorId, this.engine.now());
        continue;
      }
      // The worker ended while its command waited for a browser. It was never sent, so it is closed here as not
      // delivered rather than submitted for a finished worker.
      await this.reports.apply(withdrawal(command, ENDED_BEFORE_SENT));
    }
    this.pump();
  }

  private sendChanged(eventSeq: number): void {
    for (const s of this.sessions) if (s.executorId) s.conn.send({ kind: "ui.changed", eventSeq });
  }

  /** The executor holding the worker's conversation, as the core recorded it. */
  private holderOf(workerId: string): string | undefined {
    return this.engine.state.workers[workerId]?.conversation.executorId;
  }

  /**
   * The executor that will run `command`: the one holding the worker's conversation, and for a new conversation the
   * connected one with the fewest workers (active ones it holds, or waiting for a slot there); undefined while none is
   * connected.
   */
  private routeOf(command: ExecutorCommand): string | undefined {
    const holder = this.holderOf(command.workerId);
    if (holder !== undefined) return this.isLive(holder) ? holder : undefined;
    if (command.type !== "conversation.create") return undefined;
    const live = this.liveExecutors();
    if (live.length <= 1) return live[0];
    const held = new Map<string, number>();
    for (const w of Object.values(this.engine.state.workers)) {
      const id = w.conversation.executorId;
      if (id !== undefined && w.status === "active") held.set(id, (held.get(id) ?? 0) + 1);
    }
    const load = (id: string) => (held.get(id) ?? 0) + this.waiting.waitingOn(id);
    return live.reduce((best, id) => (load(id) < load(best) ? id : best));
  }

  /** Executors whose hello is done: only they are routed commands. */
  private liveExecutors(): string[] {
    return [...this.sessions].flatMap((s) => (s.ready && s.executorId ? [s.executorId] : []));
  }

  isLive(executorId: string): boolean {
    return this.liveExecutors().includes(executorId);
  }

  /**
   * Sends every waiting command that may go now: routed to a connected executor with a slot free, oldest first. Runs
   * after everything that can free a slot or connect an executor (an applied report or result, a hello, a disconnect,
   * a raised limit, a new command, any durable change), and announces changed positions or connection facts to open
   * views unless the caller announces anyway.
   */
  pump(announce = true): void {
    this.waiting.route((command, current) =>
      current !== undefined && this.isLive(current) ? current : this.routeOf(command),
    );
    const taken = this.waiting.take(
      (executorId) =>
        (this.limits.get(executorId) ?? DEFAULT_MAX_GENERATING) -
        slotsInUse(this.engine.state, executorId, this.sent.values()),
    );
    for (const { command, executorId } of taken) {
      const session = [...this.sessions].find((s) => s.ready && s.executorId === executorId);
      if (session) this.sendCommand(session, command);
    }
    if (announce) this.announceLiveness();
  }

  private livenessSignature(): string {
    return `${this.browser.connected}|${this.browser.since}|${this.waiting.signature()}`;
  }

  private announceLiveness(): void {
    const now = this.livenessSignature();
    if (now === this.shown) return;
    this.shown = now;
    this.sendChanged(this.engine.lastEventSeq());
  }

  private sendCommand(session: Session, command: ExecutorCommand): void {
    const worker = this.engine.state.workers[command.workerId];
    const executorId = session.executorId;
    if (!worker || !executorId) return;
    // Decided while it waited: the worker ended or its attempt was settled another way. Nothing was sent.
    if (worker.current?.commandId !== command.commandId || worker.current.state !== "scheduled") {
      this.log.info(`command ${command.commandId} is no longer scheduled; not sent`);
      return;
    }
    if (!this.isActive(command.workerId)) {
      this.withdraw(command, ENDED_BEFORE_SENT);
      return;
    }
    // Paused while it waited (a host restart can lose the withdrawal Pause asked for): it does not go out.
    if (worker.pause) {
      this.withdraw(command, "the worker was paused before the command reached a browser");
      return;
    }
    // A new conversation goes to the browser it was routed to: from now on that browser holds the worker. Recorded
    // durably, so a reconnect or a restart routes the worker's next commands there too.
    if (worker.conversation.executorId !== executorId) this.hold(command.workerId, executorId);
    // Time spent waiting in the host for a browser or a slot never expires a command: the deadline starts now.
    const deadlineAt = Math.max(command.deadlineAt, this.engine.now() + COMMAND_DEADLINE_MS);
    this.sent.set(command.commandId, {
      workerId: command.workerId,
      executorId,
      type: command.type,
      deadlineAt,
    });
    session.conn.send({
      kind: "command",
      type: command.type,
      commandId: command.commandId,
      idempotencyKey: command.idempotencyKey,
      executionId: command.executionId,
      runId: command.runId,
      workerId: command.workerId,
      ...(command.conversationUrl ? { conversationUrl: command.conversationUrl } : {}),
      deadlineAt,
      prompt: command.rendered,
    });
    faultPoint("command-sent");
  }

  /** Records that `executorId` holds the worker (its in-memory state changes at once; the write completes later). */
  private hold(workerId: string, executorId: string): void {
    this.reports
      .apply({ type: "conversation.held", workerId, executorId })
      .catch((e: unknown) =>
        this.log.warn(`recording ${executorId} as ${workerId}'s browser failed: ${String(e)}`),
      );
  }

  /** Closes a command no browser ever had as not delivered; the core restores the worker's wish to continue. */
  private withdraw(command: ExecutorCommand, detail: string): void {
    this.reports
      .apply(withdrawal(command, detail))
      .catch((e: unknown) => this.log.warn(`withdrawing command ${command.commandId} failed: ${String(e)}`));
  }

  private isActive(workerId: string): boolean {
    return this.engine.state.workers[workerId]?.status === "active";
  }

  /**
   * A journal entry of the hello: completed/submitted → the stored result; submission-started → ambiguous (never
   * resent); failed → its code; received → the executor still holds it, so it waits for its result.
   */
  async reconcile(entry: Hello["journal"][number], executorId: string): Promise<void> {
    // Answered by the journal: neither waiting here nor unanswered any more.
    if (entry.phase !== "received") {
      this.waiting.remove(entry.commandId);
      this.sent.delete(entry.commandId);
    }
    const base = {
      type: "command.result" as const,
      workerId: entry.workerId,
      commandId: entry.commandId,
      executorId,
    };
    switch (entry.phase) {
      case "received": {
        // The executor still holds it: the worker is held there (it takes a slot there until its result), and the
        // command is withdrawn if the worker has ended.
        const known = this.engine.state.workers[entry.workerId] !== undefined;
        if (known && this.holderOf(entry.workerId) !== executorId) {
          await this.reports.apply({ type: "conversation.held", workerId: entry.workerId, executorId });
        }
        this.waiting.remove(entry.commandId);
        const current = this.engine.state.workers[entry.workerId]?.current;
        if (current?.commandId === entry.commandId) {
          this.sent.set(entry.commandId, {
            workerId: entry.workerId,
            executorId,
            type: COMMAND_TYPES[current.delivery],
          });
        }
        if (!this.isActive(entry.workerId)) this.cancel(entry.workerId, entry.commandId);
        return;
      }
      case "submitted":
      case "completed":
        return this.reports.apply({
          ...base,
          outcome: "submitted",
          ...(entry.url ? { url: entry.url } : {}),
        });
      case "failed":
        return this.reports.apply({
          ...base,
          outcome: "failed",
          errorCode: entry.errorCode ?? "EXECUTOR_UNAVAILABLE",
        });
      case "submission-started":
        return this.reports.apply({
          ...base,
          outcome: "failed",
          errorCode: "AMBIGUOUS_SUBMISSION",
          detail: "the executor restarted after it began submitting; delivery is unknown",
        });
    }
  }
}
