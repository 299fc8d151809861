// Where the engine's effects go once they are durable: the executor bridge implements this and is attached once
// (Engine.attach). Until then commands simply stay pending in the store; the bridge offers them on each hello.
import type { ExecutorCommand } from "../core/effects.ts";
import type { LivenessEnv } from "../core/liveness.ts";
import type { StoreHealth } from "../store/store-types.ts";

export interface EffectSink {
  /** A command the core scheduled, its prompt rendered; the transaction that decided it is on disk. */
  dispatch(command: ExecutorCommand): void;
  /** Withdraw a command the worker no longer wants (it ended, paused, or Auto Resume went Off). */
  cancel(workerId: string, commandId: string): void;
  /** Events up to `lastSeq` are durable: open views refresh, and a tab slot may have freed. */
  changed(lastSeq: number): void;
  /** The store stopped taking writes (the engine already rolled its state back) or takes them again. */
  storeHealth(health: StoreHealth): void;
  /** The browser facts worker liveness needs (connected since when, commands queued for a tab slot). */
  livenessEnv(): LivenessEnv;
}
