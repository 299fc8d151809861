// The durable domain records of the continuation core (docs/continuation-core.md): plain JSON data, no behaviour.
import type { ContinuationStatus } from "../../../shared/continuation-block.ts";
import type { TrackedBindingState, TrackedConversationState } from "../../../shared/executor-states.ts";
import type { ContinuationPolicy, PolicyPatch } from "../../../shared/continuation-policy.ts";

export type LifecycleStatus = "active" | "completed" | "failed" | "cancelled";

export interface Run {
  readonly id: string;
  readonly name: string;
  readonly objective: string;
  readonly status: LifecycleStatus;
  readonly createdAt: number;
  readonly endedAt?: number;
  /** Inherited by every worker of the run unless the worker overrides a field. */
  readonly defaultPolicy: ContinuationPolicy;
}

/** What a worker is doing, derived from its record by `dispositionOf`, never stored separately in the core. */
export type Disposition =
  | "running"
  | "awaiting_execution"
  | "awaiting_dependency"
  | "awaiting_human"
  | "paused"
  | "completed"
  | "failed"
  | "cancelled";

export type ConversationState = TrackedConversationState;
export type BindingState = TrackedBindingState;

export interface Conversation {
  readonly state: ConversationState;
  readonly binding: BindingState;
  /** Counts real changes of state or binding; a hold "until something changes" waits for it to grow. */
  readonly changes: number;
  /** Highest per-worker observation sequence applied; older reports are stale and ignored. */
  readonly observedSeq: number;
  readonly since: number;
  readonly errorCode?: string;
  readonly url?: string;
  /** Last `status:` the agent's continuation-state block reported; shown to people, decides nothing here. */
  readonly reportedStatus?: ContinuationStatus;
  /** The conversation's visible text length the page last measured at a turn's end (a size budget reads it). */
  readonly visibleChars?: number;
  /**
   * The executor (one browser profile's extension) holding this conversation: the one that reported it bound or
   * detached, reported its state, adopted it, or was routed its first turn. The bridge sends the worker's commands
   * there and counts its tab slots by it; kept when the binding ends, as a browser that reopens the tab is that one.
   */
  readonly executorId?: string;
}

export interface HumanWait {
  readonly kind: "human";
  readonly reason: string;
  readonly question: string;
  readonly requestedAt: number;
  readonly choices?: readonly string[];
  readonly context?: string;
}

export interface DependencyWait {
  readonly kind: "dependency";
  readonly condition: string;
  /** Released automatically once every listed worker has ended; empty means only an explicit release. */
  readonly onWorkerIds: readonly string[];
  readonly requestedAt: number;
}

export type Wait = HumanWait | DependencyWait;

/** `cap`: a per-worker cap (automatic turns, wall time) was reached. */
export type PauseSource = "operator" | "run" | "stall" | "error" | "cap";

export interface Pause {
  readonly source: PauseSource;
  readonly reason: string;
  readonly at: number;
  readonly errorCode?: string;
}

/** `handoff`: the turn asking for a handoff brief; `rollover`: the first prompt of the conversation a worker moved to. */
export type AttemptReason =
  "initial" | "auto_resume" | "manual_resume" | "followup" | "recovery" | "handoff" | "rollover";
export type AttemptState =
  "scheduled" | "submitted" | "generating" | "idle" | "completed" | "blocked" | "failed" | "cancelled";

/** How the executor delivers the turn: open a new chat, send when idle, or steer a generating turn. */
export type Delivery = "create" | "send" | "steer";

export type PromptKind =
  "bootstrap" | "resume" | "keepalive" | "followup" | "corrective" | "continue" | "handoff" | "rollover";

/**
 * A durable wish to give the worker another turn. Wake reasons coalesce into one intent,
 * so however many wakes arrive, at most one continuation is delivered for them.
 */
export interface Intent {
  readonly createdAt: number;
  /** Provenance of every coalesced wake, e.g. `idle`, `active_keepalive`, `event:message.sent`. */
  readonly reasons: readonly string[];
  /** Earliest delivery the wake itself allows (idle grace); the spacing floor is applied on top. */
  readonly notBefore: number;
  /** Created by an operator or /root action: delivered even when the policy mode is manual. */
  readonly explicit: boolean;
  /** Continue now: recorded as a manual resume. */
  readonly manual: boolean;
  /** Material corrective steering: bypasses the spacing floor. */
  readonly corrective: boolean;
  /** May be delivered into a generating turn (keepalive, event wakes, corrective steering). */
  readonly allowSteer: boolean;
  /** Answer to a ChatGPT "Message delivery timed out": a fresh `continue` turn, never the page's Retry. */
  readonly afterDeliveryTimeout: boolean;
  /**
   * The browser proved a command for this intent was not delivered: retried with bounded backoff (docs/continuation-core.md,
   * "Refused commands"), earlier if the conversation changes or a browser connects.
   */
  readonly retry?: RetryState;
  /** Continue now: overrides a retry backoff, a rate-limit wait and a page error once; not kept when restored. */
  readonly override?: boolean;
  /** Follow-up, human answer or corrective texts to deliver with the turn. */
  readonly texts: readonly string[];
  /** Latest time a spacing-floor deferral was announced, so the event is not repeated. */
  readonly deferredUntil?: number;
}

export interface RetryState {
  /** The refusal's code, e.g. DEADLINE_EXCEEDED. */
  readonly code: string;
  /** Refusals in a row for this intent; picks the backoff step. */
  readonly count: number;
  /** When it is tried again. */
  readonly at: number;
  /** The conversation's `changes` counter at the refusal: a change ends the backoff early. */
  readonly changes: number;
  readonly since: number;
}

/** ChatGPT said too many requests or a usage cap: no prompt before `until` (one per step when no reset time shows). */
export interface RateLimit {
  readonly code: string;
  readonly since: number;
  readonly until: number;
  /** Steps taken without a reset time (2, 5, 15, 30 min, then every 30 min). */
  readonly step: number;
  /** The reset time the page showed, when it showed one. */
  readonly resetAt?: number;
}

export interface Attempt {
  readonly id: string;
  readonly runId: string;
  readonly workerId: string;
  readonly seq: number;
  readonly reason: AttemptReason;
  readonly resumeOf?: string;
  readonly state: AttemptState;
  readonly delivery: Delivery;
  readonly promptKind: PromptKind;
  /** Versioned prompt template, e.g. `resume@1`. */
  readonly promptId: string;
  readonly wakeReasons: readonly string[];
  readonly commandId: string;
  readonly idempotencyKey: string;
  readonly deadlineAt: number;
  readonly scheduledAt: number;
  readonly ackedAt?: number;
  readonly submittedAt?: number;
  readonly generatingAt?: number;
  readonly idleAt?: number;
  readonly terminalAt?: number;
  /** The conversation's `changes` counter when the submission was confirmed. */
  readonly submittedAtChange?: number;
  /** The last observation sequence applied when the submission was confirmed. */
  readonly submittedAtSeq?: number;
  readonly progressSeen: boolean;
  readonly outcome?: string;
  readonly errorCode?: string;
  readonly errorDetail?: string;
  /** The intent this attempt delivers, restored if the executor proves it was not delivered. */
  readonly intent?: Intent;
  /** The executor (one browser profile's extension) that acknowledged, submitted or ran this attempt. */
  readonly executorId?: string;
}

/**
 * A named work location (a git worktree path or branch) a worker owns. Kept after it ends, so
 * provenance can still say who owned it; at most one unreleased claim per location per run.
 */
export interface WorktreeClaim {
  readonly location: string;
  readonly claimedAt: number;
  readonly releasedAt?: number;
  /** `released` (explicit), or how the worker ended: `completed`, `failed`, `cancelled`. */
  readonly releaseReason?: string;
}

export interface StallState {
  readonly noProgressAttempts: number;
  readonly lastProgressAt?: number;
  readonly progressCursor: number;
  /** Start of the no-progress clock: creation, last progress, or the last release from a hold. */
  readonly baselineAt: number;
  /** Whether the no-progress clock is counting (auto mode and runnable); a change restarts it. */
  readonly clockRunning: boolean;
  readonly warned: boolean;
}

export interface Worker {
  readonly id: string;
  readonly runId: string;
  readonly path: string;
  readonly name: string;
  readonly parentId?: string;
  readonly objective: string;
  readonly acceptance: readonly string[];
  /** The chatgpt.com GPT or project page its conversation is started in; absent: a plain new chat. */
  readonly startUrl?: string;
  readonly createdAt: number;
  readonly status: LifecycleStatus;
  readonly endedAt?: number;
  readonly summary?: string;
  readonly wait?: Wait;
  readonly pause?: Pause;
  readonly policyOverride: PolicyPatch;
  readonly conversation: Conversation;
  readonly attemptCount: number;
  readonly autoResumes: number;
  readonly current?: Attempt;
  /**
   * The running turn a pending steer (`current`) is aimed at. It stays the turn of record until the steer is
   * submitted (then it is superseded) or refused (then it is `current` again): the page may offer no safe way
   * to steer, and a turn must not be recorded as ended while it still runs.
   */
  readonly steeredTurn?: Attempt;
  readonly intent?: Intent;
  readonly lastSubmittedAt?: number;
  readonly keepaliveAt?: number;
  readonly stall: StallState;
  readonly lastCorrectiveKey?: string;
  /** Sequence of the last message put in this worker's inbox, and of the last one it has read. */
  readonly inboxSeq: number;
  readonly inboxReadSeq: number;
  /** Work locations claimed by this worker; absent on workers stored before ownership existed. */
  readonly worktrees?: readonly WorktreeClaim[];
  /** Set when an existing conversation was adopted (zero-setup mode) rather than a new chat opened. */
  readonly adoptedAt?: number;
  /** What the continuation-state blocks said so far: only a hash and a counter, never text (docs/privacy.md). */
  readonly outputBlock?: OutputBlockState;
  /** Set while ChatGPT rate-limits this conversation: no prompt before its time. */
  readonly rateLimit?: RateLimit;
  /** Turns confirmed submitted (what the UI numbers); refused steers and undelivered commands do not count. */
  readonly turns?: number;
  /** Where the per-worker caps count from: spawn, or the last Continue anyway on a cap. */
  readonly capBase?: { readonly autoResumes: number; readonly at: number };
  /** A move to a new conversation under way (docs/continuation-core.md, "Rollover"); absent otherwise. */
  readonly rollover?: Rollover;
  /** The conversations this worker left, oldest first: its provenance chain (the current one is `conversation`). */
  readonly pastConversations?: readonly PastConversation[];
  /** `turns` when the current conversation began: turns in it = turns − this (a size budget counts them). */
  readonly conversationTurnBase?: number;
  /** The newest progress summaries (at most 3, each cut): what a composed handoff brief says was done. */
  readonly recentProgress?: readonly { readonly at: number; readonly summary: string }[];
}

/** What starts a rollover: the page's length-limit notice, the size budget, the operator, the agent itself. */
export type RolloverTrigger = "length_limit" | "size_budget" | "operator" | "agent";

/** Where a handoff brief came from: the agent's tool call, its answer on the page, or composed by the host. */
export type BriefSource = "agent" | "page" | "composed";

export interface Rollover {
  readonly trigger: RolloverTrigger;
  /** The reason the agent or operator gave, or the budget that was reached (no transcript text). */
  readonly note?: string;
  readonly requestedAt: number;
  /** `brief_requested`: a handoff turn asks the worker for its brief; `opening`: the new conversation is being opened. */
  readonly phase: "brief_requested" | "opening";
  /** Until when the worker may answer the brief request before the host composes the brief (`brief_requested`). */
  readonly briefDeadlineAt?: number;
  /** The attempt (its seq) that asked for the brief: its turn's end decides the brief. */
  readonly briefAttemptSeq?: number;
  /** Known once the brief is decided (`opening`); the text itself lives only in memory (DomainState.briefs). */
  readonly briefSource?: BriefSource;
  readonly briefChars?: number;
  /** The conversation being left, as it was when the rollover began (the page may report a new chat's URL later). */
  readonly fromUrl?: string;
  /** The GPT or project page the new conversation opens on (the worker's start page, or the one its URL was in). */
  readonly startUrl?: string;
}

export interface PastConversation {
  readonly url?: string;
  /** When the worker moved on from it, and why. */
  readonly leftAt: number;
  readonly trigger: RolloverTrigger;
  readonly note?: string;
  /** Turns submitted into it. */
  readonly turns: number;
  /** Its visible text length when last measured (a size, never text). */
  readonly visibleChars?: number;
  readonly briefSource: BriefSource;
  readonly briefChars: number;
}

export interface OutputBlockState {
  /** Hash of the last valid block's `current:`/`next:`; a different one counts as progress. */
  readonly progressHash?: string;
  /** Consecutive turns that ended without a valid block. */
  readonly invalidStreak: number;
}

export interface Message {
  readonly id: string;
  readonly runId: string;
  readonly from: string;
  readonly to: string;
  readonly seq: number;
  readonly body: string;
  readonly sentAt: number;
}

/** Everything the core decides from. Unread messages live here; read ones only in the store. */
export interface DomainState {
  readonly runs: Readonly<Record<string, Run>>;
  readonly workers: Readonly<Record<string, Worker>>;
  readonly unread: Readonly<Record<string, Message>>;
  /** The popup's global Auto Resume switch is Off: no automatic continuation for any worker (explicit turns still go). */
  readonly autoResumeOff?: boolean;
  /**
   * Handoff briefs (agent or page text) waiting for their rollover's first prompt, by worker id. In memory only: the
   * store never writes this field (docs/privacy.md); after a restart the host composes the brief instead.
   */
  readonly briefs?: Readonly<Record<string, string>>;
}

export const EMPTY_STATE: DomainState = { runs: {}, workers: {}, unread: {} };

export function isTerminal(status: LifecycleStatus): boolean {
  return status !== "active";
}

/** A submission is in flight from scheduling until its result is known. */
export function isInFlight(attempt: Attempt | undefined): boolean {
  return attempt?.state === "scheduled";
}

/** Our submission was confirmed but the page has reported nothing since: its turn is starting, not yet seen. */
export function submittedUnseen(w: Worker): boolean {
  const attempt = w.current;
  return attempt?.state === "submitted" && w.conversation.changes <= (attempt.submittedAtChange ?? 0);
}
