// Conversation rollover (docs/continuation-core.md, "Rollover"): a worker moves to a new conversation and keeps its
// id, run, path, inbox and history. The triggers, the brief (asked for once, else composed from the durable record)
// and the move itself, which is an ordinary `create` attempt with the same proof-of-submission rules as any turn.
import { castDraft } from "immer";
import { startUrlOfConversation } from "../../../shared/chatgpt-start-url.ts";
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import type { Ctx, DraftWorker, Rejection } from "./context.ts";
import { reject } from "./context.ts";
import type { Input } from "./inputs.ts";
import { conversationId } from "./adopt.ts";
import { addWake } from "./intents.ts";
import type { BriefSource, DomainState, Rollover, RolloverTrigger, Worker } from "./model.ts";
import { governingPolicy, policyOf } from "./policy.ts";

/** The wake reason a rollover puts on the worker's intent. */
export const ROLLOVER_WAKE = "rollover";

/** The page's length-limit notice, as the adapter reports it. */
export const CONVERSATION_TOO_LONG = "CONVERSATION_TOO_LONG";

/** An agent's or operator's reason is a label for the timeline, not text to keep. */
const MAX_NOTE_CHARS = 200;

interface Begin {
  readonly trigger: RolloverTrigger;
  readonly brief?: string;
  readonly note?: string;
  /** The conversation is known not to take another message: compose the brief without asking. */
  readonly cannotAnswer?: boolean;
}

/** Whether the conversation can still answer a request for a brief: shown somewhere, not at an error. */
function canAnswer(w: Worker): boolean {
  const c = w.conversation;
  const reachable = c.binding === "bound" || c.binding === "detached";
  return reachable && (c.state === "idle" || c.state === "ready" || c.state === "generating");
}

/**
 * Starts a rollover (none may be under way): with a brief, or where the conversation cannot answer, straight to opening
 * the new conversation; otherwise a handoff turn asks for the brief first. The wake is explicit for the operator and the
 * agent (it goes even in manual mode) and a manual one for the operator (it passes the anti-spam floor like Continue now).
 */
function begin(ctx: Ctx, w: DraftWorker, how: Begin): void {
  const policy = policyOf(ctx, w);
  const fromUrl = w.conversation.url;
  const startUrl = w.startUrl ?? startUrlOfConversation(fromUrl);
  const note = how.note?.trim().slice(0, MAX_NOTE_CHARS);
  const base = {
    trigger: how.trigger,
    requestedAt: ctx.now,
    ...(note ? { note } : {}),
    ...(fromUrl !== undefined ? { fromUrl } : {}),
    ...(startUrl !== undefined ? { startUrl } : {}),
  };
  let rollover: Rollover;
  if (how.brief !== undefined) {
    keepBrief(ctx, w.id, how.brief);
    rollover = { ...base, phase: "opening", briefSource: "agent" };
  } else if (!how.cannotAnswer && canAnswer(w)) {
    rollover = {
      ...base,
      phase: "brief_requested",
      briefDeadlineAt: ctx.now + policy.rolloverBriefTimeoutMs,
    };
  } else {
    rollover = { ...base, phase: "opening", briefSource: "composed" };
  }
  w.rollover = castDraft(rollover);
  ctx.emit("worker.rollover_requested", w.runId, w.id, {
    trigger: how.trigger,
    phase: rollover.phase,
    ...(note ? { note } : {}),
    ...(how.brief !== undefined ? { briefChars: how.brief.length } : {}),
  });
  wakeFor(ctx, w, how.trigger);
}

/** The rollover's wake: explicit when a person or the agent asked (it goes in manual mode), manual for a person. */
function wakeFor(ctx: Ctx, w: DraftWorker, trigger: RolloverTrigger): void {
  const person = trigger === "operator";
  addWake(ctx, w, { reason: ROLLOVER_WAKE, explicit: person || trigger === "agent", manual: person });
}

function keepBrief(ctx: Ctx, workerId: string, brief: string): void {
  ctx.state.briefs = { ...(ctx.state.briefs ?? {}), [workerId]: brief };
}

function dropBrief(ctx: Ctx, workerId: string): void {
  const briefs = ctx.state.briefs;
  if (briefs?.[workerId] === undefined) return;
  const { [workerId]: _dropped, ...rest } = briefs;
  ctx.state.briefs = rest;
}

/** The brief is decided: the worker's own (agent or page) when given, else the host composes it at rendering. */
function open(ctx: Ctx, w: DraftWorker, brief: string | undefined, source: BriefSource): void {
  const r = w.rollover;
  if (!r || r.phase === "opening") return;
  if (brief !== undefined) keepBrief(ctx, w.id, brief);
  w.rollover = castDraft({
    ...without(r, "briefDeadlineAt"),
    phase: "opening" as const,
    briefSource: brief !== undefined ? source : "composed",
  });
  // The handoff turn used the first wake up: the move itself needs one of its own.
  wakeFor(ctx, w, r.trigger);
  // A brief came before the request for it went out (the agent's own call): the request is withdrawn if the browser
  // has not started it; its refusal (CANCELLED) then lets the move go on.
  const pending = w.current;
  if (brief !== undefined && pending?.state === "scheduled" && pending.reason === "handoff")
    ctx.effects.push({ kind: "cancel_command", workerId: w.id, commandId: pending.commandId });
}

function without<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const { [key]: _dropped, ...rest } = value;
  return rest;
}

/** `worker_rollover` (the agent, with its brief) and "Continue in a new conversation" (the operator). */
export function requestRollover(
  ctx: Ctx,
  input: Extract<Input, { type: "worker.rollover" }>,
): Rejection | void {
  const w = ctx.worker(input.workerId);
  if (!w) return reject("NOT_FOUND", `no worker ${input.workerId}`);
  if (w.status !== "active") return reject("WORKER_TERMINAL", `worker ${w.path} is ${w.status}`);
  if (ctx.run(w.runId)?.status !== "active") return reject("RUN_TERMINAL", `the run of ${w.path} has ended`);
  const brief = input.brief?.trim();
  if (input.brief !== undefined && !brief) return reject("INVALID_INPUT", "the brief is empty");
  const r = w.rollover;
  if (!r) {
    begin(ctx, w, {
      trigger: input.trigger,
      ...(brief ? { brief } : {}),
      ...(input.reason ? { note: input.reason } : {}),
    });
    ctx.reply = { rollover: "started" };
    return;
  }
  // One under way: the agent's brief answers a pending request, or replaces one not yet sent.
  const scheduled = w.current?.state === "scheduled" && w.current.reason === "rollover";
  if (brief && !scheduled) {
    if (r.phase === "brief_requested") open(ctx, w, brief, "agent");
    else {
      keepBrief(ctx, w.id, brief);
      w.rollover = castDraft({ ...r, briefSource: "agent" as const });
    }
    ctx.reply = { rollover: "brief_received" };
    return;
  }
  // Asked again (after an uncertain create, say): the request stands, and a person's ask is a turn of its own.
  if (input.trigger === "operator") wakeFor(ctx, w, "operator");
  ctx.reply = { rollover: "already_under_way" };
}

/**
 * The conversation being left is known by its URL only once the page shows it (a first turn's new chat shows
 * `/c/<id>` a moment after its prompt): until the move's create is scheduled, the newest conversation URL the old tab
 * reported is the one recorded, and its GPT or project page is where the new one opens.
 */
export function trackLeftConversation(w: DraftWorker): void {
  const r = w.rollover;
  const url = w.conversation.url;
  if (!r || url === undefined || url === r.fromUrl || conversationId(url) === undefined) return;
  if (movingNow(w)) return;
  r.fromUrl = url;
  const startUrl = w.startUrl ?? startUrlOfConversation(url);
  if (startUrl !== undefined) r.startUrl = startUrl;
  else delete r.startUrl;
}

/** The page says the conversation is too long: an Auto Resume worker whose policy allows it moves on by itself. */
export function onLengthLimit(ctx: Ctx, w: DraftWorker): void {
  if (w.status !== "active") return;
  const r = w.rollover;
  if (r) {
    // The conversation cannot write its brief any more.
    if (r.phase === "brief_requested") open(ctx, w, undefined, "composed");
    return;
  }
  const policy = governing(ctx, w);
  if (!policy || policy.mode !== "auto" || !policy.rolloverOnLimit) return;
  begin(ctx, w, { trigger: "length_limit", cannotAnswer: true });
}

function governing(ctx: Ctx, w: DraftWorker): ContinuationPolicy | undefined {
  const run = ctx.run(w.runId);
  return run ? governingPolicy(ctx.state, run, w) : undefined;
}

/**
 * A turn ended. The handoff turn's end decides the brief (the page's block, else composed); any other turn of an Auto
 * Resume worker checks the size budget.
 */
export function onTurnEnded(ctx: Ctx, w: DraftWorker, handoffBrief: string | undefined): void {
  if (w.status !== "active") return;
  const r = w.rollover;
  if (r) {
    if (r.phase === "brief_requested" && r.briefAttemptSeq !== undefined && handoffAttemptEnded(w, r))
      open(ctx, w, handoffBrief, "page");
    return;
  }
  const policy = governing(ctx, w);
  if (!policy || policy.mode !== "auto" || w.wait || w.pause) return;
  const turns = (w.turns ?? 0) - (w.conversationTurnBase ?? 0);
  const chars = w.conversation.visibleChars;
  if (policy.rolloverAfterTurns !== null && turns >= policy.rolloverAfterTurns) {
    begin(ctx, w, { trigger: "size_budget", note: `${turns} turns in this conversation` });
  } else if (policy.rolloverAtChars !== null && chars !== undefined && chars >= policy.rolloverAtChars) {
    begin(ctx, w, { trigger: "size_budget", note: `${chars} characters in this conversation` });
  }
}

/** The handoff turn was submitted and has ended (a refused one is asked again, so it does not count). */
function handoffAttemptEnded(w: Worker, r: Rollover): boolean {
  const a = w.current;
  return a !== undefined && a.seq === r.briefAttemptSeq && a.submittedAt !== undefined && !isLive(a.state);
}

/**
 * Before each decision: a brief request the conversation can no longer answer (it shows an error, its tab is gone), or
 * one not answered in time, gives way to a composed brief. Never while the handoff turn may still be writing it.
 */
export function settleRollover(ctx: Ctx, w: DraftWorker): void {
  const r = w.rollover;
  if (!r) return;
  if (w.status !== "active") {
    // The move's create may already be in the new conversation: an agent there can complete the worker before the
    // browser's result arrives. That result still records the move (finishRollover); a create that fails ends it.
    if (movingNow(w)) return;
    w.rollover = undefined;
    dropBrief(ctx, w.id);
    return;
  }
  if (r.phase !== "brief_requested") return;
  const live = w.current !== undefined && w.current.seq === r.briefAttemptSeq && isLive(w.current.state);
  const late = r.briefDeadlineAt !== undefined && ctx.now >= r.briefDeadlineAt;
  if (late || (!live && !canAnswer(w) && w.conversation.state !== "unknown"))
    open(ctx, w, undefined, "composed");
}

/** The move's create is scheduled or under way (its result decides whether the worker moved). */
function movingNow(w: Worker): boolean {
  return w.current?.reason === "rollover" && isLive(w.current.state);
}

function isLive(state: string): boolean {
  return state === "scheduled" || state === "submitted" || state === "generating";
}

/** The brief request's deadline, when one is armed (the scheduler's timer includes it). */
export function rolloverDeadline(w: Worker): number {
  const r = w.rollover;
  return r?.phase === "brief_requested" && r.briefDeadlineAt !== undefined ? r.briefDeadlineAt : Infinity;
}

/** A handoff or rollover attempt was scheduled: the record notes which turn asks, or which brief the prompt carries. */
export function noteScheduled(ctx: Ctx, w: DraftWorker, reason: string, seq: number): void {
  const r = w.rollover;
  if (!r) return;
  if (reason === "handoff") w.rollover = castDraft({ ...r, briefAttemptSeq: seq });
  if (reason === "rollover") {
    const own = ctx.state.briefs?.[w.id];
    const source: BriefSource =
      own !== undefined ? (r.briefSource === "page" ? "page" : "agent") : "composed";
    w.rollover = castDraft({ ...r, briefSource: source, briefChars: rolloverBrief(ctx.state, w).length });
  }
}

/**
 * The new conversation took its first prompt: the worker is rebound to it, the old one is recorded in the chain and
 * left to the person (the browser's binding already moved with the create).
 */
export function finishRollover(ctx: Ctx, w: DraftWorker, url: string | undefined): void {
  const r = w.rollover;
  if (!r) return;
  const c = w.conversation;
  const turnsThere = Math.max(0, (w.turns ?? 1) - 1 - (w.conversationTurnBase ?? 0));
  const past = {
    ...(r.fromUrl !== undefined ? { url: r.fromUrl } : {}),
    leftAt: ctx.now,
    trigger: r.trigger,
    ...(r.note ? { note: r.note } : {}),
    turns: turnsThere,
    ...(c.visibleChars !== undefined ? { visibleChars: c.visibleChars } : {}),
    briefSource: r.briefSource ?? "composed",
    briefChars: r.briefChars ?? 0,
  };
  w.pastConversations = castDraft([...(w.pastConversations ?? []), past]);
  w.conversationTurnBase = (w.turns ?? 1) - 1;
  // The new conversation: its URL from the submission, else what its own tab reported since the create (never the
  // old one's); its state comes with the next report.
  if (url !== undefined) c.url = url;
  else if (c.url === r.fromUrl) delete c.url;
  c.state = "unknown";
  delete c.errorCode;
  delete c.reportedStatus;
  delete c.visibleChars;
  w.rollover = undefined;
  dropBrief(ctx, w.id);
  ctx.emit("worker.rolled_over", w.runId, w.id, {
    trigger: r.trigger,
    ...(r.note ? { note: r.note } : {}),
    from: r.fromUrl ?? null,
    to: c.url ?? null,
    conversation: w.pastConversations.length + 1,
    briefSource: past.briefSource,
    briefChars: past.briefChars,
  });
}

// ── the brief ────────────────────────────────────────────────────────────────────────────────────

/** At most this many unread messages are quoted in a composed brief, each cut to this length. */
const BRIEF_MESSAGES = 5;
const BRIEF_MESSAGE_CHARS = 400;

/** The brief the rollover's first prompt carries: the worker's own when the host holds it, else composed. */
export function rolloverBrief(state: DomainState, w: Worker): string {
  return state.briefs?.[w.id] ?? composeBrief(state, w);
}

/**
 * A brief composed from the worker's durable record, for when the conversation could not write its own: objective
 * and acceptance (the prompt states them anyway), the newest progress summaries, the last block status, unread
 * messages, owned worktrees and the conversations already left. Pure and deterministic.
 */
export function composeBrief(state: DomainState, w: Worker): string {
  const lines: string[] = [
    "This brief was composed by the orchestrator from the worker's record: the previous conversation could not write one.",
  ];
  const progress = w.recentProgress ?? [];
  if (progress.length > 0) {
    lines.push("Progress reported (oldest first):");
    for (const p of progress) lines.push(`- ${new Date(p.at).toISOString()}: ${p.summary}`);
  } else lines.push("Progress reported: none recorded; re-check the work done before going on.");
  const status = w.conversation.reportedStatus;
  if (status) lines.push(`Last continuation-state block: status ${status}.`);
  lines.push(
    `Turns so far: ${w.turns ?? 0} in all, ${(w.pastConversations?.length ?? 0) + 1} conversation(s).`,
  );
  const owned = (w.worktrees ?? []).filter((t) => t.releasedAt === undefined).map((t) => t.location);
  if (owned.length > 0) lines.push(`Work locations you own: ${owned.join(", ")}.`);
  const unread = Object.values(state.unread)
    .filter((m) => m.to === w.id)
    .sort((a, b) => a.seq - b.seq);
  if (unread.length > 0) {
    lines.push(
      `Unread messages in your inbox (${unread.length}; read and acknowledge them with message_inbox):`,
    );
    for (const m of unread.slice(0, BRIEF_MESSAGES)) {
      const from = state.workers[m.from]?.path ?? m.from;
      lines.push(`- from ${from}: ${m.body.replace(/\s+/g, " ").slice(0, BRIEF_MESSAGE_CHARS)}`);
    }
  }
  return lines.join("\n");
}
