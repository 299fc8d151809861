// The adapter's self-test: which entries of the selector table resolve on this page (for checking a new ChatGPT
// build by hand), read from one scan and a few document-wide lookups.
import { collapse, queryAll } from "./dom.ts";
import type { PageScan } from "./scan-types.ts";
import type { SelectorTable } from "./selectors.ts";
import { answerRoot, userNodes } from "./turn-scan.ts";
import type { ChatGptAdapter } from "./types.ts";

/** `layout`: the layout the adapter reports (the state machine's, else this scan's). */
export function selfTestOf(
  doc: Document,
  table: SelectorTable,
  scan: PageScan,
  layout: string,
): ReturnType<ChatGptAdapter["selfTest"]> {
  const c = scan.composer;
  const turns = scan.turns.turns;
  return {
    layout,
    found: {
      composerForm: c.form !== null,
      editor: c.editor !== null && c.problem === undefined,
      primaryButton: c.primary !== null,
      sendOrVoiceButton: c.send !== null || c.primaryKind === "voice",
      stopButton: c.stopVisible,
      turns: turns.length > 0,
      userTurn: userNodes(doc, table).length > 0,
      assistantTurn:
        queryAll(doc, table.message).some(
          (m) => m.getAttribute("data-message-author-role") === "assistant",
        ) || queryAll(doc, ["[data-chatgpt-selection-message-id]"]).length > 0,
      answerText: scan.turns.newestAssistant
        ? collapse(answerRoot(scan.turns.newestAssistant, table)?.textContent ?? "") !== ""
        : false,
      actionBar: scan.actionBar,
      conversationUrl: scan.url.kind === "conversation",
    },
  };
}
