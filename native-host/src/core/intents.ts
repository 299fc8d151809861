// Durable continuation intents (docs/continuation-core.md): every wake coalesces into the worker's one pending intent.
import { castDraft } from "immer";
import type { Ctx, DraftWorker } from "./context.ts";
import type { Intent } from "./model.ts";

export interface Wake {
  readonly reason: string;
  readonly explicit?: boolean;
  readonly manual?: boolean;
  readonly corrective?: boolean;
  readonly allowSteer?: boolean;
  readonly afterDeliveryTimeout?: boolean;
  readonly text?: string;
  readonly notBefore?: number;
}

/** Adds a wake to the worker's intent, creating it if needed. Never creates a second intent. */
export function addWake(ctx: Ctx, w: DraftWorker, wake: Wake): void {
  if (w.status !== "active") return;
  const notBefore = wake.notBefore ?? ctx.now;
  const existing = w.intent;
  if (!existing) {
    const intent: Intent = {
      createdAt: ctx.now,
      reasons: [wake.reason],
      notBefore,
      explicit: wake.explicit ?? false,
      manual: wake.manual ?? false,
      corrective: wake.corrective ?? false,
      allowSteer: wake.allowSteer ?? false,
      afterDeliveryTimeout: wake.afterDeliveryTimeout ?? false,
      texts: wake.text === undefined ? [] : [wake.text],
    };
    w.intent = castDraft(intent);
    return;
  }
  if (!existing.reasons.includes(wake.reason)) existing.reasons.push(wake.reason);
  // Only a later time that is still ahead changes anything: a notBefore already past means "now" either way, and
  // leaving it alone spares a coalesced wake (each lane's progress wakes /root) a rewrite of the worker's record.
  if (notBefore > Math.max(existing.notBefore, ctx.now)) existing.notBefore = notBefore;
  existing.explicit ||= wake.explicit ?? false;
  existing.manual ||= wake.manual ?? false;
  existing.corrective ||= wake.corrective ?? false;
  existing.allowSteer ||= wake.allowSteer ?? false;
  existing.afterDeliveryTimeout ||= wake.afterDeliveryTimeout ?? false;
  if (wake.text !== undefined) existing.texts.push(wake.text);
}

/** Removes one wake reason; drops the intent when nothing else wanted the turn. */
export function withdrawWake(w: DraftWorker, reason: string): void {
  const intent = w.intent;
  if (!intent) return;
  intent.reasons = intent.reasons.filter((r) => r !== reason);
  if (intent.reasons.length === 0) w.intent = undefined;
}

export function dropIntent(ctx: Ctx, w: DraftWorker, why: string): void {
  const intent = w.intent;
  if (!intent) return;
  w.intent = undefined;
  ctx.emit("execution.cancelled", w.runId, w.id, { why, wakeReasons: [...intent.reasons] });
}
