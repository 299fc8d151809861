// The working context of one transition: the immer draft, the injected clock and randomness, collected effects.
import type { Draft } from "immer";
import type { Effect } from "./effects.ts";
import type { DomainEvent, EventType } from "./events.ts";
import type { DomainState, Run, Worker } from "./model.ts";

export interface Clock {
  readonly now: number;
  /** Uniform in [0, 1); injected so tests decide the keepalive jitter. */
  readonly random: () => number;
}

export interface Rejection {
  readonly code: string;
  readonly message: string;
}

export type DraftWorker = Draft<Worker>;
export type DraftRun = Draft<Run>;

export class Ctx {
  readonly effects: Effect[] = [];
  reply: Readonly<Record<string, unknown>> | undefined;

  constructor(
    readonly state: Draft<DomainState>,
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

  worker(id: string): DraftWorker | undefined {
    return this.state.workers[id];
  }

  run(id: string): DraftRun | undefined {
    return this.state.runs[id];
  }
}

export function reject(code: string, message: string): Rejection {
  return { code, message };
}
