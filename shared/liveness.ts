// What the operator sees about an active worker, computed in one place by the host (docs/continuation-core.md,
// "Liveness"): it is moving, or a deadline is armed (due, with its time), or it is held for a reason from one closed
// list, each with the remedy the UI offers. Popup, dashboard, overlay, notifications and worker_get all render this.
import { z } from "zod";

export const LIVENESS_STATES = ["moving", "due", "held"] as const;
export type LivenessState = (typeof LIVENESS_STATES)[number];

/** What a remedy button does; `none` means the worker needs nothing but time. */
export const REMEDY_ACTIONS = [
  "none",
  "resume",
  "continue_now",
  "continue_anyway",
  "answer",
  "release",
  "open_tab",
  "open_browser",
  "sign_in",
  "new_conversation",
  "turn_on_auto_resume",
] as const;
export type RemedyAction = (typeof REMEDY_ACTIONS)[number];

interface ReasonDef {
  readonly state: LivenessState;
  /** Operator words, short: shown next to the worker's label. */
  readonly text: string;
  readonly remedy: RemedyAction;
  /** The remedy in operator words. */
  readonly remedyText: string;
  /** A person must act (or look): raises a desktop notification and the Needs you label. */
  readonly needsYou: boolean;
}

/** The closed list. Adding a reason means adding it here, to docs/operator-guide.md and docs/troubleshooting.md. */
export const LIVENESS_REASONS = {
  // moving
  generating: {
    state: "moving",
    text: "Generating",
    remedy: "none",
    remedyText: "Nothing to do: the turn is running.",
    needsYou: false,
  },
  submitted: {
    state: "moving",
    text: "Turn sent",
    remedy: "none",
    remedyText: "Nothing to do: the page is starting the turn.",
    needsYou: false,
  },
  // due: a deadline is armed
  idle_grace: {
    state: "due",
    text: "Resuming after the idle grace",
    remedy: "none",
    remedyText: "Nothing to do: the next turn goes out at the time shown.",
    needsYou: false,
  },
  spacing_floor: {
    state: "due",
    text: "Resuming after the minimum spacing",
    remedy: "continue_now",
    remedyText: "Continue now sends the turn at once.",
    needsYou: false,
  },
  submitting: {
    state: "due",
    text: "Sending the turn",
    remedy: "none",
    remedyText: "Nothing to do: the browser is submitting the turn.",
    needsYou: false,
  },
  retry_backoff: {
    state: "due",
    text: "Retrying a turn the browser could not send",
    remedy: "continue_now",
    remedyText: "Continue now retries at once.",
    needsYou: false,
  },
  rate_limited: {
    state: "due",
    text: "Rate limited",
    remedy: "continue_now",
    remedyText: "Resumes once at the time shown; Continue now tries once earlier.",
    needsYou: false,
  },
  // Due, not held: it is looked at again at the time shown (a person who clears the draft changes nothing the host sees).
  draft_in_composer: {
    state: "due",
    text: "Your draft is in the composer",
    remedy: "open_tab",
    remedyText:
      "Send or clear your draft in the conversation; it tries again at the time shown (your draft is never touched).",
    needsYou: true,
  },
  // held: a named reason and a remedy
  paused: {
    state: "held",
    text: "Paused by you",
    remedy: "resume",
    remedyText: "Resume lets it continue.",
    needsYou: false,
  },
  run_paused: {
    state: "held",
    text: "Run paused",
    remedy: "resume",
    remedyText: "Resume (or Resume all) lets it continue.",
    needsYou: false,
  },
  question: {
    state: "held",
    text: "Needs your answer",
    remedy: "answer",
    remedyText: "Answer the question to let it continue.",
    needsYou: true,
  },
  approval: {
    state: "held",
    text: "A tool confirmation waits in ChatGPT",
    remedy: "open_tab",
    remedyText: "Open the conversation and approve or deny the tool call there.",
    needsYou: true,
  },
  page_error: {
    state: "held",
    text: "ChatGPT showed an error",
    remedy: "continue_now",
    remedyText: "Look at the conversation; Continue now sends one turn.",
    needsYou: true,
  },
  signed_out: {
    state: "held",
    text: "Signed out of ChatGPT",
    remedy: "sign_in",
    remedyText: "Sign in to chatgpt.com in the conversation's tab; it resumes by itself.",
    needsYou: true,
  },
  human_verification: {
    state: "held",
    text: "ChatGPT asks for a human check",
    remedy: "open_tab",
    remedyText: "Open the conversation and complete the check; it resumes by itself.",
    needsYou: true,
  },
  conversation_too_long: {
    state: "held",
    text: "Conversation too long",
    remedy: "new_conversation",
    remedyText: "Continue the work in a new conversation, or Stop the worker.",
    needsYou: true,
  },
  delivery_uncertain: {
    state: "held",
    text: "A turn may or may not have been sent",
    remedy: "continue_now",
    remedyText: "Check the conversation; if the turn is not there, Continue now sends one.",
    needsYou: true,
  },
  invalid_blocks: {
    state: "held",
    text: "Answers ended without a continuation-state block",
    remedy: "continue_anyway",
    remedyText: "Check the conversation, then Continue anyway.",
    needsYou: true,
  },
  stalled: {
    state: "held",
    text: "Stalled: no progress",
    remedy: "continue_anyway",
    remedyText: "Check the conversation, then Continue anyway.",
    needsYou: true,
  },
  cap_reached: {
    state: "held",
    text: "Cap reached",
    remedy: "continue_anyway",
    remedyText: "Continue anyway allows another round up to the cap, or raise the cap.",
    needsYou: true,
  },
  waiting_for_workers: {
    state: "held",
    text: "Waiting for workers",
    remedy: "release",
    remedyText: "Resumes when they end; Release lets it continue now.",
    needsYou: false,
  },
  waiting_for_dependency: {
    state: "held",
    text: "Waiting for a dependency",
    remedy: "release",
    remedyText: "Release lets it continue.",
    needsYou: false,
  },
  auto_resume_off: {
    state: "held",
    text: "Auto Resume off",
    remedy: "continue_now",
    remedyText: "Continue now sends one turn; turning Auto Resume on lets it continue by itself.",
    needsYou: false,
  },
  browser_not_connected: {
    state: "held",
    text: "Browser not connected",
    remedy: "open_browser",
    remedyText: "Open the browser with the extension; it continues once it connects.",
    needsYou: true,
  },
  browser_unresponsive: {
    state: "held",
    text: "The browser has not answered a turn",
    remedy: "open_tab",
    remedyText: "Open the conversation; reload the extension if its tab is stuck.",
    needsYou: true,
  },
  tab_slot: {
    state: "held",
    text: "Waiting for a tab slot",
    remedy: "none",
    remedyText: "Starts when a generating tab finishes (raise the limit in the extension's settings).",
    needsYou: false,
  },
  page_loading: {
    state: "held",
    text: "Waiting for the page to report",
    remedy: "open_tab",
    remedyText: "Nothing to do while its tab loads; if this stays, open the conversation.",
    needsYou: false,
  },
  tab_closed: {
    state: "held",
    text: "Tab closed",
    remedy: "open_tab",
    remedyText:
      "Reopen the conversation in a tab; it continues by itself. (Turn on reopening closed tabs in the extension's settings to have it reopened for you.)",
    needsYou: true,
  },
  tab_unavailable: {
    state: "held",
    text: "Conversation not open",
    remedy: "open_tab",
    remedyText:
      "Open the conversation in a tab. If the worker does not pick it up, Stop it and keep the conversation going again from its tab.",
    needsYou: true,
  },
} as const satisfies Record<string, ReasonDef>;

export type LivenessReason = keyof typeof LIVENESS_REASONS;
export const LIVENESS_REASON_NAMES = Object.keys(LIVENESS_REASONS) as [LivenessReason, ...LivenessReason[]];

export const livenessSchema = z
  .object({
    state: z.enum(LIVENESS_STATES),
    reason: z.enum(LIVENESS_REASON_NAMES),
    /** When this state began (epoch ms). */
    since: z.number(),
    /** For `due`: when the armed deadline fires. */
    until: z.number().optional(),
    /** Reason specifics: the page's error code, the workers waited for, the slot position. */
    detail: z
      .object({
        code: z.string().optional(),
        workerIds: z.array(z.string()).optional(),
        workerPaths: z.array(z.string()).optional(),
        position: z.number().int().positive().optional(),
        condition: z.string().optional(),
      })
      .strict()
      .optional(),
    text: z.string(),
    remedy: z.object({ action: z.enum(REMEDY_ACTIONS), text: z.string() }).strict(),
    needsYou: z.boolean(),
  })
  .strict();

export type Liveness = z.infer<typeof livenessSchema>;

/** Builds the view of one reason: the words and remedy come from the closed list, never from the caller. */
export function livenessOf(
  reason: LivenessReason,
  since: number,
  extra: { until?: number; detail?: Liveness["detail"] } = {},
): Liveness {
  const def: ReasonDef = LIVENESS_REASONS[reason];
  return {
    state: def.state,
    reason,
    since,
    ...(extra.until !== undefined ? { until: extra.until } : {}),
    ...(extra.detail ? { detail: extra.detail } : {}),
    text: def.text,
    remedy: { action: def.remedy, text: def.remedyText },
    needsYou: def.needsYou,
  };
}
