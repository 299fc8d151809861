// The continuation engine's one entry point: transition(state, input, clock) → { state, effects }. No I/O.
import { current, type Draft, isDraft, produce } from "immer";
import { Ctx, type Clock, type Rejection } from "./context.ts";
import type { Effect } from "./effects.ts";
import type { Input } from "./inputs.ts";
import type { DomainState } from "./model.ts";
import {
  ackCommand,
  changeBinding,
  commandResult,
  holdConversation,
  observeConversation,
} from "./observations.ts";
import {
  createRun,
  executorConnected,
  pauseAll,
  recordStoreLoss,
  resumeAll,
  setAutoResume,
  setRunDefaultPolicy,
  stopRun,
} from "./run-operations.ts";
import { nextDeadline, settleAll } from "./settle.ts";
import * as ops from "./worker-lifecycle.ts";
import { claimWorktree, releaseWorktree } from "./worktrees.ts";
import { adoptConversation } from "./adopt.ts";
import { requestRollover } from "./rollover.ts";

export interface TransitionResult {
  readonly state: DomainState;
  /** Events, commands and cancellations in the order they were decided; the timer to arm comes last. */
  readonly effects: readonly Effect[];
  readonly reply?: Readonly<Record<string, unknown>>;
  /** An expected refusal (unknown worker, terminal worker…): state and effects are unchanged. */
  readonly error?: Rejection;
}

type Handler = (ctx: Ctx, input: never) => Rejection | void;

const HANDLERS: {
  readonly [T in Input["type"]]: (ctx: Ctx, input: Extract<Input, { type: T }>) => Rejection | void;
} = {
  "run.create": createRun,
  "run.stop": stopRun,
  "run.pause_all": pauseAll,
  "run.resume_all": resumeAll,
  "run.set_default_policy": setRunDefaultPolicy,
  "worker.spawn": ops.spawnWorker,
  "worker.adopt": adoptConversation,
  "worker.claim_worktree": claimWorktree,
  "worker.release_worktree": releaseWorktree,
  "worker.progress": ops.reportProgress,
  "worker.rollover": requestRollover,
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
  "conversation.held": holdConversation,
  "command.acked": ackCommand,
  "command.result": commandResult,
  "executor.connected": executorConnected,
  "auto_resume.set": setAutoResume,
  tick: () => undefined,
  "store.loss_accepted": recordStoreLoss,
};

export function transition(state: DomainState, input: Input, clock: Clock): TransitionResult {
  let rejection: Rejection | undefined;
  let ctx: Ctx | undefined;
  let emitted: Effect[] = [];
  let reply: TransitionResult["reply"];
  const next = produce(state, (draft) => {
    ctx = new Ctx(draft, state, clock);
    const handler = HANDLERS[input.type] as Handler;
    rejection = handler(ctx, input as never) ?? undefined;
    if (rejection) return;
    settleAll(ctx);
    // Must happen inside the recipe: immer revokes every draft when it returns.
    emitted = ctx.effects.map(detach);
    reply = ctx.reply && detach(ctx.reply);
  });
  if (rejection || !ctx) return { state, effects: [], ...(rejection ? { error: rejection } : {}) };
  const effects: Effect[] = [...emitted, { kind: "timer", at: nextDeadline(next, clock.now) }];
  return { state: next, effects, ...(reply ? { reply } : {}) };
}

/**
 * Copies drafts out of an effect. Event data is built from the draft (an attempt snapshot shares the
 * attempt's `wakeReasons` array), and a draft left inside an effect is a revoked proxy once `produce`
 * returns: the store could not serialise the event and the shell could not read the command.
 */
function detach<T>(value: T): T {
  if (isDraft(value)) return current<T>(value as Draft<T>);
  if (Array.isArray(value)) return value.map(detach) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, detach(v)])) as T;
  }
  return value;
}
