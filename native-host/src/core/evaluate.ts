// The delivery decision (docs/continuation-core.md), as a pure function of durable state: cancel, hold, wait, or deliver.
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import { RATE_LIMIT_CODES } from "../../../shared/error-codes.ts";
import { type Delivery, type Intent, type Run, submittedUnseen, type Worker } from "./model.ts";
import { sendableError } from "./page-errors.ts";

export const MESSAGE_DELIVERY_TIMEOUT = "MESSAGE_DELIVERY_TIMEOUT";

export type HoldReason =
  | "awaiting_human"
  | "awaiting_dependency"
  | "paused"
  | "manual_policy"
  | "stalled"
  | "in_flight"
  | "awaiting_observation"
  | "conversation_busy"
  | "conversation_unavailable"
  | "conversation_error";

export type WaitReason = "idle_grace" | "spacing_floor" | "retry_backoff" | "rate_limited";

export type Decision =
  | { readonly kind: "cancel"; readonly why: "run_ended" | "worker_ended" }
  | { readonly kind: "hold"; readonly why: HoldReason }
  | { readonly kind: "wait"; readonly until: number; readonly why: WaitReason }
  | { readonly kind: "deliver"; readonly delivery: Delivery };

/** Evaluates an intent rule by rule, in a fixed order; the first rule that applies decides. */
export function evaluateIntent(
  run: Run,
  w: Worker,
  intent: Intent,
  policy: ContinuationPolicy,
  now: number,
): Decision {
  if (run.status !== "active") return { kind: "cancel", why: "run_ended" };
  if (w.status !== "active") return { kind: "cancel", why: "worker_ended" };
  if (w.wait?.kind === "human") return { kind: "hold", why: "awaiting_human" };
  if (w.wait?.kind === "dependency") return { kind: "hold", why: "awaiting_dependency" };
  if (w.pause && w.pause.source !== "stall") return { kind: "hold", why: "paused" };
  if (policy.mode === "manual" && !intent.explicit) return { kind: "hold", why: "manual_policy" };
  if (w.pause) return { kind: "hold", why: "stalled" };

  // Rule 8: coalesce with a continuation that is already pending or just submitted.
  const current = w.current;
  if (current?.state === "scheduled") return { kind: "hold", why: "in_flight" };
  if (submittedUnseen(w)) return { kind: "hold", why: "awaiting_observation" };

  const delivery = chooseDelivery(w, intent);
  if (typeof delivery !== "string") return delivery;

  // A refused command is tried again after its backoff, at once if the conversation changed meanwhile; ChatGPT's rate
  // limit allows no prompt before its time. Continue now overrides either once.
  const retry = intent.retry;
  if (!intent.override && retry && now < retry.at && w.conversation.changes <= retry.changes) {
    return { kind: "wait", until: retry.at, why: "retry_backoff" };
  }
  const limit = w.rateLimit;
  if (!intent.override && limit && now < limit.until)
    return { kind: "wait", until: limit.until, why: "rate_limited" };

  // Rule 9: the anti-spam floor, bypassed by an idle conversation (policy), corrective steering and Continue now.
  // Continue now bypasses it only into an idle conversation: on a generating one it is a resume queued for
  // after the turn, so it must not carry a coalesced steerable wake into the turn inside the floor.
  const bypass =
    intent.corrective || (delivery !== "steer" && (intent.manual || policy.idleMayBypassMinSpacing));
  const floorAt =
    !bypass && w.lastSubmittedAt !== undefined ? w.lastSubmittedAt + policy.minContinuationSpacingMs : 0;
  const graceAt = delivery === "steer" ? 0 : intent.notBefore;
  if (now < floorAt && floorAt >= graceAt) return { kind: "wait", until: floorAt, why: "spacing_floor" };
  if (now < graceAt) return { kind: "wait", until: graceAt, why: "idle_grace" };
  return { kind: "deliver", delivery };
}

function chooseDelivery(w: Worker, intent: Intent): Delivery | Decision {
  const c = w.conversation;
  if (c.binding === "none") return "create";
  // Moving to a new conversation (docs/continuation-core.md, "Rollover"): the handoff request is an ordinary turn
  // (below); the move waits for a turn still running in the old one, then opens the new one whatever the old shows.
  if (w.rollover?.phase === "opening") {
    // A turn still running there (generating, or ours not seen to end: a tool card waiting for a person keeps it
    // open) is waited for. A tab that is gone cannot say whether its turn still runs: nothing more will be sent
    // there, so the move goes on (and the turn is recorded as left behind when the move is scheduled).
    const attempt = w.current;
    const ours = attempt?.state === "submitted" || attempt?.state === "generating";
    const busy = (c.state === "generating" || ours) && (c.binding === "bound" || c.binding === "detached");
    return busy ? { kind: "hold", why: "conversation_busy" } : "create";
  }
  // Detached: no tab shows the conversation now, and the browser reopens it for the command (docs/extension.md,
  // "Bindings"); its last observed state still says whether a turn may be sent.
  if ((c.binding !== "bound" && c.binding !== "detached") || c.state === "closed")
    return { kind: "hold", why: "conversation_unavailable" };
  switch (c.state) {
    case "idle":
    case "ready":
      return "send";
    case "generating":
      // Continue now means "after this turn": a steerable wake must not use it up inside the turn,
      // unless the correction itself is urgent. A brief request is never steered into a running turn.
      return intent.allowSteer && (!intent.manual || intent.corrective) && w.rollover === undefined
        ? "steer"
        : { kind: "hold", why: "conversation_busy" };
    case "error":
      // A delivery timeout is answered with a fresh turn; a rate-limit notice still on the page gets its one
      // prompt once the limit's time has come (the wait above holds it until then); a person's Continue now sends one
      // turn into any other product error that leaves the composer usable. Otherwise product errors are boundaries.
      if (intent.afterDeliveryTimeout && c.errorCode === MESSAGE_DELIVERY_TIMEOUT) return "send";
      if (RATE_LIMIT_CODES.has(c.errorCode ?? "") && w.rateLimit !== undefined) return "send";
      if (intent.override && sendableError(c.errorCode)) return "send";
      return { kind: "hold", why: "conversation_error" };
    case "unknown":
      return { kind: "hold", why: "conversation_unavailable" };
  }
}
