// The working context of one transition: the immer draft, the injected clock and randomness, collected effects.
import type { Draft } from "immer";
import type { ErrorCode } from "../../../shared/error-codes.ts";
import type { Effect } from "./effects.ts";
import type { DomainEvent, EventType } from "./events.ts";
import type { DomainState, Run, Worker } from "./model.ts";

export interface Clock {
  readonly now: number;
  /** Uniform in [0, 1); injected so tests decide the keepalive jitter. */
  readonly random: () => number;
}

export interface Rejection {
  readonly code: ErrorCode;
  readonly message: string;
}

export type DraftWorker = Draft<Worker>;
export type DraftRun = Draft<Run>;

export class Ctx {
  readonly effects: Effect[] = [];
  reply: Readonly<Record<string, unknown>> | undefined;

  constructor(
    readonly state: Draft<DomainState>,
    /** The plain state the transition started from. */
    readonly base: DomainState,
    readonly clock: Clock,
  ) {}

  get now(): number {
    return this.clock.now;
  }

  emit(
    type: EventType,
    runId: string,
    workerId: string | undefined,
    data: Record<string, unknown> = {},
  ): void {
    const event: DomainEvent = { type, at: this.now, runId, ...(workerId ? { workerId } : {}), data };
    this.effects.push({ kind: "event", event });
  }

  /** Workers reached through `worker()` or `findWorkers()`: the only ones this transition may have changed. */
  readonly touched = new Set<string>();

  /**
   * Drafts of the workers matching `pred`, tested on the transition's input state: proxying every worker
   * just to test a field would make immer draft and finalize all of them. Predicates read fields fixed for
   * the transition (run, path) or accept the input state's view.
   */
  findWorkers(pred: (w: Worker) => boolean): DraftWorker[] {
    const out: DraftWorker[] = [];
    for (const w of Object.values(this.base.workers)) {
      const draft = pred(w) ? this.worker(w.id) : undefined;
      if (draft) out.push(draft);
    }
    return out;
  }

  worker(id: string): DraftWorker | undefined {
    this.touched.add(id);
    return this.state.workers[id];
  }

  /** Runs changed through `runForUpdate()`: a run-level input may change what all its workers can do. */
  readonly touchedRuns = new Set<string>();

  run(id: string): DraftRun | undefined {
    return this.state.runs[id];
  }

  runForUpdate(id: string): DraftRun | undefined {
    this.touchedRuns.add(id);
    return this.state.runs[id];
  }
}

export function reject(code: ErrorCode, message: string): Rejection {
  return { code, message };
}
