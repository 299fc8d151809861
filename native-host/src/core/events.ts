// Durable event types (docs/continuation-core.md, plus lifecycle events); appended in the same transaction as the state they describe.
export const EVENT_TYPES = [
  "run.created",
  "run.completed",
  "run.failed",
  "run.stopped",
  "run.paused_all",
  "run.resumed_all",
  "worker.spawned",
  "worker.progress",
  "worker.completed",
  "worker.failed",
  "worker.stopped",
  "worker.awaiting_human",
  "worker.awaiting_dependency",
  "worker.resumed",
  "worker.rollover_requested",
  "worker.rolled_over",
  "worktree.claimed",
  "worktree.released",
  "message.sent",
  "message.read",
  "binding.changed",
  "execution.scheduled",
  "execution.submitted",
  "execution.generating",
  "execution.idle",
  "execution.resume_scheduled",
  "execution.resumed",
  "execution.deferred",
  "execution.paused",
  "execution.blocked",
  "execution.stalled",
  "execution.completed",
  "execution.failed",
  "execution.cancelled",
  "execution.error",
  "execution.retry_scheduled",
  "execution.rate_limited",
  "execution.rate_limit_cleared",
  "auto_resume.switched",
  "continuation.policy_changed",
  "continuation.warning",
  "continuation.paused_for_stall",
  "continuation.steering_deduplicated",
  "store.loss_accepted",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface DomainEvent {
  readonly type: EventType;
  readonly at: number;
  readonly runId: string;
  readonly workerId?: string;
  /** Small, transcript-free details: reasons, codes, ids, sequence numbers. */
  readonly data: Readonly<Record<string, unknown>>;
}
