// A submission's outcome made exact: "submitted" only with the page's word or the command's marker in the
// conversation as proof; otherwise a failure before the click, or AMBIGUOUS_SUBMISSION (docs/extension.md).
import type { ExtensionApi } from "../lib/browser-api.ts";
import type { SubmitResult } from "../lib/content-protocol.ts";
import type { ContentChannel } from "./content-channel.ts";
import type { JournalEntry } from "./journal.ts";

export type Outcome =
  | { readonly outcome: "submitted"; readonly url?: string }
  | { readonly outcome: "failed"; readonly errorCode: string; readonly detail?: string };

export const AMBIGUOUS = "AMBIGUOUS_SUBMISSION";

export interface SubmissionOutcomesDeps {
  readonly api: ExtensionApi;
  readonly content: ContentChannel;
  readonly probeTimeoutMs: number;
}

export class SubmissionOutcomes {
  constructor(private readonly deps: SubmissionOutcomesDeps) {}

  /** The page's answer, made exact: a failure after the click is a submission if the marker is there. */
  async settle(tabId: number, entry: JournalEntry, result: SubmitResult): Promise<Outcome> {
    if (result.outcome === "submitted")
      return { outcome: "submitted", ...(result.url ? { url: result.url } : {}) };
    if (result.phase === "before-submit")
      return {
        outcome: "failed",
        errorCode: result.errorCode,
        ...(result.detail ? { detail: result.detail } : {}),
      };
    if (await this.proveByMarker(tabId, entry))
      return { outcome: "submitted", ...(await this.tabUrl(tabId)) };
    return {
      outcome: "failed",
      errorCode: result.errorCode,
      ...(result.detail ? { detail: result.detail } : {}),
    };
  }

  /** No answer from the page (timeout, tab gone, invalid reply): submitted only if the marker proves it. */
  async unknownOutcome(tabId: number, entry: JournalEntry, why: string): Promise<Outcome> {
    if (await this.proveByMarker(tabId, entry))
      return { outcome: "submitted", ...(await this.tabUrl(tabId)) };
    return { outcome: "failed", errorCode: AMBIGUOUS, detail: `delivery unknown: ${why}` };
  }

  /** The command's marker is in the tab's conversation. */
  async proveByMarker(tabId: number, entry: JournalEntry): Promise<boolean> {
    const reply = await this.deps.content.hasMarker(tabId, entry.marker, this.deps.probeTimeoutMs);
    return reply.ok && reply.value;
  }

  private async tabUrl(tabId: number): Promise<{ url?: string }> {
    const tab = await this.deps.api.tabs.get(tabId).catch(() => undefined);
    return tab?.url !== undefined ? { url: tab.url } : {};
  }
}
