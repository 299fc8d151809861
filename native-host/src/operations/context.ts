// What an operation may use: the domain state, the durable apply path and event reads. Implemented by the engine.
import { type ErrorCode, isErrorCode } from "../../../shared/error-codes.ts";
import type { Input } from "../core/inputs.ts";
import type { Attempt, DomainState, Message } from "../core/model.ts";
import type { LivenessEnv } from "../core/liveness.ts";
import type { TransitionResult } from "../core/transition.ts";
import type { ViewContext } from "./views.ts";
import type { EventFilter, StoredEvent } from "../store/recent-events.ts";
import type { StoreHealth } from "../store/store-types.ts";

export type { EventFilter } from "../store/recent-events.ts";

/**
 * What a wait watches to end early: an AbortSignal, or anything with the same `aborted` flag and `abort` listeners
 * (the MCP layer's cheaper CallScope).
 */
export interface Cancellation {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export interface OperationsContext {
  readonly state: DomainState;
  /**
   * The executor (browser profile) whose popup, dashboard or overlay asked, for a UI request; absent for MCP calls.
   * An operation that binds a worker to the asking browser's tab (conversation_adopt) records it through its input.
   */
  readonly executorId?: string;
  /** Applies an input durably and carries out its effects; resolves once it is on disk. */
  apply(input: Input): Promise<TransitionResult>;
  newId(): string;
  now(): number;
  lastEventSeq(): number;
  eventsAfter(cursor: number, limit: number, filter: EventFilter): StoredEvent[];
  /** Resolves when an event newer than `cursor` exists, the timeout passes or any of the signals aborts. */
  waitForEvent(cursor: number, timeoutMs: number, signals?: readonly Cancellation[]): Promise<void>;
  attempts(workerId: string): Attempt[];
  inbox(workerId: string, afterSeq: number): Message[];
  /**
   * Resolves once everything committed so far is on disk. Reads see committed state at once, including a write whose
   * fdatasync is still running, so a reply waits for this: it must never show state or an event a crash could undo.
   */
  durable(): Promise<void>;
  /** Whether changes can be saved now: after the disk refused data, why, since when, and when it is tried again. */
  storeHealth(): StoreHealth;
  /** The browser facts worker liveness needs (connected since when, commands queued for a tab slot). */
  livenessEnv(): LivenessEnv;
}

/** The time and browser facts a view of this context is built with. */
export function viewOf(ctx: OperationsContext): ViewContext {
  return { now: ctx.now(), env: ctx.livenessEnv() };
}

/** A refusal or fault: a code from the closed list (shared/error-codes.ts) and a message for a person. */
export interface OperationFailure {
  readonly ok: false;
  readonly error: { readonly code: ErrorCode; readonly message: string };
}

/** An operation's answer; `T` is its contract's output (shared/operations/), untyped where any operation may answer. */
export type OperationResult<T = Readonly<Record<string, unknown>>> =
  { readonly ok: true; readonly value: T } | OperationFailure;

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function fail(code: ErrorCode, message: string): OperationFailure {
  return { ok: false, error: { code, message } };
}

/**
 * A fault an operation threw, as a result: a store fault keeps its own code (STORE_IO, STORE_FAILED, …) so the caller
 * can tell a failing disk from a bug; anything else (a code outside the closed list too) is INTERNAL.
 */
export function faultResult(error: unknown): OperationFailure {
  const code = (error as { code?: unknown } | null)?.code;
  return fail(isErrorCode(code) ? code : "INTERNAL", error instanceof Error ? error.message : String(error));
}
