// The continuation engine's one entry point: transition(state, input, clock) → { state, effects }. No I/O.
import { produce } from "immer";
import { Ctx, type Clock, type Rejection } from "./context.ts";
import type { Effect } from "./effects.ts";
import type { Input } from "./inputs.ts";
import type { DomainState } from "./model.ts";
import { ackCommand, changeBinding, commandResult, observeConversation } from "./observations.ts";
import { createRun, pauseAll, resumeAll, setRunDefaultPolicy, stopRun } from "./run-operations.ts";
import { nextDeadline, settleAll } from "./settle.ts";
import * as ops from "./worker-lifecycle.ts";


export interface TransitionResult {
  readonly state: DomainState;
  /** Events first (in order), then commands, cancellations and the timer to arm. */
  readonly effects: readonly Effect[];
  readonly reply?: Readonly<Record<string, unknown>>;
  /** An expected refusal (unknown worker, terminal worker…): state and effects are unchanged. */
  readonly error?: Rejection;
}

type Handler = (ctx: Ctx, input: never) => Rejection | void;

const HANDLERS: { readonly [T in Input["type"]]: (ctx: Ctx, input: Extract<Input, { type: T }>) => Rejection | void } = {
  "run.create": createRun,
  "run.stop": stopRun,
  "run.pause_all": pauseAll,
  "run.resume_all": resumeAll,
  "run.set_default_policy": setRunDefaultPolicy,
  "worker.spawn": ops.spawnWorker,
  "worker.progress": ops.reportProgress,
  "worker.complete": ops.complete,
  "worker.fail": ops.fail,
  "worker.await_human": ops.awaitHuman,
  "worker.await_dependency": ops.awaitDependency,
  "human.resolve": ops.resolveHuman,
  "worker.pause": ops.pause,
  "worker.resume": ops.resume,
  "worker.continue_now": ops.continueNow,
  "worker.stop": ops.stop,
  "worker.followup": ops.followup,
  "worker.steer": ops.steer,
  "worker.set_policy": ops.setWorkerPolicy,
  "message.send": ops.sendMessage,
  "message.read": ops.readMessages,
  "conversation.observed": observeConversation,
  "binding.changed": changeBinding,
  "command.acked": ackCommand,
  "command.result": commandResult,
  tick: () => undefined,
};

export function transition(state: DomainState, input: Input, clock: Clock): TransitionResult {
  let rejection: Rejection | undefined;
  let ctx: Ctx | undefined;
  const next = produce(state, (draft) => {
    ctx = new Ctx(draft, clock);
    const handler = HANDLERS[input.type] as Handler;
    rejection = handler(ctx, input as never) ?? undefined;
    if (!rejection) settleAll(ctx);
  });
  if (rejection || !ctx) return { state, effects: [], ...(rejection ? { error: rejection } : {}) };
  const effects: Effect[] = [...ctx.effects, { kind: "timer", at: nextDeadline(next, clock.now) }];
  return { state: next, effects, ...(ctx.reply ? { reply: ctx.reply } : {}) };
}
