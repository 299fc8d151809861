// The owner process's domain side: store, repository, scheduler and event waiters behind the operations context.
import { randomUUID } from "node:crypto";
import type { ExecutorCommand } from "../core/effects.ts";
import type { Input } from "../core/inputs.ts";
import { CONNECTED_ENV, type LivenessEnv } from "../core/liveness.ts";
import type { Attempt, DomainState, Message } from "../core/model.ts";
import type { TransitionResult } from "../core/transition.ts";
import type { Cancellation, EventFilter, OperationsContext } from "../operations/context.ts";
import { type CommandSink, Scheduler } from "../scheduler/scheduler.ts";
import { DomainRepository, type StoredEvent } from "../store/domain-repository.ts";
import { DurableStore } from "../store/durable-store.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import type { StoreHealth, StoreLogger, StoreOptions } from "../store/store-types.ts";
import { EventWaiters } from "./event-waiters.ts";

export interface BackendOptions {
  readonly dir: string;
  readonly log: StoreLogger;
  readonly now?: () => number;
  readonly random?: () => number;
  readonly store?: Partial<
    Pick<StoreOptions, "snapshotAfterBytes" | "faultHook" | "ioRetryMs" | "acceptLoss">
  >;
  /** Called after new events are durable (ui.changed pushes). */
  readonly onEvents?: (lastSeq: number) => void;
  readonly onError?: (error: unknown) => void;
  /** Called after the store stopped taking writes (its state already rolled back) or takes them again. */
  readonly onStoreHealth?: (health: StoreHealth) => void;
}

/** Forwards to whichever executor bridge is attached; with none, commands simply stay pending in the store. */
class SwitchableSink implements CommandSink {
  target: CommandSink | undefined;
  dispatch(command: ExecutorCommand): void {
    this.target?.dispatch(command);
  }
  cancel(workerId: string, commandId: string): void {
    this.target?.cancel(workerId, commandId);
  }
}

/** Where the scheduler's failures go: the caller's handler, else a warning in the log. */
function schedulerErrors(options: BackendOptions): (error: unknown) => void {
  return options.onError ?? ((e) => options.log.warn(`scheduler: ${String(e)}`));
}

/** A finished run's events stay live this long, so agents waiting on them still read them. */
export const ARCHIVE_AFTER_MS = 60 * 60_000;
const MAINTENANCE_EVERY_MS = 10 * 60_000;

export class Backend implements OperationsContext {
  private maintenance: NodeJS.Timeout | undefined;
  private readonly log: StoreLogger;
  private readonly waiters: EventWaiters;
  private readonly sink = new SwitchableSink();
  private readonly scheduler: Scheduler;
  private readonly clockNow: () => number;

  private constructor(
    readonly store: DurableStore,
    private readonly repo: DomainRepository,
    options: BackendOptions,
  ) {
    this.clockNow = options.now ?? Date.now;
    this.log = options.log;
    this.waiters = new EventWaiters(() => repo.lastEventSeq);
    this.scheduler = new Scheduler(repo, {
      now: this.clockNow,
      random: options.random ?? Math.random,
      sink: this.sink,
      onEvents: (seq) => {
        this.waiters.notify(seq);
        options.onEvents?.(seq);
      },
      onError: schedulerErrors(options),
    });
  }

  static async open(options: BackendOptions): Promise<Backend> {
    const store = await DurableStore.open({
      dir: options.dir,
      migrations: MIGRATIONS,
      log: options.log,
      ...options.store,
    });
    const repo = DomainRepository.open(store);
    const backend = new Backend(store, repo, options);
    store.onHealth((health) => {
      if (health.writable) {
        backend.scheduler.start().catch(schedulerErrors(options));
      } else {
        // The store rolled back what the disk refused: forget it here too, and wait for writes to come back.
        repo.reload();
        backend.scheduler.hold();
      }
      options.onStoreHealth?.(health);
    });
    await backend.scheduler.start();
    const loss = store.acceptedLoss;
    if (loss) {
      await backend.apply({
        type: "store.loss_accepted",
        acknowledgedSeq: loss.acknowledgedSeq,
        keptSeq: loss.keptSeq,
        detail: loss.message,
      });
    }
    await backend.maintain();
    backend.maintenance = setInterval(() => {
      backend.maintain().catch((e: unknown) => options.log.warn(`maintenance failed: ${String(e)}`));
    }, MAINTENANCE_EVERY_MS);
    backend.maintenance.unref();
    return backend;
  }

  /** Archives runs that ended more than ARCHIVE_AFTER_MS ago (keeps the live database bounded). */
  async maintain(): Promise<number> {
    const moved = await this.repo.archiveEndedRuns(this.clockNow(), ARCHIVE_AFTER_MS);
    if (moved > 0) this.log.info(`archived ${moved} events of finished runs`);
    return moved;
  }

  /** Attaches the executor bridge; commands already pending are offered by the bridge on each hello. */
  attachSink(sink: CommandSink | undefined): void {
    this.sink.target = sink;
  }

  get state(): DomainState {
    return this.repo.state;
  }

  apply(input: Input): Promise<TransitionResult> {
    return this.scheduler.apply(input);
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

  storeHealth(): StoreHealth {
    return this.store.health();
  }

  /** From the executor bridge; without one attached (tests, tools) a browser is taken as connected. */
  livenessEnv(): LivenessEnv {
    return this.sink.target?.livenessEnv?.() ?? CONNECTED_ENV;
  }

  durable(): Promise<void> {
    return this.store.sync();
  }

  inbox(workerId: string, afterSeq: number): Message[] {
    return this.repo.inbox(workerId, afterSeq);
  }

  get nextWakeAt(): number | null {
    return this.scheduler.nextWakeAt;
  }

  async close(): Promise<void> {
    if (this.maintenance) clearInterval(this.maintenance);
    this.scheduler.stop();
    await this.store.close();
  }
}
