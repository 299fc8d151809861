// The owner process's one engine: load → transition (core) → commit (repository) → effects. It owns the single timer,
// the events_wait waiters and maintenance, and is the context every operation runs against (docs/architecture.md).
import { randomUUID } from "node:crypto";
import type { Effect } from "../core/effects.ts";
import type { Input } from "../core/inputs.ts";
import { CONNECTED_ENV, type LivenessEnv } from "../core/liveness.ts";
import type { Attempt, DomainState, Message } from "../core/model.ts";
import { nextDeadline } from "../core/settle.ts";
import type { TransitionResult } from "../core/transition.ts";
import type { Cancellation, EventFilter, OperationsContext } from "../operations/context.ts";
import { DomainRepository, type StoredEvent } from "../store/domain-repository.ts";
import { DurableStore } from "../store/durable-store.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import type { StoreHealth, StoreLogger, StoreOptions } from "../store/store-types.ts";
import { DeadlineTimer } from "./deadline-timer.ts";
import type { EffectSink } from "./effect-sink.ts";
import { EventWaiters } from "./event-waiters.ts";
import { faultPoint } from "./fault-points.ts";
import { step } from "./step.ts";

export interface EngineOptions {
  readonly dir: string;
  readonly log: StoreLogger;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly store?: Partial<
    Pick<StoreOptions, "snapshotAfterBytes" | "faultHook" | "ioRetryMs" | "acceptLoss">
  >;
  /** Where a timer tick's failure goes; a warning in the log by default. */
  readonly onError?: (error: unknown) => void;
}

/** A finished run's events stay live this long, so agents waiting on them still read them. */
export const ARCHIVE_AFTER_MS = 60 * 60_000;
const MAINTENANCE_EVERY_MS = 10 * 60_000;

export class Engine implements OperationsContext {
  private readonly waiters: EventWaiters;
  private readonly timer: DeadlineTimer;
  private readonly clockNow: () => number;
  private readonly random: () => number;
  private readonly onError: (error: unknown) => void;
  private sink: EffectSink | undefined;
  private maintenance: NodeJS.Timeout | undefined;

  private constructor(
    readonly store: DurableStore,
    private readonly repo: DomainRepository,
    private readonly options: EngineOptions,
  ) {
    this.clockNow = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.onError = options.onError ?? ((e) => options.log.warn(`engine: ${String(e)}`));
    this.waiters = new EventWaiters(() => repo.lastEventSeq);
    // Looked up when it fires, so a tick goes through `apply` like every other input.
    this.timer = new DeadlineTimer(this.clockNow, () => {
      this.apply({ type: "tick" }).catch(this.onError);
    });
  }

  /**
   * Opens the store, rebuilds the timer from durable state and runs one tick for anything already due, records an
   * accepted store loss, and archives finished runs. Commands decided before `attach` stay pending in the store.
   */
  static async open(options: EngineOptions): Promise<Engine> {
    const store = await DurableStore.open({
      dir: options.dir,
      migrations: MIGRATIONS,
      log: options.log,
      ...options.store,
    });
    const engine = new Engine(store, DomainRepository.open(store), options);
    store.onHealth((health) => engine.storeHealthChanged(health));
    await engine.start();
    const loss = store.acceptedLoss;
    if (loss) {
      await engine.apply({
        type: "store.loss_accepted",
        acknowledgedSeq: loss.acknowledgedSeq,
        keptSeq: loss.keptSeq,
        detail: loss.message,
      });
    }
    await engine.maintain();
    engine.maintenance = setInterval(() => {
      engine.maintain().catch((e: unknown) => options.log.warn(`maintenance failed: ${String(e)}`));
    }, MAINTENANCE_EVERY_MS);
    engine.maintenance.unref();
    return engine;
  }

  /**
   * Attaches where effects go (the executor bridge), once: effects of every later apply reach it. Commands decided
   * before are not replayed here; the bridge offers pending ones to each executor on its hello.
   */
  attach(sink: EffectSink): void {
    if (this.sink) throw new Error("the engine's effect sink is attached already");
    this.sink = sink;
  }

  /** Applies one input durably; its effects leave the process only after its transaction is on disk. */
  async apply(input: Input): Promise<TransitionResult> {
    const before = this.repo.lastEventSeq;
    const result = await step(this.repo, input, { now: this.clockNow(), random: this.random });
    if (!result.error) this.carryOut(result.effects, before);
    return result;
  }

  /** Archives runs that ended more than ARCHIVE_AFTER_MS ago (keeps the live database bounded). */
  async maintain(): Promise<number> {
    const moved = await this.repo.archiveEndedRuns(this.clockNow(), ARCHIVE_AFTER_MS);
    if (moved > 0) this.options.log.info(`archived ${moved} events of finished runs`);
    return moved;
  }

  /** The instant the timer is armed for, or null. */
  get nextWakeAt(): number | null {
    return this.timer.at;
  }

  get state(): DomainState {
    return this.repo.state;
  }

  newId(): string {
    return randomUUID();
  }

  now(): number {
    return this.clockNow();
  }

  lastEventSeq(): number {
    return this.repo.lastEventSeq;
  }

  eventsAfter(cursor: number, limit: number, filter: EventFilter): StoredEvent[] {
    return this.repo.eventsAfter(cursor, limit, filter);
  }

  waitForEvent(cursor: number, timeoutMs: number, signals?: readonly Cancellation[]): Promise<void> {
    return this.waiters.wait(cursor, timeoutMs, signals);
  }

  attempts(workerId: string): Attempt[] {
    return this.repo.attempts(workerId);
  }

  inbox(workerId: string, afterSeq: number): Message[] {
    return this.repo.inbox(workerId, afterSeq);
  }

  storeHealth(): StoreHealth {
    return this.store.health();
  }

  /** From the executor bridge; without one attached (tests, tools) a browser is taken as connected. */
  livenessEnv(): LivenessEnv {
    return this.sink?.livenessEnv() ?? CONNECTED_ENV;
  }

  durable(): Promise<void> {
    return this.store.sync();
  }

  async close(): Promise<void> {
    if (this.maintenance) clearInterval(this.maintenance);
    this.timer.stop();
    await this.store.close();
  }

  /** Re-arms the timer from the durable state and ticks once, so no deadline that passed meanwhile is missed. */
  private async start(): Promise<void> {
    this.timer.arm(nextDeadline(this.repo.state, this.clockNow()));
    await this.apply({ type: "tick" });
  }

  /**
   * The store rolled back what the disk refused: the state is read again and the timer held (a tick could only fail
   * and log); once writes are taken again the timer restarts from the durable state. The bridge hears of it last.
   */
  private storeHealthChanged(health: StoreHealth): void {
    if (health.writable) {
      this.start().catch(this.onError);
    } else {
      this.repo.reload();
      this.timer.arm(null);
    }
    this.sink?.storeHealth(health);
  }

  private carryOut(effects: readonly Effect[], seqBefore: number): void {
    for (const effect of effects) {
      switch (effect.kind) {
        case "command":
          if (effect.command.prompt.reason !== "initial") faultPoint("resume-scheduled");
          this.sink?.dispatch(effect.command);
          break;
        case "cancel_command":
          this.sink?.cancel(effect.workerId, effect.commandId);
          break;
        case "timer":
          this.timer.arm(effect.at);
          break;
        case "event":
          if (effect.event.type === "worker.rollover_requested") faultPoint("rollover-requested");
          if (
            effect.event.type === "continuation.warning" ||
            effect.event.type === "continuation.paused_for_stall"
          ) {
            faultPoint("stall-applied");
          }
          break;
      }
    }
    const seq = this.repo.lastEventSeq;
    if (seq > seqBefore) {
      this.waiters.notify(seq);
      this.sink?.changed(seq);
    }
  }
}
