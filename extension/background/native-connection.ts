// The one native messaging port to the host (`connectNative`), reconnected with capped exponential backoff and
// jitter, with a health the UI can read. Every host message is validated with `hostMessageSchema`; an invalid
// one is logged and dropped, never acted on.
import {
  extensionMessageSchema,
  hostMessageSchema,
  type ExtensionMessage,
  type HostMessage,
} from "../../shared/native-messages.ts";
import { NATIVE_HOST_NAME } from "../../shared/extension-ids.ts";
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "../lib/backoff.ts";
import type { ExtensionApi, NativePort } from "../lib/browser-api.ts";
import { errorText, type Logger } from "../lib/logger.ts";

/**
 * - `connecting`: a port is open and `hello` is on its way; no `welcome` yet.
 * - `connected`: the host answered `hello` with a `welcome`.
 * - `reconnecting`: the port closed (host exited or crashed); a retry is scheduled.
 * - `host-not-installed`: the browser refused to start the host (no manifest, or not allowed for this
 *   extension id): `orchestrator install` fixes it. Retries continue, slower.
 * - `incompatible`: the host speaks another protocol version; nothing is sent until one of them is updated.
 */
export type HealthStatus =
  "connecting" | "connected" | "reconnecting" | "host-not-installed" | "incompatible";

export interface ConnectionHealth {
  readonly status: HealthStatus;
  /** The browser's or host's own words for the last problem. */
  readonly error?: string;
  readonly since: number;
  /** Failed connection attempts since the last `welcome`. */
  readonly failures: number;
  readonly nextRetryAt?: number;
  /** Invalid host messages dropped since start. */
  readonly droppedInvalid: number;
}

export interface Timers {
  readonly now: () => number;
  readonly setTimeout: (fn: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
  readonly random: () => number;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: () => Math.random(),
};

export interface NativeConnectionOptions {
  readonly api: Pick<ExtensionApi, "runtime">;
  readonly timers: Timers;
  readonly log: Logger;
  readonly backoff?: BackoffPolicy;
  /** A port was opened: send `hello` on it (the connection counts as usable once `hello` went out). */
  readonly onOpen: (port: PortHandle) => void;
  /** A valid message from the host. */
  readonly onMessage: (message: HostMessage, port: PortHandle) => void;
  readonly onClose?: () => void;
  readonly onHealth?: (health: ConnectionHealth) => void;
}

/** One opened port; stale handles (from before a reconnect) refuse to send. */
export interface PortHandle {
  readonly generation: number;
  send(message: ExtensionMessage): boolean;
}

const NOT_INSTALLED =
  /not found|no such native application|forbidden|not allowed|invalid native messaging host|not installed/i;

export class NativeConnection {
  private port: NativePort | undefined;
  private generation = 0;
  private failures = 0;
  private retryTimer: unknown;
  private stopped = true;
  private state: ConnectionHealth;
  private dropped = 0;

  constructor(private readonly opts: NativeConnectionOptions) {
    this.state = { status: "connecting", since: opts.timers.now(), failures: 0, droppedInvalid: 0 };
  }

  health(): ConnectionHealth {
    return this.state;
  }

  get isOpen(): boolean {
    return this.port !== undefined;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.cancelRetry();
    const port = this.port;
    this.port = undefined;
    port?.disconnect();
  }

  /** Connects now if no port is open (an alarm woke the service worker, or the UI asked to retry). */
  ensure(): void {
    if (this.stopped || this.port) return;
    this.cancelRetry();
    this.connect();
  }

  private connect(): void {
    const generation = ++this.generation;
    let port: NativePort;
    try {
      port = this.opts.api.runtime.connectNative(NATIVE_HOST_NAME);
    } catch (e) {
      this.closed(generation, errorText(e));
      return;
    }
    this.port = port;
    port.onMessage.addListener((raw) => this.receive(generation, raw));
    port.onDisconnect.addListener((p) => {
      const reason =
        p.error?.message ?? this.opts.api.runtime.lastError?.message ?? "the host closed the port";
      this.closed(generation, reason);
    });
    this.setHealth({ status: "connecting" });
    this.opts.onOpen(this.handle(generation));
  }

  private handle(generation: number): PortHandle {
    return { generation, send: (message) => this.send(generation, message) };
  }

  private send(generation: number, message: ExtensionMessage): boolean {
    const port = this.port;
    if (!port || generation !== this.generation || this.state.status === "incompatible") return false;
    const checked = extensionMessageSchema.safeParse(message);
    if (!checked.success) {
      this.opts.log.warn(
        `not sending an invalid ${message.kind}: ${checked.error.issues[0]?.message ?? "invalid"}`,
      );
      return false;
    }
    try {
      port.postMessage(checked.data);
      return true;
    } catch (e) {
      this.opts.log.warn(`native port refused ${message.kind}: ${errorText(e)}`);
      return false;
    }
  }

  private receive(generation: number, raw: unknown): void {
    if (generation !== this.generation) return;
    const parsed = hostMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.dropped += 1;
      const issue = parsed.error.issues[0];
      this.opts.log.warn(
        `dropped an invalid host message (${describeKind(raw)}): ${issue ? `${issue.path.join(".")} ${issue.message}` : "invalid"}`,
      );
      this.setHealth({});
      return;
    }
    const message = parsed.data;
    if (message.kind === "welcome") {
      if (message.error) {
        this.opts.log.warn(`host refused this extension: ${message.error.message}`);
        this.setHealth({ status: "incompatible", error: message.error.message });
      } else {
        this.failures = 0;
        this.setHealth({ status: "connected" });
      }
    }
    this.opts.onMessage(message, this.handle(generation));
  }

  private closed(generation: number, reason: string): void {
    if (generation !== this.generation) return;
    this.port = undefined;
    this.opts.onClose?.();
    if (this.stopped) return;
    const notInstalled = NOT_INSTALLED.test(reason);
    const delay = backoffDelay(this.failures, this.opts.backoff ?? DEFAULT_BACKOFF, this.opts.timers.random);
    this.failures += 1;
    this.opts.log.warn(`native host disconnected: ${reason}; retry in ${delay} ms`);
    this.setHealth({
      status: notInstalled ? "host-not-installed" : "reconnecting",
      error: reason,
      nextRetryAt: this.opts.timers.now() + delay,
    });
    this.cancelRetry();
    this.retryTimer = this.opts.timers.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped && !this.port) this.connect();
    }, delay);
  }

  private cancelRetry(): void {
    if (this.retryTimer !== undefined) this.opts.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private setHealth(change: Partial<Omit<ConnectionHealth, "since" | "failures" | "droppedInvalid">>): void {
    const status = change.status ?? this.state.status;
    const statusChanged = status !== this.state.status;
    const next: ConnectionHealth = {
      status,
      since: statusChanged ? this.opts.timers.now() : this.state.since,
      failures: this.failures,
      droppedInvalid: this.dropped,
      ...(change.status === undefined
        ? {
            ...(this.state.error !== undefined ? { error: this.state.error } : {}),
            ...(this.state.nextRetryAt !== undefined ? { nextRetryAt: this.state.nextRetryAt } : {}),
          }
        : {}),
      ...(change.error !== undefined ? { error: change.error } : {}),
      ...(change.nextRetryAt !== undefined ? { nextRetryAt: change.nextRetryAt } : {}),
    };
    this.state = next;
    this.opts.onHealth?.(next);
  }
}

function describeKind(raw: unknown): string {
  if (typeof raw === "object" && raw !== null && "kind" in raw) {
    const kind = raw.kind;
    return typeof kind === "string" ? `kind ${JSON.stringify(kind.slice(0, 40))}` : "kind not a string";
  }
  return typeof raw;
}
