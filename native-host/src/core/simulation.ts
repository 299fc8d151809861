// A simulated world for the core: fake clock, seeded randomness, an executor that records commands.
// Used by the unit and property tests; it drives `transition` exactly as the scheduler shell will.
import type { PolicyPatch } from "../../../shared/continuation-policy.ts";
import type { ExecutorCommand } from "./effects.ts";
import type { DomainEvent } from "./events.ts";
import type { Input } from "./inputs.ts";
import { type ConversationState, type DomainState, EMPTY_STATE, type Worker } from "./model.ts";
import { type TransitionResult, transition } from "./transition.ts";

/** Mulberry32: small, seedable, good enough for jitter in tests. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Simulation {
  state: DomainState = EMPTY_STATE;
  now = 1_000_000;
  timer: number | null = null;
  readonly events: DomainEvent[] = [];
  readonly commands: ExecutorCommand[] = [];
  readonly cancelled: string[] = [];
  private readonly seqs = new Map<string, number>();
  private readonly random: () => number;

  constructor(seed = 1) {
    this.random = seededRandom(seed);
  }

  /** Applies an input that must succeed. */
  apply(input: Input): TransitionResult {
    const result = this.try(input);
    if (result.error) throw new Error(`${input.type} rejected: ${result.error.code} ${result.error.message}`);
    return result;
  }

  /** Applies an input that may be refused; a refusal changes nothing. */
  try(input: Input): TransitionResult {
    const result = transition(this.state, input, { now: this.now, random: this.random });
    this.state = result.state;
    for (const effect of result.effects) {
      if (effect.kind === "event") this.events.push(effect.event);
      else if (effect.kind === "command") this.commands.push(effect.command);
      else if (effect.kind === "cancel_command") this.cancelled.push(effect.commandId);
      else this.timer = effect.at;
    }
    return result;
  }

  /** Moves the clock forward, delivering a tick at every armed deadline on the way, as the scheduler would. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (let guard = 0; this.timer !== null && this.timer <= end; guard++) {
      if (guard > 10_000) throw new Error("timer does not advance");
      this.now = Math.max(this.now, this.timer);
      this.apply({ type: "tick" });
    }
    this.now = end;
  }

  worker(id: string): Worker {
    const w = this.state.workers[id];
    if (!w) throw new Error(`no worker ${id}`);
    return w;
  }

  commandsFor(workerId: string): ExecutorCommand[] {
    return this.commands.filter((c) => c.workerId === workerId);
  }

  eventTypes(workerId?: string): string[] {
    return this.events.filter((e) => workerId === undefined || e.workerId === workerId).map((e) => e.type);
  }

  /** The page reports a state; `extra` carries what a turn's end may add (handoff brief, visible length, URL). */
  observe(
    workerId: string,
    state: ConversationState,
    errorCode?: string,
    extra: { handoffBrief?: string; visibleChars?: number; url?: string } = {},
  ): TransitionResult {
    const seq = (this.seqs.get(workerId) ?? 0) + 1;
    this.seqs.set(workerId, seq);
    return this.apply({
      type: "conversation.observed",
      workerId,
      state,
      seq,
      ...(errorCode ? { errorCode } : {}),
      ...extra,
    });
  }

  /** The executor reports the worker's current command as submitted (or failed with a code). */
  result(workerId: string, errorCode?: string): TransitionResult {
    const attempt = this.worker(workerId).current;
    if (!attempt) throw new Error(`worker ${workerId} has no attempt`);
    return this.apply({
      type: "command.result",
      workerId,
      commandId: attempt.commandId,
      ...(errorCode
        ? { outcome: "failed" as const, errorCode }
        : { outcome: "submitted" as const, url: `https://chatgpt.com/c/${workerId}` }),
    });
  }

  /**
   * Creates the run if it does not exist (with `policy`, Auto Resume by default) and spawns a worker; its bootstrap
   * create command is sent, nothing more. Extra spawn fields (e.g. `startUrl`) go with the spawn.
   */
  spawn(
    opts: {
      workerId?: string;
      path?: string;
      runId?: string;
      policy?: PolicyPatch;
      startUrl?: string;
    } = {},
  ): string {
    const runId = opts.runId ?? "run-1";
    const workerId = opts.workerId ?? "w-1";
    if (!this.state.runs[runId]) {
      this.apply({ type: "run.create", runId, name: "Run", policy: { mode: "auto", ...opts.policy } });
    }
    this.apply({
      type: "worker.spawn",
      runId,
      workerId,
      path: opts.path ?? "/root",
      objective: "Build it",
      ...(opts.startUrl !== undefined ? { startUrl: opts.startUrl } : {}),
    });
    return workerId;
  }

  /** Creates a run and spawns a worker whose bootstrap turn is submitted and generating. */
  start(opts: { mode?: "auto" | "manual"; workerId?: string; path?: string; runId?: string } = {}): string {
    const { mode, ...rest } = opts;
    const workerId = this.spawn({ ...rest, policy: { mode: mode ?? "auto" } });
    this.result(workerId);
    this.observe(workerId, "generating");
    return workerId;
  }
}
