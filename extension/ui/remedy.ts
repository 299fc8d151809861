// What a liveness remedy button does (shared/liveness.ts REMEDY_ACTIONS → an operation, opening the conversation,
// the Needs-you answer, or words only), in one pure mapping every view uses (docs/ui.md, "Liveness and remedies").
import type { Liveness, LivenessReason } from "../../shared/liveness.ts";
import { NEW_CONVERSATION_QUESTION } from "./rollover-words.ts";
import type { ViewCall } from "./view-calls.ts";

/** Held reasons that are pauses on the host (`worker.pause`): Continue now must clear the pause to act. */
export const PAUSE_REASONS: ReadonlySet<LivenessReason> = new Set<LivenessReason>([
  "paused",
  "run_paused",
  "stalled",
  "cap_reached",
  "invalid_blocks",
  "delivery_uncertain",
]);

/** The operations a remedy button calls, with their typed params. */
export type RemedyCall = Extract<
  ViewCall,
  { op: "worker_resume" | "worker_continue_now" | "auto_resume_set" | "worker_new_conversation" }
>;

export type RemedyPlan =
  /**
   * A button that calls a host operation (a refusal is shown next to it); with `confirm`, only after the person has
   * read that question in place and said yes.
   */
  | {
      readonly kind: "call";
      readonly label: string;
      readonly testId: string;
      readonly call: RemedyCall;
      readonly confirm?: string;
    }
  /** Focus the worker's tab, or open its conversation URL. */
  | { readonly kind: "open"; readonly label: string; readonly testId: string }
  /** The Needs-you answer (the dashboard's form). */
  | { readonly kind: "answer"; readonly label: string; readonly testId: string }
  /** Nothing to press: the remedy's words say what to do (or that nothing is needed). */
  | { readonly kind: "text" };

export function remedyPlan(workerId: string, l: Liveness): RemedyPlan {
  switch (l.remedy.action) {
    case "resume":
      return call("Resume", "resume", { op: "worker_resume", params: { workerId } });
    case "continue_now":
      // A person pressing it means "go": a pause (delivery uncertain) is cleared, else the host refuses; for other
      // reasons clearPause changes nothing, so every Continue now button sends the same call.
      return call("Continue now", "continue-now", {
        op: "worker_continue_now",
        params: { workerId, clearPause: true },
      });
    case "continue_anyway":
      return call("Continue anyway", "continue-anyway", {
        op: "worker_continue_now",
        params: { workerId, clearPause: true },
      });
    case "release":
      // Ends a dependency wait (the host's worker_resume); not the popup's Release of an adopted conversation.
      return call("Release", "release-wait", { op: "worker_resume", params: { workerId } });
    case "turn_on_auto_resume":
      return call("Turn Auto Resume on", "turn-on-auto-resume", {
        op: "auto_resume_set",
        params: { enabled: true },
      });
    case "open_tab":
      // A closed tab is reopened: the extension opens the conversation's URL and binds the new tab to the worker.
      return {
        kind: "open",
        label: l.reason === "tab_closed" ? "Reopen conversation" : "Open conversation",
        testId: "open-conversation",
      };
    case "sign_in":
      return { kind: "open", label: "Open conversation to sign in", testId: "open-conversation" };
    case "answer":
      return { kind: "answer", label: "Answer", testId: "answer-remedy" };
    case "new_conversation":
      // The length limit: the work moves on in a new conversation (docs/ui.md, "Continue in a new conversation").
      return call(
        "Continue in a new conversation",
        "new-conversation",
        { op: "worker_new_conversation", params: { workerId } },
        NEW_CONVERSATION_QUESTION,
      );
    case "open_browser":
    case "none":
      return { kind: "text" };
  }
}

function call(label: string, testId: string, remedy: RemedyCall, confirm?: string): RemedyPlan {
  return { kind: "call", label, testId, call: remedy, ...(confirm === undefined ? {} : { confirm }) };
}

/** Whether a plain Continue now makes sense next to this remedy (not while an answer, a release or the page is due). */
export function offersContinueNow(l: Liveness | null): boolean {
  if (l === null) return false;
  switch (l.remedy.action) {
    case "none":
    case "resume":
    case "continue_now":
    case "turn_on_auto_resume":
      return true;
    case "continue_anyway":
    case "answer":
    case "release":
    case "open_tab":
    case "sign_in":
    case "open_browser":
    case "new_conversation":
      return false;
  }
}
