// The fake chatgpt.com page (browser side): composer, turns, streaming, errors and dialogs in either DOM layout,
// reproducing the real page's known quirks (docs/e2e.md, "The fake chatgpt.com"). Served transpiled by ../server.ts; talks to it over fetch.
export {};

interface PageConfig {
  layout: "classic" | "composer-2026";
  signedOut: boolean;
  stopDelayMs: [number, number];
  sendDisabledMs: [number, number];
  hydrationRemountMs: number | null;
  liveRegionTickMs: number | null;
  controlPollMs: number | null;
  rateLimitOnLoad: boolean;
  /** The rate-limit or usage-cap notice shown now (`fake.showLimit`), and its change count. */
  limit: PageLimit | null;
  limitVersion: number;
  /** The chats listed in the sidebar. */
  chats: Chat[];
}

/** A sidebar entry (a conversation the server holds). */
interface Chat {
  id: string;
  title: string;
}

/** A rate-limit or usage-cap notice (../limit-notice.ts). */
interface PageLimit {
  shape: "modal" | "banner";
  text: string;
}

interface StoredTurn {
  role: "user" | "assistant";
  id: string;
  text: string;
  tools: string[];
  error: { shape: ErrorShape; text: string } | null;
  complete: boolean;
}

type ErrorShape = "card" | "alert" | "markdown" | "toast";

type StreamEvent =
  | { type: "accepted"; conversationId: string; userMessageId: string; assistantMessageId: string }
  | { type: "title"; title: string }
  | { type: "delta"; text: string }
  | { type: "tool"; name: string }
  | { type: "approval"; id: string; tool: string }
  | { type: "approval_resolved"; id: string }
  | { type: "error"; shape: ErrorShape; text: string }
  | { type: "rate_limit"; limit?: PageLimit; limitVersion?: number }
  | { type: "quiet" }
  | { type: "quiet_end" }
  | { type: "complete" };

const config = JSON.parse(document.getElementById("fake-config")!.textContent) as PageConfig;
const classic = config.layout === "classic";
const UUID = /^\/(?:g\/[^/]+\/)?c\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/;

const rand = ([min, max]: [number, number]) => min + Math.random() * (max - min);

function report(kind: string, detail: Record<string, unknown> = {}): void {
  void fetch("/__fake/event", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind, detail }),
  });
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

// ---- page state --------------------------------------------------------------------------------------

let conversationId: string | null = UUID.exec(location.pathname)?.[1] ?? null;
let generating = false;
let paused = false; // a tool-approval card holds the turn: no Stop button
let quiet = false; // a mid-turn pause: no Stop, no busy signal, and a send is ignored (AssistantTurn.quietPause)
let stopShown = false;
let turnCount = 0;
let currentAssistant: HTMLElement | null = null;
let currentAbort: AbortController | null = null;
let lastUserText = "";
/** Counts generations (send, resume): a stream left behind by opening another chat ends nothing on this page. */
let stream = 0;

const thread = el("div", { id: "thread" });
const main = el("main", { id: "main" }, thread);
const bottom = el("div", { id: "thread-bottom-container" });
const status = el("div", { role: "status", "aria-live": "polite", class: "sr-only" });
const sidebar = el("nav", { "aria-label": "Chat history", id: "history" });
document.body.append(sidebar, main, bottom, status);

// ---- noise --------------------------------------------------------------------------------------------

document.body.append(
  el("div", { role: "alert", class: "sr-only" }, "Actions refreshed"),
  el("div", { "aria-live": "assertive", class: "sr-only" }, "Dictation is active"),
  el("button", { "aria-label": "Stop", "data-testid": "read-aloud-stop", type: "button" }, "Stop reading"),
  el("div", { "aria-hidden": "true" }, el("button", { "aria-label": "Stop streaming", type: "button" })),
  // A second composer behind a settings panel that is not open.
  el(
    "div",
    { hidden: "", id: "settings-panel" },
    el(
      "form",
      classic ? { "data-type": "unified-composer" } : { "data-chatgpt-composer": "" },
      el("div", { contenteditable: "true", class: "ProseMirror", role: "textbox" }),
    ),
  ),
);
if (config.signedOut) {
  document.body.prepend(
    el(
      "header",
      {},
      el("button", { "data-testid": "login-button", type: "button" }, "Log in"),
      el("button", { "data-testid": "signup-button", type: "button" }, "Sign up for free"),
    ),
  );
}

// ---- composer ---------------------------------------------------------------------------------------------

interface Composer {
  form: HTMLFormElement;
  editor: HTMLDivElement;
  slot: HTMLDivElement;
}

let composer: Composer;
/** The editor's own state; the DOM is only believed after an event told the editor about a change. */
let model = "";
let sendEnabledAt = 0;
let sendTimer: number | undefined;
let acceptingDom = false;
let revertTimer: number | undefined;
let chips = 0;
/** Whether this draft's first edit was reported (bench:e2e times idle → the continuation starting to go in). */
let editReported = false;

function noteEdit(): void {
  if (editReported) return;
  editReported = true;
  report("edit-started", { t: Date.now() });
}

function emptyParagraph(): HTMLParagraphElement {
  const p = el("p", {
    class: "placeholder",
    "data-placeholder": classic ? "Ask anything" : "Ask ChatGPT",
  });
  if (!classic) p.setAttribute("data-empty-paragraph", "true");
  p.append(el("br", { class: "ProseMirror-trailingBreak" }));
  return p;
}

/** The editor text as ProseMirror would serialise it: paragraphs are lines, `<br>` a newline. */
function readEditor(editor: HTMLElement): string {
  const lines: string[] = [];
  for (const block of Array.from(editor.childNodes)) {
    if (block instanceof HTMLElement && block.classList.contains("placeholder") && !block.textContent)
      continue;
    let line = "";
    const walk = (n: Node) => {
      if (n.nodeType === Node.TEXT_NODE) line += n.textContent ?? "";
      else if (n instanceof HTMLBRElement) {
        // A <br> that ends its block only holds the line open (browsers insert one there); it adds no line.
        const trailing = n.classList.contains("ProseMirror-trailingBreak") || n === block.lastChild;
        if (!trailing) line += "\n";
      } else n.childNodes.forEach(walk);
    };
    walk(block);
    lines.push(line);
  }
  return lines.join("\n").replace(/\u00a0/g, " ");
}

function renderEditor(text: string): void {
  acceptingDom = true;
  composer.editor.replaceChildren();
  if (text === "") composer.editor.append(emptyParagraph());
  else
    for (const line of text.split("\n")) {
      const p = el("p");
      if (line) p.append(line);
      else p.append(el("br", { class: "ProseMirror-trailingBreak" }));
      composer.editor.append(p);
    }
  queueMicrotask(() => (acceptingDom = false));
}

function setModel(text: string): void {
  if (text === model) return;
  model = text;
  // Send is briefly disabled after each edit, as on chatgpt.com.
  sendEnabledAt = Date.now() + rand(config.sendDisabledMs);
  clearTimeout(sendTimer);
  sendTimer = window.setTimeout(renderPrimary, Math.max(0, sendEnabledAt - Date.now()) + 1);
  renderPrimary();
}

function primaryKind(): "voice" | "send" | "stop" {
  if (generating && stopShown && !paused && !quiet) return "stop";
  return model.trim() === "" ? "voice" : "send";
}

function renderPrimary(): void {
  const kind = primaryKind();
  // In a quiet pause Send looks usable (enabled), although the page ignores it.
  const disabled = kind === "send" && (Date.now() < sendEnabledAt || (generating && !stopShown && !quiet));
  const current = composer.slot.firstElementChild as HTMLButtonElement | null;
  const label = { voice: "Start voice mode", send: "Send prompt", stop: "Stop streaming" }[kind];
  if (current?.dataset.kind === kind && current.disabled === disabled) return;
  if (classic && current && kind !== "voice" && current.dataset.kind !== "voice") {
    // Classic: the same #composer-submit-button node flips between send-button and stop-button.
    current.dataset.kind = kind;
    current.setAttribute("data-testid", `${kind}-button`);
    current.setAttribute("aria-label", label);
    current.disabled = disabled;
    return;
  }
  let button: HTMLButtonElement;
  if (classic) {
    button =
      kind === "voice"
        ? el("button", { type: "button", "data-testid": "composer-speech-button", "aria-label": label })
        : el("button", {
            type: "button",
            id: "composer-submit-button",
            "data-testid": `${kind}-button`,
            "aria-label": label,
          });
  } else {
    const newLabel = { voice: "Start voice mode", send: "Send", stop: "Stop" }[kind];
    button = el("button", {
      type: "button",
      class: "bg-composer-primary size-token-button-composer rounded-full",
      "aria-label": newLabel,
    });
  }
  button.dataset.kind = kind;
  button.disabled = disabled;
  button.append(document.createElementNS("http://www.w3.org/2000/svg", "svg"));
  button.addEventListener("click", () => onPrimaryClick(button));
  // The 2026 layout replaces the node; observers see a removal and an addition.
  composer.slot.replaceChildren(button);
}

/** A send the page ignored while a turn runs: the draft stays and no user turn appears. */
function ignoredSend(via: "click" | "enter"): void {
  report("send-ignored", { via, t: Date.now(), draftChars: model.length });
}

function onPrimaryClick(button: HTMLButtonElement): void {
  const kind = button.dataset.kind;
  report("click", { control: kind });
  if (kind === "stop") stopGeneration();
  else if (kind === "send" && !button.disabled && !generating) submit();
  else if (kind === "send" && generating) ignoredSend("click");
  else if (kind === "voice") report("voice-mode-opened");
}

function mountComposer(): void {
  const form = el(
    "form",
    classic ? { "data-type": "unified-composer", class: "w-full" } : { "data-chatgpt-composer": "" },
  );
  const decoy = el("textarea", {
    name: "prompt-textarea",
    class: "wcDTda_fallbackTextarea",
    style: "display:none;width:0;height:0",
  });
  const editorAttrs: Record<string, string> = classic
    ? { id: "prompt-textarea", class: "ProseMirror", contenteditable: "true", role: "textbox" }
    : {
        class: "ProseMirror",
        contenteditable: "true",
        role: "textbox",
        "data-composer-markdown": "",
        "aria-label": "Ask ChatGPT",
        "data-virtualkeyboard": "true",
      };
  const editor = el("div", { ...editorAttrs, translate: "no" });
  const slot = el("div", { class: "composer-primary-slot" });
  const dictate = classic
    ? el("button", { type: "button", "aria-label": "Dictate button" })
    : el("button", { type: "button", "aria-label": "Start dictation", "data-start-dictation": "" });
  const stopDictation = el("button", { type: "button", "aria-label": "Stop dictation", hidden: "" });
  form.append(decoy, editor, dictate, stopDictation, slot);
  form.addEventListener("submit", (e) => e.preventDefault());
  const previous = composer as Composer | undefined;
  composer = { form, editor, slot };
  const background = el("div", { id: "composer-background" }, form);
  if (previous) previous.form.parentElement!.replaceWith(background);
  else bottom.append(background);
  model = "";
  renderEditor("");
  renderPrimary();

  editor.addEventListener("input", () => {
    acceptingDom = true;
    setModel(readEditor(editor));
    queueMicrotask(() => (acceptingDom = false));
  });
  // execCommand fires no beforeinput (Input Events spec), only input; the insert itself is synchronous.
  editor.addEventListener("beforeinput", noteEdit);
  editor.addEventListener("input", noteEdit);
  editor.addEventListener("paste", noteEdit);
  editor.addEventListener("paste", onPaste);
  editor.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.shiftKey || e.isComposing) return;
    e.preventDefault();
    // Enter while generating does nothing and keeps the draft.
    if (!generating && model.trim() !== "" && Date.now() >= sendEnabledAt) submit();
    else if (generating && model.trim() !== "") ignoredSend("enter");
  });
  // A DOM change the editor was not told about (no input event) is reverted, as ProseMirror does.
  new MutationObserver(() => {
    if (acceptingDom) return;
    clearTimeout(revertTimer);
    revertTimer = window.setTimeout(() => {
      if (readEditor(editor) !== model) {
        report("editor-reverted");
        renderEditor(model);
      }
    }, 30);
  }).observe(editor, { childList: true, subtree: true, characterData: true });
  decoy.addEventListener("input", () => report("decoy-written"));
}

function onPaste(e: ClipboardEvent): void {
  e.preventDefault();
  const plain = e.clipboardData?.getData("text/plain") ?? "";
  const html = e.clipboardData?.getData("text/html") ?? "";
  if (plain.length > 10_000) {
    // A long paste becomes an attachment chip; the editor stays as it was.
    chips++;
    const chip = el("div", { class: "pasted-chip" }, "Pasted text", el("button", { type: "button" }));
    chip.querySelector("button")!.setAttribute("aria-label", `Remove Pasted text ${chips}`);
    chip.querySelector("button")!.addEventListener("click", () => chip.remove());
    composer.form.prepend(chip);
    report("paste-chip", { length: plain.length });
    return;
  }
  let lines: string[];
  if (html) {
    const doc = new DOMParser().parseFromString(html, "text/html");
    lines = [];
    const blocks = doc.body.querySelectorAll("p, div, li, pre");
    const roots = blocks.length ? Array.from(blocks) : [doc.body];
    for (const b of roots) {
      const pre = /pre-wrap|pre\b/.test(b.getAttribute("style") ?? "") || b.tagName === "PRE";
      let text = "";
      const walk = (n: Node) => {
        if (n.nodeType === Node.TEXT_NODE) text += n.textContent ?? "";
        else if (n instanceof HTMLBRElement || n.nodeName === "BR") text += "\n";
        else n.childNodes.forEach(walk);
      };
      walk(b);
      if (!pre) text = text.replace(/[ \t\r\n]+/g, " ").trim();
      lines.push(...text.split("\n"));
    }
  } else {
    // text/plain: one paragraph per line, blank lines dropped.
    lines = plain.split(/\r?\n/).filter((l) => l.trim() !== "");
  }
  const before = model;
  const joined = lines.join("\n");
  const next = before === "" ? joined : `${before}${joined}`;
  renderEditor(next);
  setModel(next);
}

// ---- turns ------------------------------------------------------------------------------------------

function userTurn(text: string, id: string): HTMLElement {
  turnCount++;
  const body = el("div", { class: "whitespace-pre-wrap" }, text);
  if (classic) {
    return el(
      "section",
      { "data-testid": `conversation-turn-${turnCount}`, "data-turn": "user", "data-turn-id": id },
      el("h5", { class: "sr-only" }, "You said:"),
      el("div", { "data-message-author-role": "user", "data-message-id": id }, body),
    );
  }
  return el(
    "div",
    { "data-turn-key": `t${turnCount}` },
    el("h4", { "data-conversation-role": "user", class: "sr-only" }, "You said:"),
    el(
      "div",
      { "data-content-search-unit-key": `t${turnCount}:0:user`, "data-chatgpt-search-message-ids": id },
      el("div", { "data-user-message-bubble": "" }, body),
    ),
  );
}

interface AssistantParts {
  id: string;
  turn: HTMLElement;
  content: HTMLElement;
  markdown: HTMLElement;
}

function assistantTurn(id: string): AssistantParts {
  turnCount++;
  if (classic) {
    const markdown = el("div", { class: "markdown prose result-streaming" });
    const content = el("div", { "data-message-author-role": "assistant", "data-message-id": id }, markdown);
    const turn = el(
      "section",
      { "data-testid": `conversation-turn-${turnCount}`, "data-turn": "assistant", "data-turn-id": id },
      el("h6", { class: "sr-only" }, "ChatGPT said:"),
      content,
    );
    return { id, turn, content, markdown };
  }
  const markdown = el("div", {
    "data-markdown-text-style": "assistant-message",
    "data-markdown-animated": "",
  });
  const content = el("div", { "data-chatgpt-selection-message-id": id }, markdown);
  const turn = el(
    "div",
    { "data-turn-key": `t${turnCount}` },
    el("h4", { "data-conversation-role": "assistant", class: "sr-only" }, "ChatGPT said:"),
    el(
      "div",
      { "data-content-search-unit-key": `t${turnCount}:0:assistant`, "data-chatgpt-search-message-ids": id },
      content,
    ),
  );
  return { id, turn, content, markdown };
}

const parts = new WeakMap<HTMLElement, AssistantParts>();

function renderMarkdown(markdown: HTMLElement, text: string): void {
  markdown.replaceChildren(
    ...text
      .split(/\n{2,}/)
      .filter((p) => p !== "")
      .map((para) => {
        const p = el("p");
        para.split("\n").forEach((line, i) => {
          if (i > 0) p.append(el("br"));
          p.append(line);
        });
        return p;
      }),
  );
  markdown.dataset.raw = text;
}

function appendDelta(turn: HTMLElement, text: string): void {
  const p = parts.get(turn)!;
  renderMarkdown(p.markdown, (p.markdown.dataset.raw ?? "") + text);
}

function toolRow(turn: HTMLElement, name: string): void {
  const p = parts.get(turn)!;
  p.content.insertBefore(
    el(
      "div",
      { class: "pointer-events-none contents" },
      el("span", { class: "tool-message" }, `Called tool ${name}`),
    ),
    p.markdown,
  );
}

function retryButton(): HTMLButtonElement {
  const b = classic
    ? el("button", { type: "button", "data-testid": "regenerate-thread-error-button", class: "btn" }, "Retry")
    : el("button", { type: "button", class: "btn btn-secondary" }, "Retry");
  b.addEventListener("click", () => {
    report("click", { control: "retry" });
    // What the real Retry does: the last message goes out again (which may duplicate it).
    if (!generating && lastUserText) void send(lastUserText, true);
  });
  return b;
}

function renderError(turn: HTMLElement, shape: ErrorShape, text: string): void {
  const p = parts.get(turn)!;
  if (shape === "card") {
    p.turn.append(
      classic
        ? el(
            "div",
            { class: "border-token-surface-error/15 bg-token-surface-error/5 rounded-2xl px-3 py-3" },
            el("div", { class: "text-token-text-error" }, text),
            retryButton(),
          )
        : el(
            "div",
            { class: "flex w-full items-center justify-between rounded-3xl px-4 py-3" },
            el("div", { class: "text-sm" }, text),
            retryButton(),
          ),
    );
  } else if (shape === "alert") {
    p.turn.append(el("div", { role: "alert" }, text));
  } else if (shape === "markdown") {
    renderMarkdown(p.markdown, text);
  } else {
    const toast = el("div", { "data-testid": "toast-error", class: "toast-root" }, text);
    document.body.append(toast);
    window.setTimeout(() => toast.remove(), 8000);
  }
}

function actionBar(turn: HTMLElement): void {
  const p = parts.get(turn)!;
  const bar = classic
    ? el(
        "div",
        { class: "flex turn-actions" },
        el("button", { type: "button", "data-testid": "copy-turn-action-button", "aria-label": "Copy" }),
        el("button", {
          type: "button",
          "data-testid": "good-response-turn-action-button",
          "aria-label": "Good response",
        }),
        el("button", {
          type: "button",
          "data-testid": "bad-response-turn-action-button",
          "aria-label": "Bad response",
        }),
      )
    : el(
        "div",
        { class: "turn-action-controls" },
        el("button", { type: "button", "aria-label": "Copy" }),
        el("button", { type: "button", "aria-label": "Rate response" }),
        el("button", { type: "button", "aria-label": "Regenerate response" }),
      );
  for (const b of Array.from(bar.querySelectorAll("button")))
    b.addEventListener("click", () => report("click", { control: b.getAttribute("aria-label") }));
  p.turn.append(bar);
}

function finishMarkers(turn: HTMLElement): void {
  const p = parts.get(turn)!;
  p.markdown.classList.remove("result-streaming");
  p.markdown.removeAttribute("data-markdown-animated");
}

/** The streaming marker of the layout back on a turn that goes on after a quiet pause. */
function streamingMarkers(turn: HTMLElement): void {
  const p = parts.get(turn)!;
  if (classic) p.markdown.classList.add("result-streaming");
  else p.markdown.setAttribute("data-markdown-animated", "");
}

function newAssistant(id: string): HTMLElement {
  const p = assistantTurn(id);
  parts.set(p.turn, p);
  thread.append(p.turn);
  return p.turn;
}

// ---- dialogs and notices ------------------------------------------------------------------------------

const WAIT_A_FEW_MINUTES: PageLimit = {
  shape: "modal",
  text: "You've been temporarily limited access to conversations because you're sending too many requests. Please wait a few minutes and try again.",
};
let limitVersion = config.limitVersion;

/** Shows `limit` as a new element in place of any notice shown before (none: takes it away). */
function renderLimit(limit: PageLimit | null): void {
  document.querySelectorAll("[data-fake-limit]").forEach((n) => n.remove());
  if (!limit) return;
  if (limit.shape === "banner") {
    // Above the composer, inside its container; the composer below stays usable.
    const banner = el(
      "div",
      { "data-fake-limit": "", class: "rounded-xl border px-4 py-3 text-sm" },
      el("p", {}, limit.text),
    );
    bottom.prepend(banner);
    return;
  }
  const ok = el("button", { type: "button" }, "Got it");
  const dialog = el(
    "div",
    { role: "dialog", "aria-modal": "true", "data-fake-limit": "" },
    el("h2", {}, "Too many requests"),
    el("p", {}, limit.text),
    ok,
  );
  ok.addEventListener("click", () => {
    report("click", { control: "got-it" });
    dialog.remove();
  });
  document.body.append(dialog);
}

/** Notices a test shows or clears while the page is open (`fake.showLimit`, `fake.clearLimit`); the chat list. */
function pollLimit(): void {
  void fetch("/__fake/control", { cache: "no-store" })
    .then((r) => r.json())
    .then((c: { limitVersion: number; limit: PageLimit | null; chats: Chat[] }) => {
      renderSidebar(c.chats);
      if (c.limitVersion === limitVersion) return;
      limitVersion = c.limitVersion;
      renderLimit(c.limit);
    })
    .catch(() => undefined);
}

// ---- sidebar: opening another chat in the page ---------------------------------------------------------

let listed = "";

function renderSidebar(chats: Chat[]): void {
  const key = JSON.stringify(chats);
  if (key === listed) return;
  listed = key;
  sidebar.replaceChildren(
    ...chats.map((chat) => {
      const link = el("a", { href: `/c/${chat.id}` }, chat.title);
      link.addEventListener("click", (e) => {
        e.preventDefault();
        report("click", { control: "chat-link" });
        openChat(chat.id);
      });
      return link;
    }),
  );
}

/**
 * Opens another chat the way the app does, without loading the page (the URL changes by pushState and the content
 * script stays): the thread is replaced; an answer streaming in the chat left behind goes on at the server.
 */
function openChat(id: string): void {
  if (id === conversationId) return;
  stream++;
  currentAbort?.abort();
  endGeneration();
  thread.replaceChildren();
  turnCount = 0;
  lastUserText = "";
  status.textContent = "";
  model = "";
  renderEditor("");
  renderPrimary();
  conversationId = id;
  setUrl(`/c/${id}`);
  report("chat-opened", { conversationId: id });
  void loadConversation();
}

function approvalCard(turn: HTMLElement, id: string, tool: string): void {
  const confirm = el("button", { type: "button" }, "Confirm");
  const deny = el("button", { type: "button" }, "Deny");
  const card = el(
    "div",
    { class: "rounded-xl border p-4", "data-approval-id": id },
    el("div", {}, `ChatGPT wants to use ${tool} from Orchestrator`),
    el("div", { class: "flex gap-2" }, deny, confirm),
  );
  const decide = (decision: string) => {
    report("click", { control: `approval-${decision}` });
    void fetch("/__fake/approval", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id, decision }),
    });
  };
  confirm.addEventListener("click", () => decide("confirm"));
  deny.addEventListener("click", () => decide("deny"));
  parts.get(turn)!.turn.append(card);
}

// ---- sending and streaming ------------------------------------------------------------------------

function submit(): void {
  const text = model;
  renderEditor("");
  model = "";
  renderPrimary();
  void send(text, false);
}

function setUrl(path: string): void {
  if (location.pathname !== path) history.pushState({}, "", path);
}

async function send(text: string, retry: boolean): Promise<void> {
  lastUserText = text;
  const userId = crypto.randomUUID();
  const shown = retry ? null : userTurn(text, userId);
  if (shown) {
    thread.append(shown);
    report("user-turn-shown", { t: Date.now() });
  }
  editReported = false;
  if (!conversationId) setUrl(`/c/local-chatgpt%3A${crypto.randomUUID()}`);
  generating = true;
  stopShown = false;
  paused = false;
  quiet = false;
  // The live region announces each turn's end once; a new turn starts with nothing announced.
  status.textContent = "";
  renderPrimary();
  const mine = ++stream;
  const stopTimer = window.setTimeout(() => {
    if (mine !== stream) return;
    stopShown = true;
    renderPrimary();
  }, rand(config.stopDelayMs));
  currentAbort = new AbortController();
  try {
    const res = await fetch("/backend-api/f/conversation", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ conversationId, text, retry }),
      signal: currentAbort.signal,
    });
    if (res.status === 429) await refused(res, shown);
    else await consume(res);
  } catch (e) {
    if (!(e instanceof DOMException && e.name === "AbortError"))
      report("stream-failed", { error: String(e) });
  } finally {
    clearTimeout(stopTimer);
    if (mine === stream) endGeneration();
  }
}

/** A message refused under a rate limit: it was not stored, so its turn goes, and the notice shows again. */
async function refused(res: Response, shown: HTMLElement | null): Promise<void> {
  const body = (await res.json()) as { limit?: PageLimit };
  shown?.remove();
  if (!conversationId) setUrl("/");
  report("send-refused", { status: res.status });
  renderLimit(body.limit ?? WAIT_A_FEW_MINUTES);
}

async function resume(): Promise<void> {
  generating = true;
  stopShown = true;
  status.textContent = "";
  renderPrimary();
  const mine = ++stream;
  currentAbort = new AbortController();
  try {
    const res = await fetch("/backend-api/f/conversation/resume", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ conversationId }),
      signal: currentAbort.signal,
    });
    await consume(res);
  } catch (e) {
    if (!(e instanceof DOMException && e.name === "AbortError"))
      report("stream-failed", { error: String(e) });
  } finally {
    if (mine === stream) endGeneration();
  }
}

function endGeneration(): void {
  generating = false;
  paused = false;
  quiet = false;
  stopShown = false;
  currentAbort = null;
  currentAssistant = null;
  renderPrimary();
}

async function consume(res: Response): Promise<void> {
  if (!res.ok || !res.body) {
    report("stream-refused", { status: res.status });
    return;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame.replace(/^data: ?/, "");
      if (data === "[DONE]") {
        // The real page also stops reading after completion (it aborts the read).
        await reader.cancel();
        return;
      }
      handle(JSON.parse(data) as StreamEvent);
    }
  }
}

function handle(ev: StreamEvent): void {
  switch (ev.type) {
    case "accepted":
      if (!conversationId) {
        conversationId = ev.conversationId;
        setUrl(`/c/${ev.conversationId}`);
      }
      if (!currentAssistant) currentAssistant = newAssistant(ev.assistantMessageId);
      break;
    case "title":
      document.title = ev.title;
      break;
    case "delta":
      appendDelta(currentAssistant!, ev.text);
      break;
    case "tool":
      toolRow(currentAssistant!, ev.name);
      break;
    case "approval":
      paused = true;
      approvalCard(currentAssistant!, ev.id, ev.tool);
      renderPrimary();
      break;
    case "approval_resolved":
      paused = false;
      document.querySelector(`[data-approval-id="${ev.id}"]`)?.remove();
      renderPrimary();
      break;
    case "error":
      finishMarkers(currentAssistant!);
      renderError(currentAssistant!, ev.shape, ev.text);
      break;
    case "rate_limit":
      finishMarkers(currentAssistant!);
      currentAssistant!.remove();
      if (ev.limitVersion !== undefined) limitVersion = ev.limitVersion;
      renderLimit(ev.limit ?? WAIT_A_FEW_MINUTES);
      break;
    case "quiet":
      // The answer stops streaming and Stop goes, but the turn has not ended: no action bar, nothing announced.
      quiet = true;
      finishMarkers(currentAssistant!);
      renderPrimary();
      report("quiet-pause", { t: Date.now() });
      break;
    case "quiet_end":
      quiet = false;
      streamingMarkers(currentAssistant!);
      renderPrimary();
      break;
    case "complete":
      finishMarkers(currentAssistant!);
      actionBar(currentAssistant!);
      status.textContent = "Response complete";
      // The page's own end of the turn (action bar and "Response complete" rendered): bench:e2e and the scenarios
      // time resumes from here, in the browser's clock (the same machine's).
      report("turn-finished", {
        t: Date.now(),
        conversationId,
        messageId: parts.get(currentAssistant!)!.id,
        visibility: document.visibilityState,
      });
      break;
  }
}

function stopGeneration(): void {
  void fetch("/__fake/stop", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ conversationId }),
  });
  currentAbort?.abort();
}

// ---- load ---------------------------------------------------------------------------------------------

async function loadConversation(): Promise<void> {
  if (!conversationId) return;
  const res = await fetch(`/backend-api/conversation/${conversationId}`);
  if (!res.ok) {
    report("conversation-not-found", { conversationId });
    return;
  }
  const { turns, active } = (await res.json()) as { turns: StoredTurn[]; active: boolean };
  for (const t of turns) {
    if (t.role === "user") {
      thread.append(userTurn(t.text, t.id));
      lastUserText = t.text;
      continue;
    }
    if (!t.complete) continue; // the live turn is replayed by resume()
    const turn = newAssistant(t.id);
    for (const name of t.tools) toolRow(turn, name);
    renderMarkdown(parts.get(turn)!.markdown, t.text);
    finishMarkers(turn);
    if (t.error) renderError(turn, t.error.shape, t.error.text);
    else actionBar(turn);
  }
  if (active) await resume();
}

// Like the real app, the page holds its session (user, access token) in its own memory.
void fetch("/api/auth/session")
  .then((r) => r.json())
  .then((session: unknown) => Object.assign(window, { __session: session }));
mountComposer();
if (config.hydrationRemountMs !== null) {
  // Hydration replaces the composer once; text inserted before that is lost.
  window.setTimeout(() => {
    report("composer-remounted");
    mountComposer();
  }, config.hydrationRemountMs);
}
if (config.rateLimitOnLoad) renderLimit(WAIT_A_FEW_MINUTES);
if (config.limit) renderLimit(config.limit);
renderSidebar(config.chats);
if (config.controlPollMs !== null) window.setInterval(pollLimit, config.controlPollMs);
if (config.liveRegionTickMs !== null) {
  // The real site rewrites live regions while idle; an observer on the page sees these mutations.
  const ticker = el("div", { "aria-live": "polite", class: "sr-only", id: "live-ticker" });
  document.body.append(ticker);
  let ticks = 0;
  window.setInterval(() => (ticker.textContent = `Updated ${++ticks}`), config.liveRegionTickMs);
}
addEventListener("popstate", () => location.reload());
document.addEventListener("visibilitychange", () =>
  report("visibility", { state: document.visibilityState }),
);
report("page-loaded", {
  path: location.pathname,
  layout: config.layout,
  visibility: document.visibilityState,
});
void loadConversation();
