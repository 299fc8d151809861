// The scheduler shell: feeds inputs to the repository, carries out effects once durable, keeps one timer.
import type { LivenessEnv } from "../core/liveness.ts";
import type { Clock } from "../core/context.ts";
import type { Effect, ExecutorCommand } from "../core/effects.ts";
import type { Input } from "../core/inputs.ts";
import { nextDeadline } from "../core/settle.ts";
import type { TransitionResult } from "../core/transition.ts";
import type { DomainRepository } from "../store/domain-repository.ts";
import { faultPoint } from "../host/fault-points.ts";

/** Where commands go: the executor bridge. It keeps commands for absent executors; they stay durable anyway. */
export interface CommandSink {
  dispatch(command: ExecutorCommand): void;
  cancel(workerId: string, commandId: string): void;
  /** The browser facts worker liveness needs (the executor bridge knows them). */
  livenessEnv?(): LivenessEnv;
}

export interface SchedulerDeps {
  readonly now: () => number;
  readonly random: () => number;
  readonly sink: CommandSink;
  /** Called after events became durable, with the newest event sequence (wakes events_wait, pushes ui.changed). */
  readonly onEvents: (lastSeq: number) => void;
  readonly onError: (error: unknown) => void;
}

/** Node timers cannot wait longer than 2^31-1 ms; longer deadlines are reached in hops. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private armedAt: number | null = null;
  private stopped = false;

  constructor(
    private readonly repo: DomainRepository,
    private readonly deps: SchedulerDeps,
  ) {}

  /** Rebuilds deadlines from durable state (spec 13.1) and runs one tick for anything already due. */
  async start(): Promise<void> {
    this.arm(nextDeadline(this.repo.state, this.deps.now()));
    await this.apply({ type: "tick" });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Applies one input; effects leave the process only after its transaction is on disk. */
  async apply(input: Input): Promise<TransitionResult> {
    const clock: Clock = { now: this.deps.now(), random: this.deps.random };
    const before = this.repo.lastEventSeq;
    const result = await this.repo.apply(input, clock);
    if (!result.error) this.carryOut(result.effects, before);
    return result;
  }

  /**
   * Disarms the timer while the store takes no writes (a tick could only fail and log); `start()` re-arms from the
   * durable state and ticks once writes are taken again, so no deadline that passed meanwhile is missed.
   */
  hold(): void {
    this.arm(null);
  }

  get nextWakeAt(): number | null {
    return this.armedAt;
  }

  private carryOut(effects: readonly Effect[], seqBefore: number): void {
    for (const effect of effects) {
      switch (effect.kind) {
        case "command":
          if (effect.command.prompt.reason !== "initial") faultPoint("resume-scheduled");
          this.deps.sink.dispatch(effect.command);
          break;
        case "cancel_command":
          this.deps.sink.cancel(effect.workerId, effect.commandId);
          break;
        case "timer":
          this.arm(effect.at);
          break;
        case "event":
          if (
            effect.event.type === "continuation.warning" ||
            effect.event.type === "continuation.paused_for_stall"
          ) {
            faultPoint("stall-applied");
          }
          break;
      }
    }
    if (this.repo.lastEventSeq > seqBefore) this.deps.onEvents(this.repo.lastEventSeq);
  }

  private arm(at: number | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = at;
    if (at === null || this.stopped) return;
    const delay = Math.min(Math.max(0, at - this.deps.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.apply({ type: "tick" }).catch(this.deps.onError);
    }, delay);
    // The timer alone must not keep a finished process alive; the bridge and servers do that.
    this.timer.unref();
  }
}
