// Product errors a page can show that a send cannot go into (signed out, a human check, a too-long conversation, a
// tool confirmation): one table for what evaluation, Continue now and liveness each say about them
// (docs/continuation-core.md, "Product errors and Continue now").
import { AWAITING_APPROVAL } from "../../../shared/error-codes.ts";
import type { LivenessReason } from "../../../shared/liveness.ts";

/** The blocking errors, with the held reason (and so the remedy) each shows as. */
const BLOCKING: Readonly<Record<string, LivenessReason>> = {
  NOT_SIGNED_IN: "signed_out",
  HUMAN_VERIFICATION: "human_verification",
  CONVERSATION_TOO_LONG: "conversation_too_long",
  [AWAITING_APPROVAL]: "approval",
};

/** Whether Continue now may send into a conversation showing this product error: the composer is still there. */
export function sendableError(code: string | undefined): boolean {
  return BLOCKING[code ?? ""] === undefined;
}

/** The held reason a product error shows as: its own for a blocking one, `page_error` for any other. */
export function pageErrorReason(code: string | undefined): LivenessReason {
  return BLOCKING[code ?? ""] ?? "page_error";
}
