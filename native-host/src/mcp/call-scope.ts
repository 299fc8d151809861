// Cancellation of MCP tool calls without an AbortController each: the client cancelled the call, its HTTP request's
// connection dropped, or its session closed. Shaped like the part of AbortSignal that event waits watch.
import type { Cancellation } from "../operations/context.ts";

/**
 * A flag and the listeners waiting on it. Node's AbortController is an EventTarget whose signal costs ~20 µs to make
 * on this class of machine, paid on every call by the SDK's dispatch before; most calls never wait and never read it.
 */
export class CallScope implements Cancellation {
  private listeners: (() => void)[] | undefined;
  private cancelled = false;

  get aborted(): boolean {
    return this.cancelled;
  }

  /** Ends every wait watching this scope; later waits see `aborted` at once. Idempotent. */
  abort(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  addEventListener(_type: "abort", listener: () => void): void {
    if (!this.cancelled) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }
}
