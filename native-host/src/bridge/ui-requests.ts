// The bridge's answers to `ui.request` (popup, dashboard, overlay, settings page): operations run against the engine
// as the asking browser, answers too large for one frame sent in pages, the host's settings and MCP token, the
// notification settings and their test, and a fault answered as an error with its code (docs/host.md).
import type { ErrorPayload } from "../../../shared/error-codes.ts";
import {
  HOST_SETTINGS_OPS,
  HOST_TOKEN_ROTATE_OP,
  type HostSettings,
  hostSettingsParamsSchema,
} from "../../../shared/host-settings.ts";
import {
  NOTIFY_OPS,
  NOTIFY_SETTINGS_SET_OP,
  NOTIFY_TEST_OP,
  type NotifySettingsView,
  notifySettingsSetParamsSchema,
  notifyTestParamsSchema,
} from "../../../shared/notify-settings.ts";
import {
  MAX_HOST_MESSAGE_BYTES,
  type ExtensionMessage,
  type HostMessage,
} from "../../../shared/native-messages.ts";
import {
  fail,
  faultResult,
  ok,
  type OperationResult,
  type OperationsContext,
} from "../operations/context.ts";
import { invoke, type OperationDef } from "../operations/registry.ts";
import type { StoreLogger } from "../store/store-types.ts";
import type { Session } from "./session.ts";
import { cutIntoPages } from "./ui-pages.ts";

type UiRequest = Extract<ExtensionMessage, { kind: "ui.request" }>;

/** The host's settings for the extension's settings page (`host_settings`, `host_token_rotate`). */
export interface HostSettingsSource {
  get(reveal: boolean): HostSettings;
  rotateToken(): HostSettings | ErrorPayload;
}

/** The notification settings for the settings page (`notify_settings`, `notify_settings_set`, `notify_test`). */
export interface NotifySettingsSource {
  /** Secrets masked, each channel with its delivery status. */
  view(): NotifySettingsView;
  /** The page's settings (masked secrets kept from the stored ones): saved and applied, or why not. */
  set(settings: unknown): NotifySettingsView | ErrorPayload;
  /** One test message to the channel now; null for an unknown channel. */
  test(channelId: string): Promise<{ ok: boolean; detail: string } | null>;
}

export interface UiRequestOptions {
  readonly engine: OperationsContext;
  readonly operations: ReadonlyMap<string, OperationDef>;
  readonly log: StoreLogger;
  readonly hostSettings?: HostSettingsSource;
  readonly notify?: NotifySettingsSource;
}

export class UiRequests {
  constructor(private readonly opts: UiRequestOptions) {}

  async answer(session: Session, m: UiRequest): Promise<void> {
    if (m.cursor !== undefined) return this.nextPage(session, m, m.cursor);
    const relayed = session.conn.relayed === true;
    if ((NOTIFY_OPS as readonly string[]).includes(m.op)) {
      // Not awaited: a test message may wait up to its timeout for a receiver, and the session's reports (handled in
      // order after this request) must not wait with it.
      void this.notifyRequest(m.op, m.params, relayed)
        .then((result) => this.reply(session, m, result))
        .catch((e: unknown) => this.opts.log.warn(`ui.request ${m.op}: could not answer: ${String(e)}`));
      return;
    }
    const result = (HOST_SETTINGS_OPS as readonly string[]).includes(m.op)
      ? this.settingsRequest(m.op, m.params, relayed)
      : await this.invokeForUi(m.op, m.params, session.executorId);
    this.reply(session, m, result);
  }

  private reply(session: Session, m: UiRequest, result: OperationResult): void {
    const response: HostMessage = result.ok
      ? { kind: "ui.response", requestId: m.requestId, ok: true, result: result.value }
      : { kind: "ui.response", requestId: m.requestId, ok: false, error: result.error };
    this.send(session, m, response, result.ok ? result.value : undefined);
  }

  /** The next page of an answer that was cut (see send). */
  private nextPage(session: Session, m: UiRequest, cursor: string): void {
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
    this.send(session, m, response);
  }

  /**
   * Sends the answer; one the framing refuses as too large is sent in pages when `pageable` (its result) has lists to
   * cut: the lists' first page now, the rest when the executor asks with nextCursor. Otherwise MESSAGE_TOO_LARGE.
   */
  private send(session: Session, m: UiRequest, response: HostMessage, pageable?: unknown): void {
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
        this.send(session, m, {
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
   * An operation for the popup or dashboard, run as the asking browser (an adopted conversation is held by it). A
   * fault (the store failing under it) is answered as an error with its code, as MCP answers it, so the view shows
   * why instead of waiting for its request to time out.
   */
  private async invokeForUi(
    op: string,
    params: unknown,
    executorId: string | undefined,
  ): Promise<OperationResult> {
    const ctx = executorId === undefined ? this.opts.engine : askedBy(this.opts.engine, executorId);
    try {
      return await invoke(this.opts.operations, op, params, ctx);
    } catch (error) {
      this.opts.log.warn(
        `ui.request ${op} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      return faultResult(error);
    }
  }

  private async notifyRequest(op: string, params: unknown, relayed: boolean): Promise<OperationResult> {
    try {
      return await answerNotify(this.opts.notify, op, params, relayed);
    } catch (error) {
      this.opts.log.warn(
        `ui.request ${op} failed: ${error instanceof Error ? error.message : String(error)}`,
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
}

/**
 * Answered here, not by an operation: the notification settings hold secrets, so no MCP client reaches them. A
 * relayed session (a second browser's host) may read them masked, as it may the host's settings, but not change or
 * test them: FORBIDDEN.
 */
async function answerNotify(
  source: NotifySettingsSource | undefined,
  op: string,
  params: unknown,
  relayed: boolean,
): Promise<OperationResult> {
  if (!source) return fail("NOT_FOUND", `${op}: not available here`);
  if (op === NOTIFY_SETTINGS_SET_OP || op === NOTIFY_TEST_OP) {
    if (relayed) {
      return fail(
        "FORBIDDEN",
        `${op}: this browser's host relays to the one that owns the data directory, so it cannot change or test ` +
          "notifications; use the settings of the browser that started first",
      );
    }
    if (op === NOTIFY_SETTINGS_SET_OP) {
      const parsed = notifySettingsSetParamsSchema.safeParse(params ?? {});
      if (!parsed.success)
        return fail("INVALID_INPUT", `${op}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      const saved = source.set(parsed.data.settings);
      return "code" in saved ? fail(saved.code, saved.message) : ok(saved);
    }
    const parsed = notifyTestParamsSchema.safeParse(params ?? {});
    if (!parsed.success)
      return fail("INVALID_INPUT", `${op}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const result = await source.test(parsed.data.channelId);
    return result ? ok(result) : fail("NOT_FOUND", `${op}: no channel '${parsed.data.channelId}'`);
  }
  if (
    params !== undefined &&
    params !== null &&
    !(typeof params === "object" && Object.keys(params).length === 0)
  ) {
    return fail("INVALID_INPUT", `${op}: takes no parameters`);
  }
  return ok(source.view());
}

/**
 * The engine as seen by one browser's UI request: everything forwarded to the engine itself (methods bound to it),
 * plus the asking executor's id. A view, not a copy: state read through it is always the engine's current state.
 */
function askedBy(engine: OperationsContext, executorId: string): OperationsContext {
  return new Proxy(engine, {
    get(target, key) {
      if (key === "executorId") return executorId;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
