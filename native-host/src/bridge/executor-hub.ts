// Executor connections (extension ports, relayed or direct): the hello/welcome handshake, journal
// reconciliation (spec 12.4, 13.2), routing commands to the executor holding the worker's binding, ui.request.
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
import { pendingCommands } from "../core/commands.ts";
import type { ExecutorCommand } from "../core/effects.ts";
import type { Input } from "../core/inputs.ts";
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
  /** Messages of one connection are applied strictly in arrival order. */
  queue: Promise<void>;
  /** ui.response answers cut into pages, waiting for their `nextCursor` requests. */
  readonly pages: PagedAnswers;
}

/** Refused observations kept while the disk takes no data (one per worker and kind, so a long outage stays small). */
const MAX_REFUSED = 5_000;

export class ExecutorHub implements CommandSink {
  private readonly sessions = new Set<Session>();
  /**
   * What executors reported while the store could not save it (a full disk), newest per worker and kind, in arrival
   * order: re-applied once the store takes writes, so an idle report sent meanwhile still resumes its worker.
   */
  private readonly refused = new Map<string, Input>();
  /** workerId → executorId that last reported the worker's binding. */
  private readonly owners = new Map<string, string>();

  constructor(private readonly opts: HubOptions) {}

  /** Registers a connection; returns the functions its transport calls. */
  connect(conn: Connection): { receive(raw: unknown): Promise<void>; close(): void } {
    const session: Session = {
      conn,
      executorId: undefined,
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
        if (session.executorId) this.opts.log.info(`executor ${session.executorId} disconnected`);
      },
    };
  }

  get executors(): string[] {
    return [...this.sessions].flatMap((s) => (s.executorId ? [s.executorId] : []));
  }

  dispatch(command: ExecutorCommand): void {
    const session = this.sessionFor(command);
    if (!session) {
      // No executor holds this worker now: the attempt stays scheduled in the store and is offered on hello.
      this.opts.log.info(`command ${command.commandId} waits for an executor`);
      return;
    }
    this.sendCommand(session, command);
  }

  cancel(workerId: string, commandId: string): void {
    const executorId = this.owners.get(workerId);
    for (const s of this.sessions) {
      if (s.executorId !== undefined && s.executorId === executorId)
        s.conn.send({ kind: "command.cancel", commandId, workerId });
    }
  }

  /** Announces durable changes to every executor (open popups and dashboards refresh). */
  broadcastChanged(eventSeq: number): void {
    for (const s of this.sessions) if (s.executorId) s.conn.send({ kind: "ui.changed", eventSeq });
  }

  private sessionFor(command: ExecutorCommand): Session | undefined {
    const live = [...this.sessions].filter((s) => s.executorId !== undefined);
    const owner = this.owners.get(command.workerId);
    if (owner !== undefined) return live.find((s) => s.executorId === owner);
    if (command.type !== "conversation.create") return undefined;
    // A new conversation can be opened by any executor: spread them over browsers, fewest bound workers first.
    const load = (s: Session) => [...this.owners.values()].filter((id) => id === s.executorId).length;
    return live.reduce<Session | undefined>(
      (best, s) => (best === undefined || load(s) < load(best) ? s : best),
      undefined,
    );
  }

  private sendCommand(session: Session, command: ExecutorCommand): void {
    const worker = this.opts.backend.state.workers[command.workerId];
    const run = worker ? this.opts.backend.state.runs[worker.runId] : undefined;
    if (!worker || !run) return;
    const root = Object.values(this.opts.backend.state.workers).find(
      (r) => r.runId === run.id && r.path === "/root",
    );
    const prompt = this.opts.renderPrompt(command, { worker, run, ...(root ? { rootWorker: root } : {}) });
    if (session.executorId) this.owners.set(command.workerId, session.executorId);
    session.conn.send({
      kind: "command",
      type: command.type,
      commandId: command.commandId,
      idempotencyKey: command.idempotencyKey,
      executionId: command.executionId,
      runId: command.runId,
      workerId: command.workerId,
      ...(command.conversationUrl ? { conversationUrl: command.conversationUrl } : {}),
      deadlineAt: command.deadlineAt,
      prompt,
    });
    faultPoint("command-sent");
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
    await this.observation(session, message);
  }

  private async observation(
    session: Session,
    m: Exclude<ExtensionMessage, { kind: "hello" | "ui.request" }>,
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
          executorId: session.executorId,
        });
        if (m.state === "generating") faultPoint("generating-applied");
        if (m.state === "idle") faultPoint("idle-applied");
        return;
      case "binding":
        if (session.executorId && m.binding === "bound") this.owners.set(m.workerId, session.executorId);
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
    this.opts.onContact?.(hello.executorId);
    for (const b of hello.bindings) {
      if (!this.opts.backend.state.workers[b.workerId]) continue;
      if (b.binding === "bound") this.owners.set(b.workerId, hello.executorId);
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
    // Offer again what this executor should hold and does not know: same command id and idempotency key.
    for (const command of pendingCommands(this.opts.backend.state.workers)) {
      if (journaled.has(command.commandId) || this.sessionFor(command) !== session) continue;
      if (this.isActive(command.workerId)) {
        this.sendCommand(session, command);
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
  }

  private isActive(workerId: string): boolean {
    return this.opts.backend.state.workers[workerId]?.status === "active";
  }

  /** Spec 12.4: completed/submitted → the stored result; submission-started → ambiguous; received → wait. */
  private async reconcile(entry: Hello["journal"][number], executorId: string): Promise<void> {
    const base = {
      type: "command.result" as const,
      workerId: entry.workerId,
      commandId: entry.commandId,
      executorId,
    };
    switch (entry.phase) {
      case "received":
        // The executor still holds it: route the worker there, and withdraw it if the worker has ended.
        this.owners.set(entry.workerId, executorId);
        if (!this.isActive(entry.workerId)) this.cancel(entry.workerId, entry.commandId);
        return;
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
