// Executor connections (extension ports, relayed or direct): the hello/welcome handshake and journal reconciliation
// (docs/host.md), reports applied in arrival order, UI requests answered, and commands routed to the executor holding
// the worker's conversation (command-router.ts). The engine's effect sink.
import type { ErrorPayload } from "../../../shared/error-codes.ts";
import { PROTOCOL_VERSION, extensionMessageSchema, type Hello } from "../../../shared/native-messages.ts";
import type { ExecutorCommand } from "../core/effects.ts";
import type { LivenessEnv } from "../core/liveness.ts";
import type { EffectSink } from "../engine/effect-sink.ts";
import type { OperationsContext } from "../operations/context.ts";
import type { OperationDef } from "../operations/registry.ts";
import type { StoreHealth, StoreLogger } from "../store/store-types.ts";
import { CommandRouter } from "./command-router.ts";
import { ExecutorReports } from "./executor-reports.ts";
import { type Connection, newSession, type Session } from "./session.ts";
import { DEFAULT_MAX_GENERATING } from "./slot-queue.ts";
import { type HostSettingsSource, type NotifySettingsSource, UiRequests } from "./ui-requests.ts";

export type { Connection } from "./session.ts";

export interface HubOptions {
  readonly engine: OperationsContext;
  readonly operations: ReadonlyMap<string, OperationDef>;
  readonly hostVersion: string;
  readonly log: StoreLogger;
  /** Every message from an executor counts as contact (doctor and status show the last one). */
  readonly onContact?: (executorId: string) => void;
  /** The host's settings for the extension's settings page (`host_settings`, `host_token_rotate`). */
  readonly hostSettings?: HostSettingsSource;
  /** The notification settings for the settings page (`notify_settings`, `notify_settings_set`, `notify_test`). */
  readonly notify?: NotifySettingsSource;
}

export class ExecutorHub implements EffectSink {
  private readonly sessions = new Set<Session>();
  private readonly engine: OperationsContext;
  private readonly reports: ExecutorReports;
  private readonly router: CommandRouter;
  private readonly ui: UiRequests;

  constructor(private readonly opts: HubOptions) {
    this.engine = opts.engine;
    this.reports = new ExecutorReports(opts.engine, opts.log);
    this.router = new CommandRouter(opts.engine, this.reports, opts.log, this.sessions);
    this.ui = new UiRequests({
      engine: opts.engine,
      operations: opts.operations,
      log: opts.log,
      ...(opts.hostSettings ? { hostSettings: opts.hostSettings } : {}),
      ...(opts.notify ? { notify: opts.notify } : {}),
    });
  }

  /** Registers a connection; returns the functions its transport calls. */
  connect(conn: Connection): { receive(raw: unknown): Promise<void>; close(): void } {
    const session = newSession(conn);
    this.sessions.add(session);
    return {
      receive: (raw) => {
        session.queue = session.queue
          .then(() => this.handle(session, raw))
          .catch((e: unknown) => {
            this.opts.log.warn(`${conn.label}: failed to handle a message: ${String(e)}`);
          });
        return session.queue;
      },
      close: () => {
        this.sessions.delete(session);
        const executorId = session.executorId;
        if (!executorId) return;
        this.opts.log.info(`executor ${executorId} disconnected`);
        if (session.ready && !this.router.isLive(executorId)) this.router.executorLeft(executorId);
        this.router.pump();
      },
    };
  }

  get executors(): string[] {
    return [...this.sessions].flatMap((s) => (s.executorId ? [s.executorId] : []));
  }

  /** A command the core scheduled, waiting in the host for its executor and a tab slot (docs/host.md, "Tab slots"). */
  dispatch(command: ExecutorCommand): void {
    this.router.dispatch(command);
  }

  cancel(workerId: string, commandId: string): void {
    this.router.cancel(workerId, commandId);
  }

  livenessEnv(): LivenessEnv {
    return this.router.livenessEnv();
  }

  /** Durable changes: open views refresh, and a freed tab slot is used. */
  changed(eventSeq: number): void {
    this.router.changed(eventSeq);
  }

  /** Open views re-read the summary, whose `storage` says whether changes can be saved; held reports go in again. */
  storeHealth(health: StoreHealth): void {
    this.changed(this.engine.lastEventSeq());
    if (!health.writable) return;
    this.reports
      .replay()
      .then(() => this.router.pump())
      .catch((e: unknown) => this.opts.log.warn(`re-applying held-back reports: ${String(e)}`));
  }

  private async handle(session: Session, raw: unknown): Promise<void> {
    const parsed = extensionMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.opts.log.warn(
        `${session.conn.label}: dropped an invalid message: ${parsed.error.issues[0]?.message ?? "?"}`,
      );
      return;
    }
    const message = parsed.data;
    if (message.kind === "ui.request") return this.ui.answer(session, message);
    if (message.kind === "hello") return this.hello(session, message);
    if (!session.executorId) {
      this.opts.log.warn(`${session.conn.label}: ${message.kind} before hello, dropped`);
      return;
    }
    this.opts.onContact?.(session.executorId);
    if (message.kind === "executor.settings") {
      this.router.setLimit(session.executorId, message.maxGenerating);
      this.opts.log.info(
        `executor ${session.executorId}: ${message.maxGenerating} tabs may generate at once`,
      );
    } else {
      // Answered: the command no longer takes a slot on that executor.
      if (message.kind === "command.result") this.router.answered(message.commandId);
      await this.reports.report(message, session.executorId);
    }
    // A report, a result or a new limit may have freed a tab slot.
    this.router.pump();
  }

  private async hello(session: Session, hello: Hello): Promise<void> {
    if (hello.protocolVersion !== PROTOCOL_VERSION) {
      // Refused: the session stays without an executor id, so it is offered no command and no ui.changed.
      this.opts.log.warn(
        `${session.conn.label}: refused executor ${hello.executorId} (extension ${hello.extensionVersion}): ` +
          `PROTOCOL_VERSION_MISMATCH, it speaks protocol ${hello.protocolVersion}, the host ${PROTOCOL_VERSION}`,
      );
      this.welcome(session, hello.executorId, {
        code: "PROTOCOL_VERSION_MISMATCH",
        message: `host speaks protocol ${PROTOCOL_VERSION}, extension ${hello.protocolVersion}: update the older one`,
      });
      return;
    }
    const executorId = hello.executorId;
    session.executorId = executorId;
    this.router.setLimit(executorId, hello.maxGenerating ?? DEFAULT_MAX_GENERATING);
    this.opts.onContact?.(executorId);
    const known: typeof hello.bindings = [];
    for (const b of hello.bindings) {
      // A binding of a worker this host does not know (its data directory was replaced, say) is the person's tab
      // again. An ended worker keeps its binding: its overlay says Complete, and Release gives the tab back.
      if (!this.engine.state.workers[b.workerId]) {
        session.conn.send({ kind: "binding.release", workerId: b.workerId });
        continue;
      }
      known.push(b);
      await this.reports.apply({
        type: "binding.changed",
        workerId: b.workerId,
        binding: b.binding,
        ...(b.url ? { url: b.url } : {}),
        executorId,
      });
    }
    const journaled = new Set<string>();
    for (const entry of hello.journal) {
      journaled.add(entry.commandId);
      await this.router.reconcile(entry, executorId);
    }
    // Each page's newest observation after the outcomes: a submission the journal holds came before what the page
    // shows now (the adapter reports generating at the proof), and the host reads the first report after a
    // submission as its turn's. Applied first, a turn that ended while no host ran would end nothing (silent wait).
    for (const b of known) {
      if (!b.observed) continue;
      await this.reports.apply({
        type: "conversation.observed",
        workerId: b.workerId,
        state: b.observed.state,
        seq: b.observed.seq,
        ...(b.observed.errorCode ? { errorCode: b.observed.errorCode } : {}),
        executorId,
      });
    }
    this.welcome(session, executorId);
    session.ready = true;
    this.router.welcomed(executorId, journaled);
    // A browser is here: commands refused for want of one are tried at once (docs/continuation-core.md).
    await this.reports.apply({ type: "executor.connected", executorId });
    await this.router.offerPending(executorId, journaled);
  }

  private welcome(session: Session, executorId: string, error?: ErrorPayload): void {
    session.conn.send({
      kind: "welcome",
      protocolVersion: PROTOCOL_VERSION,
      hostVersion: this.opts.hostVersion,
      executorId,
      ...(error ? { error } : {}),
    });
  }
}
