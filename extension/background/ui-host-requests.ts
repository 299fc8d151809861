// The views' calls on the host: each goes out as `ui.request` on the executor's native port and its answer comes
// back by request id, within a time limit; an answer the host cut into pages (`nextCursor`) is fetched whole.
// Also the connection as views show it (a retry after a failure keeps showing that failure).
import type { ExtensionMessage, HostMessage } from "../../shared/native-messages.ts";
import type { ConnectionHealth, Timers } from "./native-connection.ts";
import type { Reply, UiHostLink } from "./ui-bridge-types.ts";

interface Pending {
  readonly resolve: (reply: Reply) => void;
  readonly timer: unknown;
  readonly op: string;
  readonly params: Record<string, unknown>;
  /** The pages so far of an answer the host cut (`nextCursor`), merged. */
  merged?: unknown;
}

export interface HostRequestsDeps {
  readonly host: UiHostLink;
  readonly timers: Timers;
  /** A host answer slower than this is reported to the view as TIMEOUT. */
  readonly requestTimeoutMs?: number;
}

export class HostRequests {
  private readonly pending = new Map<string, Pending>();
  private nextRequest = 0;
  /** The last failure state, shown through each retry's brief "connecting" so views do not flicker. */
  private lastProblem: ConnectionHealth | undefined;

  constructor(private readonly deps: HostRequestsDeps) {}

  /** Calls an operation on the host. */
  request(op: string, params: Record<string, unknown> = {}): Promise<Reply> {
    const health = this.shownHealth();
    if (health.status !== "connected")
      return Promise.resolve({ ok: false, error: { code: "HOST_UNAVAILABLE", message: describe(health) } });
    const requestId = `ui-${++this.nextRequest}`;
    return new Promise<Reply>((resolve) => {
      const timer = this.deps.timers.setTimeout(() => {
        if (!this.pending.delete(requestId)) return;
        resolve({ ok: false, error: { code: "TIMEOUT", message: `the host did not answer ${op} in time` } });
      }, this.deps.requestTimeoutMs ?? 30_000);
      this.pending.set(requestId, { resolve, timer, op, params });
      const sent = this.deps.host.send({ kind: "ui.request", requestId, op, params });
      if (!sent) {
        this.pending.delete(requestId);
        this.deps.timers.clearTimeout(timer);
        resolve({ ok: false, error: { code: "HOST_UNAVAILABLE", message: "the native port is not open" } });
      }
    });
  }

  /** A `ui.response` from the host. */
  answered(message: Extract<HostMessage, { kind: "ui.response" }>): void {
    const pending = this.pending.get(message.requestId);
    if (!pending) return; // answered after a timeout or for a view that closed
    const result =
      message.ok && pending.merged !== undefined ? mergePage(pending.merged, message.result) : message.result;
    let error = message.error;
    if (message.ok && message.nextCursor !== undefined) {
      // A cut answer: ask for the next page under the same request id (and the same timeout); views see it whole.
      pending.merged = result;
      const { op, params } = pending;
      const next: ExtensionMessage = {
        kind: "ui.request",
        requestId: message.requestId,
        op,
        params,
        cursor: message.nextCursor,
      };
      if (this.deps.host.send(next)) return;
      error = { code: "HOST_UNAVAILABLE", message: "the native port is not open" };
    }
    this.pending.delete(message.requestId);
    this.deps.timers.clearTimeout(pending.timer);
    pending.resolve({
      ok: error === undefined && message.ok,
      ...(error === undefined && message.ok && result !== undefined ? { result } : {}),
      ...(error ? { error } : {}),
    });
  }

  /** Connection health changed: requests on a lost port will never be answered. */
  healthChanged(health: ConnectionHealth): void {
    if (health.status !== "connected") this.failPending("HOST_UNAVAILABLE", describe(this.shownHealth()));
  }

  /** The connection as views show it: a retry after a failure stays "Reconnecting…"/"Host not installed". */
  shownHealth(): ConnectionHealth {
    const health = this.deps.host.health();
    if (health.status === "reconnecting" || health.status === "host-not-installed") this.lastProblem = health;
    if (health.status === "connected" || health.status === "incompatible") this.lastProblem = undefined;
    if (health.status === "connecting" && health.failures > 0 && this.lastProblem) return this.lastProblem;
    return health;
  }

  private failPending(code: "HOST_UNAVAILABLE", message: string): void {
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      this.deps.timers.clearTimeout(pending.timer);
      pending.resolve({ ok: false, error: { code, message } });
    }
  }
}

/** Adds a page of a cut answer to the pages before it: the lists grow, the other fields are the same on each page. */
function mergePage(merged: unknown, page: unknown): unknown {
  if (typeof merged !== "object" || merged === null || typeof page !== "object" || page === null)
    return merged;
  const out: Record<string, unknown> = { ...(merged as Record<string, unknown>) };
  for (const [key, value] of Object.entries(page as Record<string, unknown>)) {
    const before = out[key];
    if (Array.isArray(before) && Array.isArray(value))
      out[key] = (before as unknown[]).concat(value as unknown[]);
  }
  return out;
}

function describe(health: ConnectionHealth): string {
  switch (health.status) {
    case "connected":
      return "connected";
    case "connecting":
      return "connecting to the orchestrator host";
    case "reconnecting":
      return `reconnecting to the orchestrator host${health.error ? ` (${health.error})` : ""}`;
    case "host-not-installed":
      return "the orchestrator host is not installed: run `npx orchestrator install`";
    case "incompatible":
      return health.error ?? "the host speaks another protocol version";
  }
}
