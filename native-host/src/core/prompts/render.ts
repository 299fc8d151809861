// renderPrompt: the text of an execution attempt's turn, from its PromptRequest and the durable records.
// Pure: no I/O, no clock, no transcript content. The returned promptId is what an attempt records.
import type { PromptRequest } from "../effects.ts";
import type { DomainState, PromptKind, Worker } from "../model.ts";
import { effectivePolicy } from "../policy.ts";
import { rolloverBrief } from "../rollover.ts";
import { isRoot, laneEvents, ROOT_PATH, TEMPLATES, type PromptContext, type PromptId } from "./templates.ts";

export type { PromptContext, PromptId } from "./templates.ts";

export interface RenderedPrompt {
  readonly promptId: PromptId;
  readonly text: string;
}

/** The current template of each prompt kind; /root swaps some of them (ROOT_PROMPT_VERSIONS). */
export const PROMPT_VERSIONS = {
  bootstrap: "bootstrap@1",
  resume: "resume@1",
  keepalive: "keepalive@1",
  followup: "followup@1",
  corrective: "corrective@1",
  continue: "continue@1",
  handoff: "handoff@1",
  rollover: "rollover@1",
} as const satisfies Readonly<Record<PromptKind, PromptId>>;

/**
 * /root's variants: a resume or keepalive woken by child-lane events becomes a lane review
 * (`wake`); a keepalive without them becomes a run-level checkpoint (`keepalive`).
 */
export const ROOT_PROMPT_VERSIONS = {
  wake: "root-wake@1",
  keepalive: "root-keepalive@1",
} as const satisfies Readonly<Record<string, PromptId>>;

/** Every template id that exists, current or superseded; ids are never reused. */
export const PROMPT_IDS: readonly PromptId[] = Object.keys(TEMPLATES) as PromptId[];

/** Zero-setup mode (no MCP connector): an adopted conversation's first turn, and turns of a block-driven worker. */
export const BLOCK_PROMPT_VERSIONS = {
  bootstrap: "adopt-bootstrap@1",
  resume: "block-resume@1",
  followup: "block-followup@1",
  handoff: "block-handoff@1",
  rollover: "block-rollover@1",
} as const satisfies Readonly<Record<string, PromptId>>;

export function promptIdFor(request: PromptRequest, ctx: PromptContext): PromptId {
  if (request.kind === "bootstrap" && ctx.worker.adoptedAt !== undefined)
    return BLOCK_PROMPT_VERSIONS.bootstrap;
  // A worker ended only by its block may have no MCP tools: its prompts ask for the block and nothing else.
  if (effectivePolicy(ctx.run, ctx.worker).completionSignal === "output_block") {
    if (request.kind === "resume" || request.kind === "keepalive") return BLOCK_PROMPT_VERSIONS.resume;
    if (request.kind === "followup") return BLOCK_PROMPT_VERSIONS.followup;
    if (request.kind === "handoff") return BLOCK_PROMPT_VERSIONS.handoff;
    if (request.kind === "rollover") return BLOCK_PROMPT_VERSIONS.rollover;
  }
  if (isRoot(ctx.worker) && (request.kind === "resume" || request.kind === "keepalive")) {
    if (laneEvents(request.wakeReasons).length > 0) return ROOT_PROMPT_VERSIONS.wake;
    if (request.kind === "keepalive") return ROOT_PROMPT_VERSIONS.keepalive;
  }
  return PROMPT_VERSIONS[request.kind];
}

export function renderPrompt(request: PromptRequest, ctx: PromptContext): RenderedPrompt {
  const promptId = promptIdFor(request, ctx);
  return { promptId, text: renderTemplate(promptId, request, ctx) };
}

/** Renders a specific (possibly superseded) template, e.g. to reproduce what an old attempt was sent. */
export function renderTemplate(promptId: PromptId, request: PromptRequest, ctx: PromptContext): string {
  return TEMPLATES[promptId](request, ctx);
}

/**
 * The text an attempt's command carries: the template version the core chose and stored on the attempt (so the record
 * matches the text), or the current choice for a request that names none.
 */
export function renderCommandPrompt(request: PromptRequest, ctx: PromptContext): RenderedPrompt {
  const id = request.promptId;
  if (id !== undefined && (PROMPT_IDS as readonly string[]).includes(id)) {
    return { promptId: id as PromptId, text: renderTemplate(id as PromptId, request, ctx) };
  }
  return renderPrompt(request, ctx);
}

/** What a worker's prompts are rendered from: the worker, its run and the run's /root; undefined without its run. */
export function promptContextOf(state: DomainState, worker: Worker): PromptContext | undefined {
  const run = state.runs[worker.runId];
  if (!run) return undefined;
  const root = Object.values(state.workers).find((r) => r.runId === run.id && r.path === ROOT_PATH);
  return {
    worker,
    run,
    ...(root ? { rootWorker: root } : {}),
    ...(worker.rollover ? { brief: rolloverBrief(state, worker) } : {}),
  };
}
