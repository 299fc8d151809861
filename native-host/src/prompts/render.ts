// renderPrompt: the text of an execution attempt's turn, from its PromptRequest and the durable records.
// Pure: no I/O, no clock, no transcript content. The returned promptId is what an attempt records.
import type { PromptRequest } from "../core/effects.ts";
import type { PromptKind } from "../core/model.ts";
import { isRoot, laneEvents, TEMPLATES, type PromptContext, type PromptId } from "./templates.ts";

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
} as const satisfies Readonly<Record<PromptKind, PromptId>>;

/**
 * /root's variants (spec 15.5): a resume or keepalive woken by child-lane events becomes a lane review
 * (`wake`); a keepalive without them becomes a run-level checkpoint (`keepalive`).
 */
export const ROOT_PROMPT_VERSIONS = {
  wake: "root-wake@1",
  keepalive: "root-keepalive@1",
} as const satisfies Readonly<Record<string, PromptId>>;

/** Every template id that exists, current or superseded; ids are never reused. */
export const PROMPT_IDS: readonly PromptId[] = Object.keys(TEMPLATES) as PromptId[];

export function promptIdFor(request: PromptRequest, ctx: PromptContext): PromptId {
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
