// The one selector table of the adapter: every element it looks for, as a fallback chain covering both live
// DOM generations (classic `#prompt-textarea`/`data-testid`, and the 2026 `form[data-chatgpt-composer]`).
// The table, with which layout each entry belongs to, is written out in docs/adapter.md, "Selector table".

/**
 * Each chain is tried in order, most specific first. Chains are plain CSS so a remote update can replace one
 * (`AdapterOptions.selectors`). Comments name the layout: [C] classic, [N] 2026 composer, [G] generic.
 */
export const SELECTORS = {
  /** The composer form; controls are only ever looked for inside it. */
  composerForm: [
    'form[data-type="unified-composer"]', // [C]
    "form[data-chatgpt-composer]", // [N]
    "#thread-bottom-container form", // [G]
  ],
  /** The editor the person types into. Candidates matching `decoyInput` are never used. */
  editor: [
    '#prompt-textarea[contenteditable="true"]', // [C] div#prompt-textarea.ProseMirror[role=textbox]
    '.ProseMirror[contenteditable="true"]', // [C][N] [data-composer-markdown][aria-label="Ask ChatGPT"]
    '[contenteditable="true"][role="textbox"]', // [N]
    "textarea#prompt-textarea", // [C] ≤2024 plain textarea
    "form[data-chatgpt-composer] textarea", // [N] textarea variant of the 2026 composer
    "#mobile-composer-prompt", // [G] mobile
    'textarea[name="prompt"]', // [G]
  ],
  /** Never written to: the hidden JS-off fallback textarea, and the pre-hydration input that React replaces. */
  decoyInput: [
    'textarea[name="prompt-textarea"]', // [C] .wcDTda_fallbackTextarea, display:none, 0×0, before the editor
    'textarea[class*="fallbackTextarea"]', // [C]
    "#pending-home-input", // [G] pre-hydration plain textarea
  ],
  /** The form's primary button: one slot that cycles voice → Send → Stop. Classified by its label/testid. */
  primaryButton: [
    "#composer-submit-button", // [C] data-testid send-button | stop-button
    "button.bg-composer-primary", // [N] no id, no testid, localized label
    "button.size-token-button-composer", // [N]
    "[data-composer-submit]", // [G] mobile
    'button[type="submit"]', // [G]
    'button[data-testid="composer-speech-button"]', // [C] the slot's voice state (composer empty)
  ],
  /** Send, inside the composer form. */
  sendButton: [
    '#composer-submit-button[data-testid="send-button"]', // [C]
    'button[data-testid="send-button"]', // [C]
    'button[aria-label="Send prompt"]', // [C]
    "button.bg-composer-primary", // [N] only when its label is send-like
    "[data-composer-submit]", // [G]
  ],
  /** Stop, inside the composer form (a document-wide "stop" match catches read-aloud and dictation). */
  stopButton: [
    '#composer-submit-button[data-testid="stop-button"]', // [C]
    'button[data-testid="stop-button"]', // [C]
    '[data-testid="composer-stop-button"]', // [C]
    'button[aria-label="Stop streaming"]', // [C] 2025
    'button[aria-label="Stop generating"]', // [C] ≤2024
    'button[aria-label="Stop answering"]', // [C]
  ],
  /** GPT Pro can show Stop outside the primary slot; searched in the composer's container. */
  trailingStop: ['div[slot="trailing"] button'],
  /** Voice and dictation: never clicked, never taken for Send or Stop. */
  voiceButton: [
    'button[data-testid="composer-speech-button"]', // [C] shown while the composer is empty
    'button[aria-label="Dictate button"]', // [C]
    '[aria-label^="Start dictation"]', // [G]
    "button[data-start-dictation]", // [G]
    '[aria-label^="Start voice"]', // [G]
  ],
  /** A "Pasted text" chip: a long paste became an attachment instead of editor text. */
  pastedChip: ['button[aria-label^="Remove Pasted text"]'],
  /** Turn containers, in document order; nested matches keep the innermost. */
  turn: [
    '[data-testid^="conversation-turn-"]', // [C] <article> ≤2025, <section data-turn data-turn-id> 2026
    "[data-turn-key]", // [N]
  ],
  /** Message nodes (also found outside recognised turns). */
  message: [
    "[data-message-author-role]", // [C]
    "[data-chatgpt-selection-message-id]", // [N] assistant answer body
    "[data-user-message-bubble]", // [N] user bubble
  ],
  /** New-layout units carry `"<turn>:<i>:<role>"`, which gives a turn's role. */
  roleUnit: ["[data-content-search-unit-key]", "[data-chatgpt-search-unit-key]"],
  /** The rendered answer text of an assistant message (continuation block, error-in-markdown). */
  assistantMarkdown: [
    '[data-markdown-text-style="assistant-message"]', // [N]
    ".markdown", // [C] .markdown.prose
  ],
  /** Secondary busy signals, looked for in the newest assistant turn only. */
  streaming: [
    ".result-streaming", // [C] older
    '[aria-busy="true"]', // [G]
    '[class*="loading-shimmer"]', // [G]
    '[role="progressbar"]', // [G]
  ],
  /** On the answer while it streams [N]; busy only while its content keeps changing. */
  markdownAnimated: ["[data-markdown-animated]"],
  /** Finished-turn evidence: the newest assistant turn's action bar (docs/adapter.md, "States"). */
  actionBar: [
    '[data-testid="copy-turn-action-button"]', // [C]
    '[data-testid="good-response-turn-action-button"]', // [C]
    '[data-testid="bad-response-turn-action-button"]', // [C]
    ".turn-action-controls button", // [N] labels localized
  ],
  /** Containers of the action bar: controls inside are never error anchors (their "Regenerate" is routine). */
  actionBarContainer: ['[data-testid*="turn-action"]', ".turn-action-controls"],
  /** Error cards and their containers (classic class names; the 2026 card is found from its Retry button). */
  errorCard: [
    '[class*="text-token-text-error"]', // [C]
    '[class*="bg-token-surface-error"]', // [C]
    '[class*="text-error"]', // [G]
  ],
  /** Retry/regenerate controls of any kind: never clicked. */
  retryButton: [
    'button[data-testid="regenerate-thread-error-button"]', // [C]
    '[data-testid*="regenerate"]', // [C] also the action bar's regenerate
  ],
  /** The error card's own Retry (also found by its exact "Retry" label, for the 2026 layout's card without hooks). */
  errorRetryButton: ['button[data-testid="regenerate-thread-error-button"]'],
  /** Page-level notices: rate limits, caps, sign-in and challenge dialogs. `.sr-only` ones are ignored. */
  notice: [
    '[role="dialog"]',
    '[role="alertdialog"]',
    '[data-testid="toast-error"]',
    "div.toast-root",
    '[role="alert"]',
  ],
  /** Banners near the composer (usage cap); searched with the editor's own text excluded. */
  composerContainer: ["#thread-bottom-container", "#composer-background"],
  /** Signed out: the guest composer still exists, so these are the signal. */
  loginControl: [
    'a[href*="/auth/login"]',
    'button[data-testid="login-button"]',
    'button[data-testid*="login"]',
  ],
  /** MCP tool confirmation (DOM unverified, docs/adapter.md): explicit hooks first, then Confirm+Deny pairs. */
  approvalCard: ['[data-testid*="tool-approval"]', '[data-testid*="tool-confirmation"]'],
  /** Chat/Work switch [N]: Work runs elsewhere with other ids; we only submit in Chat mode. */
  workModeSelected: [
    '[role="radio"][data-tpp-toggle-value="work"][aria-checked="true"]',
    '[role="group"][aria-label="Composer mode"] button[aria-pressed="true"][data-value="work"]',
  ],
  /**
   * Live regions outside the turns (screen-reader only); the page writes "Response complete" into one when a turn ends
   * [N][G]. Only a change to those words after the turn began is evidence: they stay there from the turn before.
   */
  liveStatus: ['[role="status"]'],
  /** Containers that hide their content from people even when laid out. */
  visuallyHidden: [".sr-only", ".visually-hidden"],
} satisfies Record<string, readonly string[]>;

export type SelectorKey = keyof typeof SELECTORS;
export type SelectorTable = Record<SelectorKey, readonly string[]>;

/** Labels (aria-label, else trimmed text) that classify controls. English plus a few locales where known. */
export const LABELS = {
  stop: /^(stop( streaming| generating| answering| response)?|stopp|arrêter|detener|parar|interrompi|停止|중지|остановить)$/i,
  send: /^(send( prompt| message)?|submit|enviar|envoyer|senden|invia|送信|发送|보내기|отправить)$/i,
  voice: /voice|dictat|microphone|read aloud|speech|mikrofon/i,
  retry: /^(retry|try again|regenerate( response)?)$/i,
  /** The exact label of an error card's Retry (not the action bar's routine "Regenerate"). */
  errorRetry: /^(retry|try again)$/i,
  answerNow: /^answer now$/i,
  useWork: /^use work$/i,
  approve: /^(confirm|approve|allow|allow once|always allow|allow for this chat|accept|run tool)$/i,
  deny: /^(deny|decline|reject|don't allow|do not allow)$/i,
  /** The one button of ChatGPT's rate-limit notice: it only closes the notice (docs/adapter.md, "Rate limits"). */
  acknowledge: /^(got it|ok|okay|close|dismiss|알겠습니다|compris|verstanden|entendido|capito)$/i,
  thinkingFailed: /^thinking failed$/i,
  /** A live region's announcement that the answer has ended (`liveStatus`). */
  responseComplete: /^response (is )?complete(d)?\.?$/i,
  /** An active thinking/progress label (not the past-tense "Thought for 12s" summary). */
  thinking:
    /^(pro thinking|thinking|reasoning|searching( the web)?|finalizing answer|analyzing|working)(\s*(…|\.\.\.))?$/i,
} as const;

/** Merges a remote override into the built-in table (a given key replaces its chain). */
export function selectorTable(override?: Partial<SelectorTable>): SelectorTable {
  return { ...SELECTORS, ...(override ?? {}) };
}
