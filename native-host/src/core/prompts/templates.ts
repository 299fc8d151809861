// The versioned prompt templates. A shipped template is never edited: a change is a new id (`resume@2`)
// added beside the old one, so an attempt's stored prompt id always names the exact text it was sent.
import { CONTINUATION_BLOCK_LINES } from "../../../../shared/continuation-block.ts";
import { HANDOFF_BLOCK_LINES } from "../../../../shared/handoff-block.ts";
import { ADOPTED_OBJECTIVE } from "../adopt.ts";
import type { PromptRequest } from "../effects.ts";
import type { AttemptReason, Run, Worker } from "../model.ts";

export type PromptId =
  | "bootstrap@1"
  | "resume@1"
  | "keepalive@1"
  | "root-wake@1"
  | "root-keepalive@1"
  | "followup@1"
  | "corrective@1"
  | "continue@1"
  | "adopt-bootstrap@1"
  | "block-resume@1"
  | "block-followup@1"
  | "handoff@1"
  | "rollover@1"
  | "block-handoff@1"
  | "block-rollover@1";

export interface PromptContext {
  readonly worker: Worker;
  readonly run: Run;
  /** The run's /root worker, so a lane can be told where to report. */
  readonly rootWorker?: Worker;
  /** While the worker moves to a new conversation: the handoff brief its first prompt carries. */
  readonly brief?: string;
}

/** A child lane's event that woke /root, parsed from a wake reason `event:<type>:<path>`. */
export interface LaneEvent {
  readonly path: string;
  readonly type: string;
}

type Template = (request: PromptRequest, ctx: PromptContext) => string;

export const ROOT_PATH = "/root";

export function isRoot(worker: Worker): boolean {
  return worker.path === ROOT_PATH;
}

/** Child events among the wake reasons, in order, one entry per lane and event type. */
export function laneEvents(wakeReasons: readonly string[]): LaneEvent[] {
  const out: LaneEvent[] = [];
  for (const reason of wakeReasons) {
    const m = /^event:([A-Za-z0-9_.-]+):(\/root\/\S+)$/.exec(reason);
    if (!m) continue;
    const event = { type: m[1]!, path: m[2]! };
    if (!out.some((e) => e.path === event.path && e.type === event.type)) out.push(event);
  }
  return out;
}

// ---- shared fragments -------------------------------------------------------------------------------

const REASON_WORDS: Readonly<Record<AttemptReason, string>> = {
  initial: "assignment start",
  auto_resume: "unfinished assignment",
  manual_resume: "operator request",
  followup: "follow-up",
  recovery: "state recovery",
  handoff: "handoff before a new conversation",
  rollover: "continued in a new conversation",
};

/** Why the worker moves on, in the words its prompts use. */
const TRIGGER_WORDS: Readonly<Record<string, string>> = {
  length_limit: "the previous conversation reached ChatGPT's length limit",
  size_budget: "the previous conversation reached its size budget",
  operator: "the operator asked for a new conversation",
  agent: "you (the worker) asked for a new conversation",
};

const EVENT_WORDS: Readonly<Record<string, string>> = {
  "worker.progress": "reported progress",
  "worker.completed": "declared its assignment complete",
  "worker.failed": "declared its assignment failed",
  "worker.stopped": "was stopped",
  "worker.awaiting_human": "is waiting for a person",
  "worker.awaiting_dependency": "is waiting on a dependency",
  "message.sent": "sent a message",
};

function identity(ctx: PromptContext): string {
  const w = ctx.worker;
  return `Worker: ${w.name} (path ${w.path}, workerId "${w.id}"). Run: ${ctx.run.name} (runId "${ctx.run.id}").`;
}

function attemptLine(request: PromptRequest): string {
  return `Attempt ${request.attemptSeq} (${REASON_WORDS[request.reason]}).`;
}

function rootRef(ctx: PromptContext): string {
  return ctx.rootWorker
    ? `/root (workerId "${ctx.rootWorker.id}")`
    : "/root (its workerId is listed by worker_list)";
}

/** One line per wake that carries information the worker should act on; none for plain continuations. */
function wakeNotes(request: PromptRequest): string[] {
  const notes: string[] = [];
  const has = (r: string) => request.wakeReasons.includes(r);
  if (has("event:message.sent")) {
    notes.push(
      "New messages are in your inbox: read them with message_inbox and acknowledge with message_ack.",
    );
  }
  if (has("event:dependency_completed") || has("dependency_released")) {
    notes.push("The dependency you were waiting on has been released: re-check it before relying on it.");
  }
  if (has("human_resolved"))
    notes.push("A person has answered your question (see worker_get and your inbox).");
  if (has("continue_now")) notes.push("The operator asked for this turn.");
  return notes;
}

function completionContract(): string {
  return [
    "Completion contract: before you voluntarily end work, record exactly one explicit outcome:",
    "- finished (every acceptance criterion met) -> worker_complete with a terminal handoff summary: what was done, where, how it was verified;",
    "- irrecoverable failure -> worker_fail with the reason;",
    "- human input genuinely required -> worker_await_human with the question;",
    "- an external or dependency condition prevents progress -> worker_await_dependency with the condition;",
    "- otherwise -> make none of these calls; the worker stays active and the assignment stays open.",
    "Ending a reply is not finishing the assignment: only worker_complete completes it.",
  ].join("\n");
}

function shortContract(): string {
  return [
    "Before ending:",
    "- call worker_complete if finished;",
    "- call worker_fail if irrecoverably failed;",
    "- call worker_await_human only if human input is genuinely required;",
    "- call worker_await_dependency only if an external/dependency condition prevents progress;",
    "- otherwise leave the worker active.",
  ].join("\n");
}

function outputBlock(): string {
  return [
    "Output: end every response with exactly one block, as its final lines, with nothing after it:",
    ...CONTINUATION_BLOCK_LINES,
    "status working = the overall assignment is unfinished; complete = all requested work and acceptance gates are finished; blocked = further progress genuinely requires external input or an unavailable dependency. summary = what this response accomplished; current = what is in progress; next = the precise next action.",
    "Keep it consistent with your recorded outcome: complete only together with worker_complete; blocked together with worker_await_human, worker_await_dependency or worker_fail.",
  ].join("\n");
}

function outputReminder(): string {
  return ["End your response with exactly one block:", ...CONTINUATION_BLOCK_LINES].join("\n");
}

/** Texts quoted verbatim inside a backtick fence longer than any backtick run they contain. */
function verbatim(label: string, texts: readonly string[]): string {
  if (texts.length === 0) return `${label}: (no text was given)`;
  return texts
    .map((text, i) => {
      const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
      const fence = "`".repeat(Math.max(3, longest + 1));
      const title = texts.length === 1 ? label : `${label} ${i + 1} of ${texts.length}`;
      return `${title}:\n${fence}\n${text}\n${fence}`;
    })
    .join("\n\n");
}

function acceptanceList(worker: Worker): string {
  if (worker.acceptance.length === 0) return "Acceptance criteria: none beyond the objective itself.";
  return ["Acceptance criteria:", ...worker.acceptance.map((c, i) => `${i + 1}. ${c}`)].join("\n");
}

function paragraphs(...parts: (string | false | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === "string" && p !== "").join("\n\n");
}

// ---- templates --------------------------------------------------------------------------------------

const bootstrapV1: Template = (request, ctx) => {
  const w = ctx.worker;
  const root = isRoot(w);
  const tools = root
    ? [
        `Tools: use the ChatGPT Orchestrator MCP tools; pass workerId "${w.id}" and runId "${ctx.run.id}" where asked.`,
        "- worker_spawn: split the run objective into lanes; give each a path /root/<name>, an objective and acceptance criteria.",
        "- events_wait (runId, cursor): follow the lanes; call it again with the returned cursor. events_list, worker_list and worker_get show details.",
        "- message_inbox / message_ack: read the lanes' reports and questions, then acknowledge them.",
        "- message_send (fromWorkerId = your workerId): answer lanes and route dependencies, results and contract changes between them.",
        "- worker_steer: correct a lane at once when it drifts from its assignment, scope, shared contracts or the plan.",
        "- worker_progress: record the run-level state (lanes, landed commits, what remains) at each milestone.",
        "Review every lane report against the whole run objective, lane assignments, dependencies, acceptance criteria and cross-lane contracts. Complete /root only when the run objective is met.",
      ]
    : [
        `Tools: use the ChatGPT Orchestrator MCP tools; pass workerId "${w.id}" where asked.`,
        "- worker_progress: record durable progress at every checkpoint commit or milestone.",
        `- message_send (fromWorkerId = your workerId, toWorkerId = ${rootRef(ctx)}): report to /root as you go, with lines commit:, progress:, completed:, remaining:, blockers:, contracts:.`,
        "- message_inbox / message_ack: read your inbox at the start of each turn and acknowledge what you handled.",
        "- worker_get: re-read your assignment and state whenever unsure.",
      ];
  return paragraphs(
    root
      ? "You are /root, the coordinating worker of an orchestrated run."
      : "You are a worker in an orchestrated run.",
    `${identity(ctx)} ${attemptLine(request)}`,
    `Assignment:\n${w.objective}`,
    acceptanceList(w),
    root && `Run objective:\n${ctx.run.objective}`,
    tools.join("\n"),
    completionContract(),
    outputBlock(),
  );
};

const resumeV1: Template = (request, ctx) =>
  paragraphs(
    "Continue the current orchestrated worker assignment.",
    `${identity(ctx)} ${attemptLine(request)}`,
    ...wakeNotes(request),
    "Recover authoritative state using the ChatGPT Orchestrator MCP tools (worker_get, message_inbox) before acting. Do not redo completed work. Inspect durable repository/worktree/progress state as needed. Continue until the assignment's acceptance criteria are satisfied.",
    shortContract(),
    outputReminder(),
  );

const keepaliveV1: Template = (request, ctx) => {
  const w = ctx.worker;
  return paragraphs(
    `Orchestrator checkpoint. ${identity(ctx)} ${attemptLine(request)} Progress reports recorded so far: ${w.stall.progressCursor}. Acceptance criteria: ${w.acceptance.length} (see worker_get).`,
    ...wakeNotes(request),
    [
      `Send ${rootRef(ctx)} a durable update about this assignment now (worker_progress, then message_send). Include:`,
      "- latest checkpoint commit(s), if any;",
      "- what has been completed since the previous report;",
      "- what you are working on now;",
      "- what remains before the full assignment is complete;",
      "- blockers, risks, dependency changes or cross-lane contract changes.",
    ].join("\n"),
    "Then continue working on the same assignment to completion. Do not stop merely because you sent the update. If fully complete, call worker_complete with the terminal handoff. If genuinely blocked, report the blocker through the orchestrator and use the appropriate blocking state (worker_await_human or worker_await_dependency).",
    outputReminder(),
  );
};

const rootKeepaliveV1: Template = (request, ctx) =>
  paragraphs(
    `Orchestrator checkpoint for /root. ${identity(ctx)} ${attemptLine(request)}`,
    ...wakeNotes(request),
    [
      "Record a durable run-level update now with worker_progress. Include:",
      "- commits landed by the lanes since the previous report;",
      "- what each lane has completed and is working on;",
      "- what remains before the run objective is met;",
      "- blockers, risks, dependency changes or cross-lane contract changes.",
    ].join("\n"),
    "Review every active lane against the whole run objective and plan (worker_list, events_list), route updates between lanes with message_send and correct drifting lanes with worker_steer. Then keep coordinating with events_wait. Do not stop merely because you recorded the update.",
    shortContract(),
    outputReminder(),
  );

const rootWakeV1: Template = (request, ctx) => {
  const lanes = laneEvents(request.wakeReasons).map(
    (e) => `- ${e.path} ${EVENT_WORDS[e.type] ?? `reported ${e.type}`}`,
  );
  return paragraphs(
    `Lane update for /root. ${identity(ctx)} ${attemptLine(request)}`,
    ["These lanes reported since your last turn:", ...lanes].join("\n"),
    ...wakeNotes(request),
    "Read the reports (events_list from your cursor, message_inbox then message_ack, worker_get for a lane). Review each against the entire run objective, the lane's assignment, dependencies, acceptance criteria, cross-lane contracts, already-landed work and the current plan, not merely that the lane is alive.",
    [
      "For each lane decide and act:",
      "- aligned: let it continue as planned;",
      "- it asks a question or needs a result: answer or provide the dependency with message_send;",
      "- other lanes are affected: route the update to them with message_send;",
      "- the direction cannot be judged yet: request evidence (tests, diff, commit) with message_send;",
      "- it drifts (edits outside its scope, contradicts a shared contract, duplicates another lane, builds on stale dependencies, breaks the integration plan, claims completion without acceptance evidence): send corrective steering with worker_steer, once per issue, with a stable key;",
      "- it claims completion: check its acceptance evidence against the plan before relying on it.",
    ].join("\n"),
    "Then keep coordinating with events_wait until the run objective is met.",
    shortContract(),
    outputReminder(),
  );
};

const followupV1: Template = (request, ctx) => {
  const lanes = isRoot(ctx.worker) ? laneEvents(request.wakeReasons) : [];
  return paragraphs(
    `Follow-up for your current assignment. ${identity(ctx)} ${attemptLine(request)}`,
    ...wakeNotes(request),
    "The text below is from the operator, a person answering you, or /root. Apply it within your assignment; where it changes the assignment, it takes precedence.",
    verbatim("Follow-up", request.texts),
    lanes.length > 0 &&
      `Lanes that also reported since your last turn: ${lanes.map((e) => e.path).join(", ")}. Review them with events_list and worker_get.`,
    "Then continue the assignment until its acceptance criteria are satisfied.",
    shortContract(),
    outputReminder(),
  );
};

const correctiveV1: Template = (request, ctx) =>
  paragraphs(
    `Corrective steering from /root. ${identity(ctx)} ${attemptLine(request)}`,
    "Your current direction needs correcting. Apply the correction below before doing anything else; where it conflicts with your previous plan, the correction wins. Undo or adjust work that contradicts it.",
    verbatim("Correction", request.texts),
    `Acknowledge the correction to ${rootRef(ctx)} with message_send, then continue the assignment with the correction applied.`,
    shortContract(),
    outputReminder(),
  );

// ---- conversation rollover (docs/prompts.md, "Rollover") ----

function handoffRequest(): string {
  return [
    "This conversation is about to be replaced by a new one for the same assignment; the new conversation starts from your brief and nothing else of this one.",
    "Do not start new work in this response. Write a complete handoff brief for your successor, as this block:",
    ...HANDOFF_BLOCK_LINES,
    "Be specific: exact paths, commit ids, commands and the state of anything half done. Put nothing after the END line except the final block asked for below.",
  ].join("\n");
}

const handoffV1: Template = (request, ctx) =>
  paragraphs(
    `Handoff request. ${identity(ctx)} ${attemptLine(request)}`,
    handoffRequest(),
    `If you have the ChatGPT Orchestrator MCP tools, you may instead call worker_rollover with workerId "${ctx.worker.id}" and the same brief.`,
    outputReminder(),
  );

const blockHandoffV1: Template = () =>
  paragraphs(
    handoffRequest(),
    `Then end your response with the same final block (${BLOCK_ON_ONE_LINE}), status working.`,
  );

function rolloverIntro(request: PromptRequest, ctx: PromptContext): string {
  const moved = (ctx.worker.pastConversations?.length ?? 0) + 1;
  const why = TRIGGER_WORDS[ctx.worker.rollover?.trigger ?? ""] ?? "the work moved to a new conversation";
  return `This is conversation ${moved + 1} of this worker: ${why}. Continue the same assignment from the handoff brief below; do not redo work it says is done.`;
}

const rolloverV1: Template = (request, ctx) =>
  paragraphs(
    isRoot(ctx.worker)
      ? "You are /root, the coordinating worker of an orchestrated run, continuing in a new conversation."
      : "You are a worker in an orchestrated run, continuing in a new conversation.",
    `${identity(ctx)} ${attemptLine(request)}`,
    rolloverIntro(request, ctx),
    `Assignment:\n${ctx.worker.objective}`,
    acceptanceList(ctx.worker),
    verbatim("Handoff brief", [ctx.brief ?? "(none)"]),
    request.texts.length > 0 && verbatim("Follow-up", request.texts),
    `Tools: use the ChatGPT Orchestrator MCP tools; pass workerId "${ctx.worker.id}" where asked. Start with worker_get and message_inbox to recover the authoritative state, then continue.`,
    completionContract(),
    outputBlock(),
  );

const blockRolloverV1: Template = (request, ctx) =>
  paragraphs(
    `${identity(ctx)} ${rolloverIntro(request, ctx)}`,
    ctx.worker.objective !== ADOPTED_OBJECTIVE && `Objective:\n${ctx.worker.objective}`,
    verbatim("Handoff brief", [ctx.brief ?? "(none)"]),
    request.texts.length > 0 && verbatim("Reply from the person you are working with", request.texts),
    [
      "End every response with exactly one block as its final lines, with nothing after it:",
      ...CONTINUATION_BLOCK_LINES,
      "working = the overall task is unfinished; complete = all requested work is finished; blocked = further progress genuinely requires input from me. summary = what this response accomplished; current = what is in progress; next = the precise next action.",
    ].join("\n"),
    "Then carry on with the task.",
  );

// ---- zero-setup mode: an adopted conversation without MCP; the block is the only signal ----

/** The block's four labels on one line, for the one-line reminders. */
const BLOCK_ON_ONE_LINE = "status: working | complete | blocked, then summary:, current:, next:";

/** The first turn sent into an adopted conversation: only the output contract, plus the objective if one was typed. */
const adoptBootstrapV1: Template = (_request, ctx) =>
  paragraphs(
    [
      "From now on, end every response with exactly one block as its final lines, with nothing after it:",
      ...CONTINUATION_BLOCK_LINES,
      "working = the overall task is unfinished; complete = all requested work is finished; blocked = further progress genuinely requires input from me. summary = what this response accomplished; current = what is in progress; next = the precise next action.",
    ].join("\n"),
    ctx.worker.objective !== ADOPTED_OBJECTIVE && `Objective:\n${ctx.worker.objective}`,
    "Then carry on with the task.",
  );

/** The continuation turn of this mode: one line. */
const blockResumeV1: Template = () =>
  `Carry on with the task where you left off, and end your response with the same final block (${BLOCK_ON_ONE_LINE}).`;

const blockFollowupV1: Template = (request) =>
  paragraphs(
    verbatim("Reply from the person you are working with", request.texts),
    `Apply it, carry on with the task, and end your response with the same final block (${BLOCK_ON_ONE_LINE}).`,
  );

/** After a delivery timeout the fresh turn is the literal word, nothing else (docs/prompts.md). */
const continueV1: Template = () => "continue";

export const TEMPLATES: Readonly<Record<PromptId, Template>> = {
  "bootstrap@1": bootstrapV1,
  "resume@1": resumeV1,
  "keepalive@1": keepaliveV1,
  "root-wake@1": rootWakeV1,
  "root-keepalive@1": rootKeepaliveV1,
  "followup@1": followupV1,
  "corrective@1": correctiveV1,
  "continue@1": continueV1,
  "adopt-bootstrap@1": adoptBootstrapV1,
  "block-resume@1": blockResumeV1,
  "block-followup@1": blockFollowupV1,
  "handoff@1": handoffV1,
  "rollover@1": rolloverV1,
  "block-handoff@1": blockHandoffV1,
  "block-rollover@1": blockRolloverV1,
};
