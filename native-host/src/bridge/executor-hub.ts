// Executor connections (extension ports, relayed or direct): the hello/welcome handshake, journal
// reconciliation (docs/host.md), routing commands to the executor holding the worker's binding through its tab
// slots (docs/host.md, "Tab slots"), the browser facts worker liveness needs, ui.request.
import {
  MAX_HOST_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  extensionMessageSchema,
  type ExtensionMessage,
  type Hello,
  type HostMessage,
} from "../../../shared/native-messages.ts";
import {
  HOST_SETTINGS_OPS,
  HOST_TOKEN_ROTATE_OP,
  type HostSettings,
  hostSettingsParamsSchema,
} from "../../../shared/host-settings.ts";
import { COMMAND_DEADLINE_MS } from "../core/attempts.ts";
import { COMMAND_TYPES, pendingCommands } from "../core/commands.ts";
import type { ExecutorCommand } from "../core/effects.ts";
import type { Input } from "../core/inputs.ts";
import type { Dispatch, LivenessEnv } from "../core/liveness.ts";
import type { Run, Worker } from "../core/model.ts";
import {
  fail,
  faultResult,
  ok,
  type OperationResult,
  type OperationsContext,
} from "../operations/context.ts";
import { invoke, type OperationDef } from "../operations/registry.ts";
import type { CommandSink } from "../scheduler/scheduler.ts";
import { isStoreError } from "../store/store-error.ts";
import type { StoreLogger } from "../store/store-types.ts";
import { faultPoint } from "../host/fault-points.ts";
import { DEFAULT_MAX_GENERATING, SlotQueue, slotsInUse, type Unanswered } from "./slot-queue.ts";
import { cutIntoPages, PagedAnswers } from "./ui-pages.ts";

/** One framed channel to an executor: the browser's stdio port, or a relay's IPC socket. */
export interface Connection {
  readonly label: string;
  /** A relay's IPC socket (another browser's host, the CLI), not the browser's own native port. */
  readonly relayed?: boolean;
  send(message: HostMessage): void;
}

export type PromptRenderer = (
  command: ExecutorCommand,
  ctx: { worker: Worker; run: Run; rootWorker?: Worker },
) => { promptId: string; text: string };

export interface HubOptions {
  readonly backend: OperationsContext;
  readonly operations: ReadonlyMap<string, OperationDef>;
  readonly renderPrompt: PromptRenderer;
  readonly hostVersion: string;
  readonly log: StoreLogger;
  /** Every message from an executor counts as contact (doctor and status show the last one). */
  readonly onContact?: (executorId: string) => void;
  /** The host's settings for the extension's settings page (`host_settings`, `host_token_rotate`). */
  readonly hostSettings?: {
    get(reveal: boolean): HostSettings;
    rotateToken(): HostSettings | { code: string; message: string };
  };
}

interface Session {
  readonly conn: Connection;
  executorId: string | undefined;
  /** Its hello has been reconciled and welcomed: commands may be routed to it. */
  ready: boolean;
  /** Messages of one connection are applied strictly in arrival order. */
  queue: Promise<void>;
  /** ui.response answers cut into pages, waiting for their `nextCursor` requests. */
  readonly pages: PagedAnswers;
}

/** Refused observations kept while the disk takes no data (one per worker and kind, so a long outage stays small). */
const MAX_REFUSED = 5_000;

/** A command sent to an executor without a result yet; `deadlineAt` is the one sent (unknown for one it journaled earlier). */
interface Sent extends Unanswered {
  readonly deadlineAt?: number;
}

export class ExecutorHub implements CommandSink {
  private readonly sessions = new Set<Session>();
  /**
   * What executors reported while the store could not save it (a full disk), newest per worker and kind, in arrival
   * order: re-applied once the store takes writes, so an idle report sent meanwhile still resumes its worker.
   */
  private readonly refused = new Map<string, Input>();
  /** workerId → executorId that last reported the worker's binding. */
  private readonly owners = new Map<string, string>();
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

  constructor(private readonly opts: HubOptions) {
    this.browser = { connected: false, since: opts.backend.now() };
    this.shown = this.livenessSignature();
  }

  /** Registers a connection; returns the functions its transport calls. */
  connect(conn: Connection): { receive(raw: unknown): Promise<void>; close(): void } {
    const session: Session = {
      conn,
      executorId: undefined,
      ready: false,
      queue: Promise.resolve(),
      pages: new PagedAnswers(),
    };
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
        if (session.ready && !this.isLive(executorId)) this.executorLeft(executorId);
        this.pump();
      },
    };
  }

  get executors(): string[] {
    return [...this.sessions].flatMap((s) => (s.executorId ? [s.executorId] : []));
  }

  /**
   * A command the core scheduled: it waits in the host, in order, until its executor has a tab slot free (a steer needs
   * none) or, with no executor that may run it connected, until one says hello (docs/host.md, "Tab slots").
   */
  dispatch(command: ExecutorCommand): void {
    if (this.sent.has(command.commandId) || this.waiting.has(command.commandId)) return;
    const executorId = this.routeOf(command);
    if (executorId === undefined) this.opts.log.info(`command ${command.commandId} waits for an executor`);
    this.waiting.add(command, executorId, this.opts.backend.now());
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
    const executorId = this.sent.get(commandId)?.executorId ?? this.owners.get(workerId);
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
        const commandId = this.opts.backend.state.workers[workerId]?.current?.commandId;
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
  broadcastChanged(eventSeq: number): void {
    this.pump(false);
    this.shown = this.livenessSignature();
    this.sendChanged(eventSeq);
  }

  private sendChanged(eventSeq: number): void {
    for (const s of this.sessions) if (s.executorId) s.conn.send({ kind: "ui.changed", eventSeq });
  }

  /**
   * The executor that will run `command`: the one holding the worker's binding, and for a new conversation the
   * connected one with the fewest workers (bound or waiting for a slot there); undefined while none is connected.
   */
  private routeOf(command: ExecutorCommand): string | undefined {
    const owner = this.owners.get(command.workerId);
    if (owner !== undefined) return this.isLive(owner) ? owner : undefined;
    if (command.type !== "conversation.create") return undefined;
    const load = (id: string) =>
      [...this.owners.values()].filter((o) => o === id).length + this.waiting.waitingOn(id);
    return this.liveExecutors().reduce<string | undefined>(
      (best, id) => (best === undefined || load(id) < load(best) ? id : best),
      undefined,
    );
  }

  /** Executors whose hello is done: only they are routed commands. */
  private liveExecutors(): string[] {
    return [...this.sessions].flatMap((s) => (s.ready && s.executorId ? [s.executorId] : []));
  }

  private isLive(executorId: string): boolean {
    return this.liveExecutors().includes(executorId);
  }

  private limitOf(executorId: string): number {
    return this.limits.get(executorId) ?? DEFAULT_MAX_GENERATING;
  }

  /**
   * Sends every waiting command that may go now: routed to a connected executor with a slot free, oldest first. Runs
   * after everything that can free a slot or connect an executor (an applied report or result, a hello, a disconnect,
   * a raised limit, a new command, any durable change), and announces changed positions or connection facts to open
   * views unless the caller announces anyway.
   */
  private pump(announce = true): void {
    this.waiting.route((command, current) =>
      current !== undefined && this.isLive(current) ? current : this.routeOf(command),
    );
    const taken = this.waiting.take(
      (executorId) =>
        this.limitOf(executorId) -
        slotsInUse(this.opts.backend.state, executorId, this.owners, this.sent.values()),
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
    this.sendChanged(this.opts.backend.lastEventSeq());
  }

  /** The last session of `executorId` closed: what it held unanswered stays pending in the store for its hello. */
  private executorLeft(executorId: string): void {
    for (const [commandId, s] of this.sent) if (s.executorId === executorId) this.sent.delete(commandId);
    if (this.liveExecutors().length === 0)
      this.browser = { connected: false, since: this.opts.backend.now() };
  }

  private sendCommand(session: Session, command: ExecutorCommand): void {
    const worker = this.opts.backend.state.workers[command.workerId];
    const run = worker ? this.opts.backend.state.runs[worker.runId] : undefined;
    const executorId = session.executorId;
    if (!worker || !run || !executorId) return;
    // Decided while it waited: the worker ended or its attempt was settled another way. Nothing was sent.
    if (worker.current?.commandId !== command.commandId || worker.current.state !== "scheduled") {
      this.opts.log.info(`command ${command.commandId} is no longer scheduled; not sent`);
      return;
    }
    if (!this.isActive(command.workerId)) {
      this.withdraw(command, "the worker ended before the command reached a browser");
      return;
    }
    // Paused while it waited (a host restart can lose the withdrawal Pause asked for): it does not go out.
    if (worker.pause) {
      this.withdraw(command, "the worker was paused before the command reached a browser");
      return;
    }
    const root = Object.values(this.opts.backend.state.workers).find(
      (r) => r.runId === run.id && r.path === "/root",
    );
    const prompt = this.opts.renderPrompt(command, { worker, run, ...(root ? { rootWorker: root } : {}) });
    this.owners.set(command.workerId, executorId);
    // Time spent waiting in the host for a browser or a slot never expires a command: the deadline starts now.
    const deadlineAt = Math.max(command.deadlineAt, this.opts.backend.now() + COMMAND_DEADLINE_MS);
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
      prompt,
    });
    faultPoint("command-sent");
  }

  /** Closes a command no browser ever had as not delivered; the core restores the worker's wish to continue. */
  private withdraw(command: ExecutorCommand, detail: string): void {
    this.apply({
      type: "command.result",
      workerId: command.workerId,
      commandId: command.commandId,
      outcome: "failed",
      errorCode: "CANCELLED",
      detail,
    }).catch((e: unknown) =>
      this.opts.log.warn(`withdrawing command ${command.commandId} failed: ${String(e)}`),
    );
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
    if (message.kind === "ui.request") return this.uiRequest(session, message);
    if (message.kind === "hello") return this.hello(session, message);
    if (!session.executorId) {
      this.opts.log.warn(`${session.conn.label}: ${message.kind} before hello, dropped`);
      return;
    }
    this.opts.onContact?.(session.executorId);
    if (message.kind === "executor.settings") {
      this.limits.set(session.executorId, message.maxGenerating);
      this.opts.log.info(
        `executor ${session.executorId}: ${message.maxGenerating} tabs may generate at once`,
      );
    } else {
      await this.observation(session, message);
    }
    // A report, a result or a new limit may have freed a tab slot.
    this.pump();
  }

  private async observation(
    session: Session,
    m: Exclude<ExtensionMessage, { kind: "hello" | "ui.request" | "executor.settings" }>,
  ) {
    switch (m.kind) {
      case "command.ack":
        faultPoint("ack-received");
        return this.apply({
          type: "command.acked",
          workerId: m.workerId,
          commandId: m.commandId,
          executorId: session.executorId,
        });
      case "command.result":
        faultPoint("result-received");
        this.sent.delete(m.commandId);
        await this.apply({
          type: "command.result",
          workerId: m.workerId,
          commandId: m.commandId,
          outcome: m.outcome,
          ...(m.errorCode ? { errorCode: m.errorCode } : {}),
          ...(m.detail ? { detail: m.detail } : {}),
          ...(m.url ? { url: m.url } : {}),
          executorId: session.executorId,
        });
        faultPoint("result-applied");
        return;
      case "conversation.state":
        if (session.executorId) this.owners.set(m.workerId, session.executorId);
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
          executorId: session.executorId,
        });
        if (m.state === "generating") faultPoint("generating-applied");
        if (m.state === "idle") faultPoint("idle-applied");
        return;
      case "binding":
        // A detached conversation is still this browser's: it reopens the tab for the next command.
        if (session.executorId && holds(m.binding)) this.owners.set(m.workerId, session.executorId);
        return this.apply({
          type: "binding.changed",
          workerId: m.workerId,
          binding: m.binding,
          ...(m.url ? { url: m.url } : {}),
        });
    }
  }

  private async hello(session: Session, hello: Hello): Promise<void> {
    if (hello.protocolVersion !== PROTOCOL_VERSION) {
      // Refused: the session stays without an executor id, so it is offered no command and no ui.changed.
      this.opts.log.warn(
        `${session.conn.label}: refused executor ${hello.executorId} (extension ${hello.extensionVersion}): ` +
          `PROTOCOL_VERSION_MISMATCH, it speaks protocol ${hello.protocolVersion}, the host ${PROTOCOL_VERSION}`,
      );
      session.conn.send({
        kind: "welcome",
        protocolVersion: PROTOCOL_VERSION,
        hostVersion: this.opts.hostVersion,
        executorId: hello.executorId,
        error: {
          code: "PROTOCOL_VERSION_MISMATCH",
          message: `host speaks protocol ${PROTOCOL_VERSION}, extension ${hello.protocolVersion}: update the older one`,
        },
      });
      return;
    }
    session.executorId = hello.executorId;
    this.limits.set(hello.executorId, hello.maxGenerating ?? DEFAULT_MAX_GENERATING);
    this.opts.onContact?.(hello.executorId);
    for (const b of hello.bindings) {
      // A binding of a worker this host does not know (its data directory was replaced, say) is the person's tab
      // again. An ended worker keeps its binding: its overlay says Complete, and Release gives the tab back.
      if (!this.opts.backend.state.workers[b.workerId]) {
        session.conn.send({ kind: "binding.release", workerId: b.workerId });
        continue;
      }
      if (holds(b.binding)) this.owners.set(b.workerId, hello.executorId);
      await this.apply({
        type: "binding.changed",
        workerId: b.workerId,
        binding: b.binding,
        ...(b.url ? { url: b.url } : {}),
      });
      if (b.observed) {
        await this.apply({
          type: "conversation.observed",
          workerId: b.workerId,
          state: b.observed.state,
          seq: b.observed.seq,
          ...(b.observed.errorCode ? { errorCode: b.observed.errorCode } : {}),
          executorId: hello.executorId,
        });
      }
    }
    const journaled = new Set<string>();
    for (const entry of hello.journal) {
      journaled.add(entry.commandId);
      await this.reconcile(entry, hello.executorId);
    }
    session.conn.send({
      kind: "welcome",
      protocolVersion: PROTOCOL_VERSION,
      hostVersion: this.opts.hostVersion,
      executorId: hello.executorId,
    });
    // What this executor was sent and its journal does not list never reached it (the port died first): offered again.
    for (const [commandId, s] of this.sent) {
      if (s.executorId === hello.executorId && !journaled.has(commandId)) this.sent.delete(commandId);
    }
    session.ready = true;
    if (!this.browser.connected) this.browser = { connected: true, since: this.opts.backend.now() };
    // A browser is here: commands refused for want of one are tried at once (docs/continuation-core.md).
    await this.apply({ type: "executor.connected", executorId: hello.executorId });
    // Offer again what this executor should hold and does not know, through its tab slots: same command id and
    // idempotency key. One the host already holds (queued, held, or sent to a browser still connected) is not repeated.
    for (const command of pendingCommands(this.opts.backend.state.workers)) {
      const known = this.waiting.has(command.commandId) || this.sent.has(command.commandId);
      if (journaled.has(command.commandId) || known || this.routeOf(command) !== hello.executorId) continue;
      if (this.isActive(command.workerId)) {
        this.waiting.add(command, hello.executorId, this.opts.backend.now());
        continue;
      }
      // Spec 21.3: the worker ended while its command waited for a browser. It was never sent, so it is
      // closed here as not delivered rather than submitted for a finished worker.
      await this.apply({
        type: "command.result",
        workerId: command.workerId,
        commandId: command.commandId,
        outcome: "failed",
        errorCode: "CANCELLED",
        detail: "the worker ended before the command reached a browser",
      });
    }
    this.pump();
  }

  private isActive(workerId: string): boolean {
    return this.opts.backend.state.workers[workerId]?.status === "active";
  }

  /** Spec 12.4: completed/submitted → the stored result; submission-started → ambiguous; received → wait. */
  private async reconcile(entry: Hello["journal"][number], executorId: string): Promise<void> {
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
        // The executor still holds it: route the worker there (it takes a slot there until its result), and
        // withdraw it if the worker has ended.
        this.owners.set(entry.workerId, executorId);
        this.waiting.remove(entry.commandId);
        const current = this.opts.backend.state.workers[entry.workerId]?.current;
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
        return this.apply({ ...base, outcome: "submitted", ...(entry.url ? { url: entry.url } : {}) });
      case "failed":
        return this.apply({
          ...base,
          outcome: "failed",
          errorCode: entry.errorCode ?? "EXECUTOR_UNAVAILABLE",
        });
      case "submission-started":
        return this.apply({
          ...base,
          outcome: "failed",
          errorCode: "AMBIGUOUS_SUBMISSION",
          detail: "the executor restarted after it began submitting; delivery is unknown",
        });
    }
  }

  private async uiRequest(
    session: Session,
    m: Extract<ExtensionMessage, { kind: "ui.request" }>,
  ): Promise<void> {
    if (m.cursor !== undefined) return this.nextPage(session, m, m.cursor);
    const result = (HOST_SETTINGS_OPS as readonly string[]).includes(m.op)
      ? this.settingsRequest(m.op, m.params, session.conn.relayed === true)
      : await this.invokeForUi(m.op, m.params);
    // An adopted conversation lives in the tab of the executor that asked: its turns go there (issue 8).
    const adopted =
      m.op === "conversation_adopt" && result.ok ? (result.value.worker as { id?: string }) : undefined;
    if (adopted?.id && session.executorId) this.owners.set(adopted.id, session.executorId);
    const response: HostMessage = result.ok
      ? { kind: "ui.response", requestId: m.requestId, ok: true, result: result.value }
      : { kind: "ui.response", requestId: m.requestId, ok: false, error: result.error };
    this.sendUiResponse(session, m, response, result.ok ? result.value : undefined);
  }

  /** The next page of an answer that was cut (see uiRequest). */
  private nextPage(session: Session, m: Extract<ExtensionMessage, { kind: "ui.request" }>, cursor: string) {
    const next = session.pages.take(m.op, cursor);
    const response: HostMessage = next
      ? {
          kind: "ui.response",
          requestId: m.requestId,
          ok: true,
          result: next.page,
          ...(next.nextCursor ? { nextCursor: next.nextCursor } : {}),
        }
      : {
          kind: "ui.response",
          requestId: m.requestId,
          ok: false,
          error: {
            code: "NOT_FOUND",
            message: `${m.op}: no page at this cursor (expired); ask again from the start`,
          },
        };
    this.sendUiResponse(session, m, response);
  }

  /**
   * Sends the answer; one the framing refuses as too large is sent in pages when `pageable` (its result) has lists to
   * cut: the lists' first page now, the rest when the executor asks with nextCursor. Otherwise MESSAGE_TOO_LARGE.
   */
  private sendUiResponse(
    session: Session,
    m: Extract<ExtensionMessage, { kind: "ui.request" }>,
    response: HostMessage,
    pageable?: unknown,
  ): void {
    try {
      session.conn.send(response);
    } catch (e) {
      const pages =
        pageable !== undefined && (e as { code?: string }).code === "MESSAGE_TOO_LARGE"
          ? cutIntoPages(pageable, MAX_HOST_MESSAGE_BYTES)
          : undefined;
      if (pages && pages.length > 1) {
        const nextCursor = session.pages.keep(m.op, pages);
        this.opts.log.info(`ui.request ${m.op}: answered in ${pages.length} pages`);
        this.sendUiResponse(session, m, {
          kind: "ui.response",
          requestId: m.requestId,
          ok: true,
          result: pages[0],
          nextCursor,
        });
        return;
      }
      session.conn.send({
        kind: "ui.response",
        requestId: m.requestId,
        ok: false,
        error: {
          code: "MESSAGE_TOO_LARGE",
          message: `${m.op}: ${String(e)}; ask for fewer items (limit/cursor)`,
        },
      });
    }
  }

  /**
   * An operation for the popup or dashboard. A fault (the store failing under it) is answered as an error with its
   * code, as MCP answers it, so the view shows why instead of waiting for its request to time out.
   */
  private async invokeForUi(op: string, params: unknown): Promise<OperationResult> {
    try {
      return await invoke(this.opts.operations, op, params, this.opts.backend);
    } catch (error) {
      this.opts.log.warn(
        `ui.request ${op} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      return faultResult(error);
    }
  }

  /**
   * Answered here, not by an operation: only the browser's own port may read or rotate the MCP token. A relayed
   * session (the IPC socket) sees the settings masked and may not reveal or rotate: FORBIDDEN.
   */
  private settingsRequest(op: string, params: unknown, relayed: boolean): OperationResult {
    const source = this.opts.hostSettings;
    if (!source) return fail("NOT_FOUND", `${op}: not available here`);
    const forbidden = () =>
      fail(
        "FORBIDDEN",
        `${op}: this browser's host relays to the one that owns the data directory, so it cannot show or ` +
          "regenerate the MCP token; use the settings of the browser that started first, or run " +
          "`npx orchestrator connector` on this machine",
      );
    if (op === HOST_TOKEN_ROTATE_OP) {
      if (relayed) return forbidden();
      const rotated = source.rotateToken();
      return "code" in rotated ? fail(rotated.code, rotated.message) : ok(rotated);
    }
    const parsed = hostSettingsParamsSchema.safeParse(params ?? {});
    if (!parsed.success)
      return fail("INVALID_INPUT", `${op}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    if (parsed.data.reveal === true && relayed) return forbidden();
    return ok(source.get(parsed.data.reveal === true));
  }

  /** The store takes writes again: applies what it refused meanwhile, oldest first. */
  async storeWritable(): Promise<void> {
    const inputs = [...this.refused.values()];
    this.refused.clear();
    if (inputs.length > 0)
      this.opts.log.info(`applying ${inputs.length} executor reports the full disk held back`);
    for (const input of inputs) await this.apply(input);
    this.pump();
  }

  private async apply(input: Input): Promise<void> {
    let result: Awaited<ReturnType<OperationsContext["apply"]>>;
    try {
      result = await this.opts.backend.apply(input);
    } catch (error) {
      // The disk refused it: the executor will not send it again, so keep it for when the store takes writes.
      if (!isStoreError(error, "STORE_IO")) throw error;
      this.keepRefused(input);
      return;
    }
    if (result.error)
      this.opts.log.info(
        `${input.type} for ${"workerId" in input ? input.workerId : "?"}: ${result.error.code} ${result.error.message}`,
      );
  }

  private keepRefused(input: Input): void {
    const key = `${input.type}|${"workerId" in input ? input.workerId : ""}|${"commandId" in input ? input.commandId : ""}`;
    if (this.refused.size === 0) {
      this.opts.log.warn(
        `the store refused an executor report (${input.type}); kept until it takes writes again`,
      );
    }
    // Deleted first so the newest report of a key moves to the end: they replay in the order they arrived.
    this.refused.delete(key);
    this.refused.set(key, input);
    if (this.refused.size > MAX_REFUSED) {
      const oldest = this.refused.keys().next().value as string;
      this.refused.delete(oldest);
      this.opts.log.warn(
        `dropped the oldest held-back executor report (${oldest}): more than ${MAX_REFUSED} waiting`,
      );
    }
  }
}

/** Bindings whose browser carries the worker's commands: the tab shows it, or the browser reopens it for them. */
function holds(binding: string): boolean {
  return binding === "bound" || binding === "detached";
}
