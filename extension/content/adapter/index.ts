// Entry of the ChatGPT page adapter for the content script and the background (types only for the latter).
export { createChatGptAdapter } from "./chatgpt-adapter.ts";
export { SELECTORS, LABELS } from "./selectors.ts";
export { DEFAULT_TIMING } from "./timing.ts";
export type {
  AdapterOptions,
  ChatGptAdapter,
  ConversationState,
  Layout,
  Scheduler,
  StateReport,
  SubmitErrorCode,
  SubmitOutcome,
  SubmitRequest,
  Timing,
} from "./types.ts";
export type { PageErrorCode } from "./errors.ts";
