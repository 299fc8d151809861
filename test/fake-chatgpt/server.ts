// The fake https://chatgpt.com: an HTTPS server holding conversations, streaming assistant turns that a per-test
// script plays (text, MCP tool calls over the connector URL, errors, dialogs), and logging everything for tests.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import ts from "typescript";
import { selfSignedCert } from "./cert.ts";
import { ConnectorClient } from "./connector-client.ts";
import { LENGTH_LIMIT_TEXT, LengthLimit, type LengthLimitSettings } from "./length-limit.ts";
import { clearsIn, shownLimit, type LimitNotice, type ShownLimit } from "./limit-notice.ts";

export { LENGTH_LIMIT_TEXT, LENGTH_LIMIT_TEXT_OLD, type LengthLimitSettings } from "./length-limit.ts";
export { formatClock, type LimitNotice } from "./limit-notice.ts";

export type Layout = "classic" | "composer-2026";
export type ErrorShape = "card" | "alert" | "markdown" | "toast";

export interface FakeOptions {
  layout?: Layout;
  /** Stop shows up this long after the send click (on chatgpt.com 100–2000 ms). */
  stopDelayMs?: [number, number];
  /** Send is disabled this long after each edit (on chatgpt.com about 300–500 ms). */
  sendDisabledMs?: [number, number];
  /** The composer is replaced once this long after load (null: never). */
  hydrationRemountMs?: number | null;
  /** A new chat gets its /c/<uuid> this long after the send (the transient local-chatgpt: URL shows meanwhile). */
  acceptDelayMs?: [number, number];
  /** An aria-live region whose text the page changes this often, as chatgpt.com's do while idle (null: never). */
  liveRegionTickMs?: number | null;
  /**
   * How often the page asks this server for scripted notices and the chat list (null: never). It is the fake's own
   * scaffolding, not chatgpt.com's: the idle benchmark turns it off so the page is as quiet as the real one.
   */
  controlPollMs?: number | null;
  /**
   * A conversation holding this many user turns is at its maximum length: the next message into it, and every one
   * after, gets the length-limit notice instead of an answer (null: no limit, the default; `setLengthLimit` per test).
   */
  maxTurnsPerConversation?: number | null;
  /** The words of that notice: `LENGTH_LIMIT_TEXT` (the default) or `LENGTH_LIMIT_TEXT_OLD`. */
  lengthLimitText?: string;
}

export interface LogEntry {
  at: number;
  source: "page" | "server" | "assistant";
  kind: string;
  detail: Record<string, unknown>;
}

/** The page's end of one answer (`turnEnds`). */
export interface PageTurnEnd {
  /** When the page rendered the action bar and "Response complete" (epoch ms). */
  t: number;
  conversationId: string;
  messageId: string;
  visibility: DocumentVisibilityState;
}

export interface UserMessage {
  conversationId: string;
  text: string;
  /** false when a delivery timeout lost it (the transcript does not have it). */
  stored: boolean;
  /** Sent by the page's Retry button. */
  retry: boolean;
  at: number;
}

interface StoredTurn {
  role: "user" | "assistant";
  id: string;
  text: string;
  tools: string[];
  error: { shape: ErrorShape; text: string } | null;
  complete: boolean;
}

type StreamEvent = Record<string, unknown> & { type: string };

interface LiveTurn {
  readonly events: StreamEvent[];
  readonly listeners: Set<ServerResponse>;
  done: boolean;
  stopped: boolean;
}

interface Conversation {
  readonly id: string;
  readonly turns: StoredTurn[];
  live: LiveTurn | null;
  workerId: string | null;
  runId: string | null;
  /** The title the page shows (sidebar, tab title), named after the first message as ChatGPT names a new chat. */
  title?: string;
}

export type Assistant = (turn: AssistantTurn) => Promise<void>;

/** What the page's script and the server share about each page load; changed per test. */
interface PageSettings {
  layout: Layout;
  signedOut: boolean;
  rateLimitOnLoad: boolean;
}

const PAGE_SCRIPT = join(import.meta.dirname, "page", "app.ts");
const CSS = `
body{font:14px sans-serif;margin:0}#thread{padding:8px}button{min-width:24px;min-height:24px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
[hidden]{display:none!important}.ProseMirror{min-height:24px;border:1px solid #ccc;padding:4px}
[role=dialog]{position:fixed;inset:20% 20% auto 20%;background:#fff;border:1px solid #000;padding:16px}
`;

/** The words of ChatGPT's generic failure card (shown with Retry in the newest answer). */
export const SOMETHING_WENT_WRONG =
  "Something went wrong. If this issue persists please contact us through our help center at help.openai.com.";

export const DEFAULT_ANSWER =
  "Done with this step.\n\nstatus: working\nsummary: step done\ncurrent: -\nnext: more";

/** The default script: one short streamed answer that ends the turn. */
export const defaultAssistant: Assistant = async (turn) => {
  await turn.say(DEFAULT_ANSWER);
};

export class FakeChatGPT {
  readonly log: LogEntry[] = [];
  readonly userMessages: UserMessage[] = [];
  readonly conversations = new Map<string, Conversation>();
  readonly scriptErrors: string[] = [];
  readonly page: PageSettings = { layout: "classic", signedOut: false, rateLimitOnLoad: false };
  /** The signed-in session's cookie and access token, as chatgpt.com hands them out; nothing may store them. */
  readonly secrets = {
    sessionCookie: `fake-session-${randomUUID()}`,
    accessToken: `fake-access-${randomUUID()}`,
  };
  private assistant: Assistant = defaultAssistant;
  private connector: ConnectorClient | null = null;
  private readonly approvals = new Map<string, (decision: string) => void>();
  private readonly script: string;
  private readonly scripts = new Set<Promise<void>>();
  /** The rate-limit or usage-cap notice shown now (`showLimit`), if any. */
  private limit: ShownLimit | null = null;
  /** Counts every change of the notice: open pages poll `/__fake/control` and render it again when it moved. */
  private limitChanges = 0;
  /** Which conversations are at their maximum length (`maxTurnsPerConversation`, `conversationTooLong`). */
  private readonly lengthLimit: LengthLimit;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly options: Required<FakeOptions>,
  ) {
    this.page.layout = options.layout;
    this.lengthLimit = new LengthLimit({
      maxTurnsPerConversation: options.maxTurnsPerConversation,
      text: options.lengthLimitText,
    });
    this.script = ts.transpileModule(readFileSync(PAGE_SCRIPT, "utf8"), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
  }

  static async start(options: FakeOptions = {}): Promise<FakeChatGPT> {
    const { cert, key } = selfSignedCert();
    const full: Required<FakeOptions> = {
      layout: "classic",
      stopDelayMs: [100, 2000],
      sendDisabledMs: [300, 500],
      hydrationRemountMs: 700,
      acceptDelayMs: [150, 600],
      liveRegionTickMs: null,
      controlPollMs: 300,
      maxTurnsPerConversation: null,
      lengthLimitText: LENGTH_LIMIT_TEXT,
      ...options,
    };
    const holder: { fake?: FakeChatGPT } = {};
    const server = createServer({ cert, key }, (req, res) => {
      const fake = holder.fake!;
      fake.route(req, res).catch((e: unknown) => {
        fake.record("server", "route-failed", { url: req.url, error: String(e) });
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    holder.fake = new FakeChatGPT(server, (server.address() as AddressInfo).port, full);
    return holder.fake;
  }

  /** The script that plays the assistant from the next turn on. */
  setAssistant(assistant: Assistant): void {
    this.assistant = assistant;
  }

  /** The MCP connector URL (`http://127.0.0.1:<port>/mcp/<token>`) the assistant's tool calls go to. */
  setConnectorUrl(url: string): void {
    if (this.connector?.url === url) return;
    void this.connector?.close();
    this.connector = new ConnectorClient(url);
  }

  get connectorClient(): ConnectorClient {
    if (!this.connector) throw new Error("the fake assistant has no connector URL (setConnectorUrl)");
    return this.connector;
  }

  record(source: LogEntry["source"], kind: string, detail: Record<string, unknown> = {}): void {
    this.log.push({ at: Date.now(), source, kind, detail });
  }

  /** Clicks the page reported on a control (`retry`, `stop`, `got-it`, `approval-confirm`, `voice`, …). */
  clicks(control: string): number {
    return this.log.filter((e) => e.source === "page" && e.kind === "click" && e.detail.control === control)
      .length;
  }

  /** User messages stored more than once in the same conversation (each orchestrator prompt is unique). */
  duplicateUserMessages(): number {
    const seen = new Set<string>();
    let dup = 0;
    for (const m of this.userMessages) {
      if (!m.stored) continue;
      const key = `${m.conversationId}\n${m.text}`;
      if (seen.has(key)) dup++;
      seen.add(key);
    }
    return dup;
  }

  /** Stored user messages, optionally of one conversation. */
  stored(conversationId?: string): UserMessage[] {
    return this.userMessages.filter(
      (m) => m.stored && (conversationId === undefined || m.conversationId === conversationId),
    );
  }

  formatLog(): string {
    const t0 = this.log[0]?.at ?? 0;
    return this.log
      .map(
        (e) =>
          `+${String(e.at - t0).padStart(6)}ms ${e.source.padEnd(9)} ${e.kind} ${JSON.stringify(e.detail)}`,
      )
      .join("\n");
  }

  /** Forgets the logs and counters (not the conversations) so a test counts only its own events. */
  reset(): void {
    this.log.length = 0;
    this.userMessages.length = 0;
    this.scriptErrors.length = 0;
    this.page.signedOut = false;
    this.page.rateLimitOnLoad = false;
    this.assistant = defaultAssistant;
    this.lengthLimit.reset();
    if (this.limit) {
      this.limit = null;
      this.limitChanges++;
    }
  }

  /**
   * Shows a rate-limit or usage-cap notice on every open page at once and on every page loaded later, until
   * `clearLimit()` (a modal also goes from later loads once a person clicks Got it). With `refuseSends`, the server
   * refuses new messages meanwhile: HTTP 429, nothing stored, and the page takes the turn back and shows it again.
   */
  showLimit(notice: LimitNotice): void {
    this.limit = shownLimit(notice);
    this.limitChanges++;
    this.record("server", "limit-shown", { ...this.limit.page, refuseSends: this.limit.refuseSends });
  }

  /** Takes the notice away from every open page and stops refusing sends. */
  clearLimit(): void {
    if (!this.limit) return;
    this.limit = null;
    this.limitChanges++;
    this.record("server", "limit-cleared");
  }

  /**
   * From now on a conversation holding `maxTurnsPerConversation` user turns is at its maximum length (null: no limit):
   * the next message into it is stored but answered with the length-limit notice (`text`), and so is every later one.
   * A new chat starts from zero. `reset()` restores the start options.
   */
  setLengthLimit(settings: LengthLimitSettings): void {
    this.lengthLimit.set(settings);
  }

  /** The conversation is at its maximum length now: its next message, and every later one, gets the notice. */
  conversationTooLong(conversationId: string): void {
    this.lengthLimit.markFull(conversationId);
    this.record("server", "conversation-too-long", { conversationId });
  }

  /** Messages answered with the length-limit notice (each was stored, none was answered). */
  tooLongSends(): number {
    return this.log.filter((e) => e.source === "server" && e.kind === "length-limit").length;
  }

  /** Sends a page ignored because a turn was running (a click on Send or Enter; the draft stayed, nothing went out). */
  ignoredSends(): LogEntry[] {
    return this.log.filter((e) => e.source === "page" && e.kind === "send-ignored");
  }

  /**
   * The page's own ends of turns: when an answer's action bar and "Response complete" were rendered, in the page's
   * clock (`t`), once per answer (the first page to render it; a second tab on the same conversation renders it too).
   */
  turnEnds(conversationId?: string): PageTurnEnd[] {
    const seen = new Set<string>();
    const out: PageTurnEnd[] = [];
    for (const e of this.log) {
      if (e.source !== "page" || e.kind !== "turn-finished") continue;
      const end = e.detail as unknown as PageTurnEnd;
      if (seen.has(end.messageId) || (conversationId !== undefined && end.conversationId !== conversationId))
        continue;
      seen.add(end.messageId);
      out.push(end);
    }
    return out.sort((a, b) => a.t - b.t);
  }

  /**
   * A conversation with one finished exchange that no orchestrator prompt started (a person's other chat): its
   * messages are in the transcript but not in `userMessages`. Returns its id.
   */
  seedConversation(): string {
    const id = randomUUID();
    const turn = (role: StoredTurn["role"], text: string): StoredTurn => {
      return { role, id: randomUUID(), text, tools: [], error: null, complete: true };
    };
    const turns = [
      turn("user", "What is a monad?"),
      turn("assistant", "A monoid in the category of endofunctors."),
    ];
    this.conversations.set(id, { id, turns, live: null, workerId: null, runId: null });
    return id;
  }

  /** Messages the server refused while a notice with `refuseSends` showed (none of them was stored). */
  refusedSends(): number {
    return this.log.filter((e) => e.source === "server" && e.kind === "send-refused").length;
  }

  /** How many times the notice changed (the pages' polls compare it). */
  get limitVersion(): number {
    return this.limitChanges;
  }

  /** Resolves when every running assistant script has finished. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.scripts]);
  }

  async close(): Promise<void> {
    for (const c of this.conversations.values()) for (const res of c.live?.listeners ?? []) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.connector?.close();
  }

  // ---- HTTP ------------------------------------------------------------------------------------------

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://chatgpt.com");
    const path = url.pathname;
    if (req.method === "GET" && path === "/cdn/assets/app.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" });
      res.end(this.script);
      return;
    }
    if (req.method === "GET" && path === "/api/auth/session") {
      this.json(
        res,
        200,
        this.page.signedOut
          ? {}
          : { user: { id: "user-fake", name: "Test User" }, accessToken: this.secrets.accessToken },
      );
      return;
    }
    if (req.method === "POST" && path === "/__fake/event") {
      const body = (await readJson(req)) as { kind: string; detail: Record<string, unknown> };
      this.record("page", body.kind, body.detail ?? {});
      if (body.kind === "click" && body.detail?.control === "got-it" && this.limit)
        this.limit.dismissed = true;
      this.json(res, 204, null);
      return;
    }
    if (req.method === "POST" && path === "/__fake/approval") {
      const { id, decision } = (await readJson(req)) as { id: string; decision: string };
      this.approvals.get(id)?.(decision);
      this.json(res, 204, null);
      return;
    }
    if (req.method === "GET" && path === "/__fake/control") {
      // Polled by every open page (short requests: a held stream per tab would use up the browser's six connections).
      this.json(res, 200, {
        limitVersion: this.limitVersion,
        limit: this.displayedLimit(),
        chats: this.chats(),
      });
      return;
    }
    if (req.method === "POST" && path === "/__fake/stop") {
      const { conversationId } = (await readJson(req)) as { conversationId: string | null };
      const live = conversationId ? this.conversations.get(conversationId)?.live : undefined;
      if (live) live.stopped = true;
      this.json(res, 204, null);
      return;
    }
    if (req.method === "GET" && path.startsWith("/backend-api/conversation/")) {
      const c = this.conversations.get(path.slice("/backend-api/conversation/".length));
      if (!c) this.json(res, 404, { detail: "Conversation not found" });
      else this.json(res, 200, { turns: c.turns, active: c.live !== null && !c.live.done });
      return;
    }
    if (req.method === "POST" && path === "/backend-api/f/conversation") {
      await this.startTurn(req, res);
      return;
    }
    if (req.method === "POST" && path === "/backend-api/f/conversation/resume") {
      const { conversationId } = (await readJson(req)) as { conversationId: string };
      const live = this.conversations.get(conversationId)?.live;
      this.openStream(res);
      if (!live) {
        res.end("data: [DONE]\n\n");
        return;
      }
      for (const ev of live.events) res.write(`data: ${JSON.stringify(ev)}\n\n`);
      if (live.done) res.end("data: [DONE]\n\n");
      else {
        live.listeners.add(res);
        res.on("close", () => live.listeners.delete(res));
      }
      return;
    }
    if (req.method === "GET" && !path.startsWith("/backend-api/") && !path.startsWith("/__fake/")) {
      if (path === "/favicon.ico") {
        res.writeHead(404).end();
        return;
      }
      this.record("server", "page-served", {
        path,
        layout: this.page.layout,
        signedOut: this.page.signedOut,
      });
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        ...(this.page.signedOut
          ? {}
          : {
              "set-cookie": `__Secure-next-auth.session-token=${this.secrets.sessionCookie}; Path=/; Secure; HttpOnly; SameSite=Lax`,
            }),
      });
      res.end(this.html());
      return;
    }
    this.json(res, 404, { detail: "Not found" });
  }

  private html(): string {
    const config = {
      layout: this.page.layout,
      signedOut: this.page.signedOut,
      stopDelayMs: this.options.stopDelayMs,
      sendDisabledMs: this.options.sendDisabledMs,
      hydrationRemountMs: this.options.hydrationRemountMs,
      liveRegionTickMs: this.options.liveRegionTickMs,
      controlPollMs: this.options.controlPollMs,
      rateLimitOnLoad: this.page.rateLimitOnLoad,
      limit: this.displayedLimit(),
      limitVersion: this.limitVersion,
      chats: this.chats(),
    };
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ChatGPT</title><style>${CSS}</style></head><body><script type="application/json" id="fake-config">${JSON.stringify(config)}</script><script type="module" src="/cdn/assets/app.js"></script></body></html>`;
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    if (status === 204) {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  private openStream(res: ServerResponse): void {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    res.flushHeaders();
  }

  private async startTurn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJson(req)) as { conversationId: string | null; text: string; retry?: boolean };
    if (this.page.signedOut) {
      this.json(res, 401, { detail: "Unauthorized" });
      return;
    }
    let conversation = body.conversationId ? this.conversations.get(body.conversationId) : undefined;
    if (body.conversationId && !conversation) {
      this.json(res, 404, { detail: "Conversation not found" });
      return;
    }
    if (conversation?.live && !conversation.live.done) {
      this.record("server", "refused-while-generating", { conversationId: conversation.id });
      this.json(res, 409, { detail: "A response is already in progress" });
      return;
    }
    if (this.limit?.refuseSends) {
      this.record("server", "send-refused", {
        conversationId: conversation?.id ?? null,
        head: body.text.slice(0, 60),
      });
      const detail = { message: this.limit.page.text, clears_in: clearsIn(this.limit, Date.now()) };
      this.json(res, 429, { detail, limit: this.limit.page });
      return;
    }
    const isNew = !conversation;
    // At its maximum length (counted before this message): stored like any message, but no answer comes.
    const tooLong =
      conversation !== undefined &&
      this.lengthLimit.reached(conversation.id, conversation.turns.filter((t) => t.role === "user").length);
    conversation ??= { id: randomUUID(), turns: [], live: null, workerId: null, runId: null };
    this.conversations.set(conversation.id, conversation);
    conversation.workerId ??= /workerId "([^"]+)"/.exec(body.text)?.[1] ?? null;
    conversation.runId ??= /runId "([^"]+)"/.exec(body.text)?.[1] ?? null;
    // A person's chat is titled after its first message; one the orchestrator opened, "Orchestrated work".
    if (isNew && !conversation.workerId) conversation.title = firstWords(body.text);
    const message: UserMessage = {
      conversationId: conversation.id,
      text: body.text,
      stored: true,
      retry: body.retry === true,
      at: Date.now(),
    };
    this.userMessages.push(message);
    const userTurn: StoredTurn = {
      role: "user",
      id: randomUUID(),
      text: body.text,
      tools: [],
      error: null,
      complete: true,
    };
    if (!body.retry) conversation.turns.push(userTurn);
    this.record("server", "user-message", {
      conversationId: conversation.id,
      retry: message.retry,
      chars: body.text.length,
      head: body.text.slice(0, 60),
    });
    const answer: StoredTurn = {
      role: "assistant",
      id: randomUUID(),
      text: "",
      tools: [],
      error: null,
      complete: false,
    };
    conversation.turns.push(answer);
    const live: LiveTurn = { events: [], listeners: new Set([res]), done: false, stopped: false };
    conversation.live = live;
    this.openStream(res);
    res.on("close", () => live.listeners.delete(res));
    const turn = new AssistantTurn(this, conversation, live, answer, message, userTurn);
    const run = (async () => {
      if (isNew) await delay(rand(this.options.acceptDelayMs));
      turn.emit({
        type: "accepted",
        conversationId: conversation.id,
        userMessageId: userTurn.id,
        assistantMessageId: answer.id,
      });
      try {
        if (tooLong) turn.lengthLimit(this.lengthLimit.text);
        else await this.assistant(turn);
      } catch (e) {
        this.scriptErrors.push(String(e));
        this.record("assistant", "script-failed", { error: String(e) });
        if (!turn.ended) turn.end({ type: "error", shape: "card", text: "Something went wrong." });
      }
      if (!turn.ended) turn.end({ type: "complete" });
      if (isNew) turn.emit({ type: "title", title: titleOf(conversation) });
    })();
    this.scripts.add(run);
    void run.finally(() => this.scripts.delete(run));
  }

  /** The sidebar's chat list, newest first. */
  private chats(): { id: string; title: string }[] {
    return [...this.conversations.values()].reverse().map((c) => ({ id: c.id, title: titleOf(c) }));
  }

  /** The notice a page loaded now shows. */
  private displayedLimit(): ShownLimit["page"] | null {
    return this.limit && !this.limit.dismissed ? this.limit.page : null;
  }

  waitApproval(id: string): Promise<string> {
    return new Promise((resolve) =>
      this.approvals.set(id, (decision) => {
        this.approvals.delete(id);
        resolve(decision);
      }),
    );
  }
}

/** One assistant turn, as the per-test script sees it. */
export class AssistantTurn {
  ended = false;
  /** The conversation's user messages so far, this one included (1 = the first message; Retries not counted). */
  readonly index: number;

  constructor(
    private readonly fake: FakeChatGPT,
    private readonly conversation: Conversation,
    private readonly live: LiveTurn,
    private readonly answer: StoredTurn,
    private readonly message: UserMessage,
    private readonly userTurn: StoredTurn,
  ) {
    // Every message the conversation received, lost ones included (a delivery timeout can drop one).
    this.index = fake.userMessages.filter((m) => m.conversationId === conversation.id && !m.retry).length;
  }

  get text(): string {
    return this.message.text;
  }
  get conversationId(): string {
    return this.conversation.id;
  }
  /** The worker id named in the conversation's first prompt (the bootstrap prompt names it). */
  get workerId(): string {
    if (!this.conversation.workerId) throw new Error("no workerId in this conversation's first prompt");
    return this.conversation.workerId;
  }
  /** The run id named in the conversation's first prompt. */
  get runId(): string {
    if (!this.conversation.runId) throw new Error("no runId in this conversation's first prompt");
    return this.conversation.runId;
  }
  get stopped(): boolean {
    return this.live.stopped;
  }

  emit(ev: StreamEvent): void {
    this.live.events.push(ev);
    for (const res of this.live.listeners) res.write(`data: ${JSON.stringify(ev)}\n\n`);
  }

  /** Streams `text` in `chunks` irregular slices. */
  async say(text: string, { chunks = 3, gapMs = 40 } = {}): Promise<void> {
    const size = Math.max(1, Math.ceil(text.length / chunks));
    for (let i = 0; i < text.length && !this.live.stopped; i += size) {
      const piece = text.slice(i, i + size);
      this.answer.text += piece;
      this.emit({ type: "delta", text: piece });
      await delay(gapMs);
    }
  }

  /** Calls an orchestrator tool over the connector URL, like ChatGPT does, and shows a tool row. */
  async tool<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
    this.answer.tools.push(name);
    this.emit({ type: "tool", name });
    const result = await this.fake.connectorClient.call(name, args);
    this.fake.record("assistant", "tool", { name, isError: result.isError, text: result.text.slice(0, 200) });
    if (result.isError) throw new Error(`${name} failed: ${result.text}`);
    return result.structured as T;
  }

  wait(ms: number): Promise<void> {
    return delay(ms);
  }

  /**
   * A pause in the middle of the turn with no Stop button and no busy signal (the answer stops streaming; no action
   * bar, nothing announced): Send is enabled as soon as there is a draft, but the page ignores a click on it or Enter
   * (the draft stays, no user turn), the way an independent imitation of chatgpt.com behaves. The turn goes on after
   * `until` (milliseconds, or a promise the test resolves). A page loaded meanwhile shows the same pause.
   */
  async quietPause(until: number | Promise<void>): Promise<void> {
    this.emit({ type: "quiet" });
    this.fake.record("assistant", "quiet-pause", { conversationId: this.conversation.id });
    await (typeof until === "number" ? delay(until) : until);
    this.emit({ type: "quiet_end" });
    this.fake.record("assistant", "quiet-pause-ended", { conversationId: this.conversation.id });
  }

  /** Shows a tool-approval card (the turn pauses, no Stop) until a person clicks Confirm or Deny. */
  async approval(tool: string): Promise<string> {
    const id = randomUUID();
    this.emit({ type: "approval", id, tool });
    this.fake.record("assistant", "approval-shown", { tool });
    const decision = await this.fake.waitApproval(id);
    this.emit({ type: "approval_resolved", id });
    return decision;
  }

  /** Ends the turn with an error in one of its shapes. */
  fail(text: string, shape: ErrorShape = "card"): void {
    this.answer.error = { shape, text };
    this.fake.record("assistant", "error", { shape, text });
    this.end({ type: "error", shape, text });
  }

  /** "Message delivery timed out. Please try again." with Retry; `stored: false` loses the user message. */
  deliveryTimeout({ stored }: { stored: boolean }): void {
    if (!stored) {
      this.message.stored = false;
      const i = this.conversation.turns.indexOf(this.userTurn);
      if (i >= 0) this.conversation.turns.splice(i, 1);
    }
    this.fail("Message delivery timed out. Please try again.");
  }

  /** ChatGPT's generic failure card with Retry in this answer; the composer stays usable. */
  somethingWentWrong(): void {
    this.fail(SOMETHING_WENT_WRONG, "card");
  }

  /**
   * The conversation is at its maximum length: the notice in this turn instead of an answer (the layout's error card,
   * with its Retry, which sends the message again and gets the notice again). The server calls it, not a script.
   */
  lengthLimit(text: string): void {
    this.fake.record("server", "length-limit", {
      conversationId: this.conversation.id,
      head: this.message.text.slice(0, 60),
    });
    this.fail(text, "card");
  }

  /**
   * A rate-limit notice instead of an answer: by default the "Too many requests … Got it" dialog, shown on this page
   * only and refusing nothing. With `notice`, that notice as `fake.showLimit` shows it (kept until `clearLimit`).
   */
  rateLimit(notice?: LimitNotice): void {
    const i = this.conversation.turns.indexOf(this.answer);
    if (i >= 0) this.conversation.turns.splice(i, 1);
    if (notice) this.fake.showLimit(notice);
    // With the version, the page's next poll does not show the same notice again as a new element.
    const shown = notice ? { limit: shownLimit(notice).page, limitVersion: this.fake.limitVersion } : {};
    this.end({ type: "rate_limit", ...shown });
  }

  end(last: StreamEvent): void {
    this.ended = true;
    this.answer.complete = true;
    this.emit(last);
    this.live.done = true;
    for (const res of this.live.listeners) res.end("data: [DONE]\n\n");
    this.live.listeners.clear();
    this.fake.record("assistant", "turn-ended", { conversationId: this.conversation.id, type: last.type });
  }
}

function rand([min, max]: [number, number]): number {
  return min + Math.random() * (max - min);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

/** The title a conversation shows: its own, else "Orchestrated work" or "Another chat" (seeded ones). */
function titleOf(c: Conversation): string {
  return c.title ?? (c.workerId ? "Orchestrated work" : "Another chat");
}

/** A title made from a first message: its first sentence, at most six words. */
function firstWords(text: string): string {
  const sentence = text.trim().split(/[.!?\n]/)[0] ?? "";
  return sentence
    .split(/\s+/)
    .slice(0, 6)
    .join(" ")
    .replace(/[,;:]+$/, "");
}
