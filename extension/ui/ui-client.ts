// The views' side of the bridge: one runtime port to the background, calls answered by id and typed by the
// contracts (view-calls.ts), and signals holding the connection status and the host's last change, so components
// re-render and re-read when state moves.
import { signal, type Signal } from "@preact/signals";
import type { ErrorCode } from "../../shared/error-codes.ts";
import type { ApiEvent } from "../lib/browser-api.ts";
import { backgroundToViewSchema, type LocalPrefs, type UiStatus, type ViewMessage } from "./ui-protocol.ts";
import { resultSchemaOf, type ViewCallName, type ViewCallParams, type ViewCallResult } from "./view-calls.ts";

/** The view end of `runtime.connect`. */
export interface ClientPort {
  postMessage(message: unknown): void;
  disconnect(): void;
  readonly onMessage: ApiEvent<(message: unknown) => void>;
  readonly onDisconnect: ApiEvent<(port: ClientPort) => void>;
}

export type Connect = (name: string) => ClientPort;

export interface UiError {
  readonly code: ErrorCode;
  readonly message: string;
}

export type CallResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: UiError };

export interface ClientTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const browserTimers: ClientTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** The background restarted (MV3 service worker): reconnect after this long. */
const RECONNECT_MS = 300;

export class UiClient {
  /** Null until the background has answered once (or while it is gone). */
  readonly status: Signal<UiStatus | null> = signal(null);
  /** False once the extension context is gone for good (extension reloaded under a content script). */
  readonly alive = signal(true);
  /** The host's event cursor at its last `ui.changed`; every change bumps `changes`. */
  readonly changes = signal(0);
  private port: ClientPort | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, (r: CallResult<unknown>) => void>();
  private closed = false;
  private reconnectTimer: unknown;

  constructor(
    private readonly connect: Connect,
    private readonly portName: string,
    private readonly timers: ClientTimers = browserTimers,
  ) {
    this.open();
  }

  /**
   * Calls an operation (or a call the background answers) through the background. The result is parsed with the
   * call's contract, so a host of another version shows an error instead of a half-drawn view.
   */
  async call<N extends ViewCallName>(
    op: N,
    params: ViewCallParams<N>,
  ): Promise<CallResult<ViewCallResult<N>>> {
    const raw = await this.callRaw(op, params);
    if (!raw.ok) return raw;
    const parsed = resultSchemaOf(op).safeParse(raw.value);
    if (parsed.success) return { ok: true, value: parsed.data as ViewCallResult<N> };
    return {
      ok: false,
      error: { code: "UNEXPECTED_RESULT", message: `${op}: ${parsed.error.issues[0]?.message ?? "invalid"}` },
    };
  }

  /**
   * Sends any call by name and returns what came back unparsed. Views use `call`; this is for checking the bridge's
   * own refusals of calls a view may not make (tests).
   */
  callRaw(op: string, params: Record<string, unknown>): Promise<CallResult<unknown>> {
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      if (!this.send({ type: "call", id, op, params })) {
        this.pending.delete(id);
        resolve({
          ok: false,
          error: { code: "BACKGROUND_UNAVAILABLE", message: "the extension is restarting" },
        });
      }
    });
  }

  retry(): void {
    this.send({ type: "retry" });
  }

  setPrefs(prefs: Partial<LocalPrefs>): void {
    this.send({ type: "prefs.set", prefs });
  }

  setMaxGenerating(maxGenerating: number): void {
    this.send({ type: "concurrency.set", maxGenerating });
  }

  openConversation(workerId: string, url: string | null): void {
    this.send({ type: "open-conversation", workerId, ...(url ? { url } : {}) });
  }

  close(): void {
    this.closed = true;
    this.timers.clearTimeout(this.reconnectTimer);
    this.port?.disconnect();
    this.port = undefined;
  }

  private open(): void {
    let port: ClientPort;
    try {
      port = this.connect(this.portName);
    } catch {
      // Only an invalidated extension context refuses to connect: retrying would never succeed.
      this.closed = true;
      this.alive.value = false;
      this.lost();
      return;
    }
    this.port = port;
    port.onMessage.addListener((raw) => this.receive(raw));
    port.onDisconnect.addListener(() => {
      if (this.port === port) this.lost();
    });
  }

  private lost(): void {
    this.port = undefined;
    this.status.value = null;
    for (const [id, resolve] of this.pending) {
      this.pending.delete(id);
      resolve({ ok: false, error: { code: "BACKGROUND_UNAVAILABLE", message: "the extension restarted" } });
    }
    if (this.closed) return;
    this.reconnectTimer = this.timers.setTimeout(() => {
      if (!this.closed) this.open();
    }, RECONNECT_MS);
  }

  private send(message: ViewMessage): boolean {
    if (!this.port) return false;
    try {
      this.port.postMessage(message);
      return true;
    } catch {
      this.lost();
      return false;
    }
  }

  private receive(raw: unknown): void {
    const parsed = backgroundToViewSchema.safeParse(raw);
    if (!parsed.success) return; // only the background talks on this port; an old version's message is ignored
    const m = parsed.data;
    switch (m.type) {
      case "status": {
        const before = this.status.value?.connection;
        this.status.value = m.status;
        // Reconnected: what was shown may be stale; read again.
        if (before !== undefined && before !== "connected" && m.status.connection === "connected")
          this.changes.value += 1;
        return;
      }
      case "changed":
        this.changes.value += 1;
        return;
      case "result": {
        const resolve = this.pending.get(m.id);
        if (!resolve) return;
        this.pending.delete(m.id);
        resolve(
          m.ok
            ? { ok: true, value: m.result }
            : { ok: false, error: m.error ?? { code: "INTERNAL", message: "failed without a reason" } },
        );
        return;
      }
    }
  }
}
