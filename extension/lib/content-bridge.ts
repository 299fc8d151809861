// The content script's glue between the ChatGPT page adapter and runtime messaging: it forwards the adapter's
// coalesced observations to the background and answers the background's ping/submit/status/marker requests. The
// adapter watches the page only while the background says this tab is a worker's (docs/extension.md, "Watching").
import { blockReportFromParse } from "../../shared/continuation-block-report.ts";
import type { ContinuationBlock, ContinuationBlockError } from "../../shared/continuation-block.ts";
import type { ContentApi, MessageSender, SendResponse } from "./browser-api.ts";
import {
  adapterReportSchema,
  backgroundMessageSchema,
  contentHelloReplySchema,
  submitResultSchema,
  type BackgroundMessage,
  type StateReport,
  type SubmitMode,
  type SubmitResult,
  type SubmitStatusReply,
} from "./content-protocol.ts";
import { backoffDelay, type BackoffPolicy } from "./backoff.ts";
import { errorText, type Logger } from "./logger.ts";

/** What the bridge needs of the page adapter (`createChatGptAdapter` in `extension/content/adapter`). */
export interface PageAdapter {
  /** Starts watching the page (observer, poll, reports); again after `stop`, it reads the page afresh. */
  start(): void;
  /** Stops watching: no observer, timer or report until the next `start`. */
  stop(): void;
  /** The latest observation, if any (validated here: the adapter's shape is checked, not trusted). */
  current(): unknown;
  submit(request: AdapterSubmitRequest): Promise<unknown>;
  hasMarker(marker: string): boolean | Promise<boolean>;
  /** The conversation's title (at most 80 characters), if the page names it; checked here, not trusted. */
  conversationTitle?(): unknown;
}

/** The adapter submits a first message of a new chat like any other (`send`); `steer` is its own mode. */
export interface AdapterSubmitRequest {
  text: string;
  marker: string;
  mode: "send" | "steer";
  deadlineAt?: number;
  expectUrl?: string;
}

type SubmitOrder = Extract<BackgroundMessage, { type: "bg.submit" }>;

export interface ContentBridgeOptions {
  readonly api: ContentApi;
  /** Builds the adapter; `onReport` receives its coalesced observations. */
  readonly createAdapter: (onReport: (report: unknown) => void) => PageAdapter;
  readonly location: { readonly href: string };
  readonly log: Logger;
  /** How many finished submissions to remember for `bg.submit-status` (default 50). */
  readonly rememberResults?: number;
  /** How soon a message the background did not answer is sent again (default `RESEND_BACKOFF`). */
  readonly resend?: BackoffPolicy;
}

/**
 * A message the background did not answer (it was restarting, or failed to handle it) is sent again after 1 s, 2 s, …
 * up to a minute: an unwatched page makes no report that would ask again, so without this a worker's tab whose
 * hello went unanswered would stay unwatched until something else told it (a silent wait).
 */
export const RESEND_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000 };

export interface ContentBridge {
  stop(): void;
}

/** The adapter's parsed block, if its report carries a well-formed one (text stays in this page). */
function blockOf(raw: unknown): ContinuationBlock | ContinuationBlockError | undefined {
  const block = (raw as { block?: unknown } | null)?.block;
  if (typeof block !== "object" || block === null) return undefined;
  const b = block as Record<string, unknown>;
  if (b.error === "missing" || b.error === "malformed") return block as ContinuationBlockError;
  const fields = ["status", "summary", "current", "next"];
  return fields.every((f) => typeof b[f] === "string") ? (block as ContinuationBlock) : undefined;
}

/**
 * The report without what only a turn's end carries (the handoff brief, the conversation's length): a page load, a
 * ping or a report other than `idle` is no turn end. (An idle reported again for the same turn, after an error went,
 * carries them again, as it carries the block again.)
 */
function withoutTurnEnd(report: StateReport): StateReport {
  if (report.handoffBrief === undefined && report.visibleChars === undefined) return report;
  const { handoffBrief: _brief, visibleChars: _chars, ...rest } = report;
  return rest;
}

export function startContentBridge(opts: ContentBridgeOptions): ContentBridge {
  const { api, log } = opts;
  const remember = opts.rememberResults ?? 50;
  const inFlight = new Map<string, Promise<SubmitResult>>();
  const done = new Map<string, SubmitResult>();
  let stopped = false;
  /**
   * Whether the adapter watches the page. Only a worker's tab is watched: the background drops every other tab's
   * reports, so an unmanaged tab costs its page no observer, timer or scan. `managed` is what the background said
   * last, in answer to the newest message this page sent (an older answer that arrives later is stale).
   */
  let watching = false;
  let managed = false;
  let asked = 0;
  /** The newest message's resend, while the background has not answered it; and how many tries it has had. */
  let resendTimer: ReturnType<typeof setTimeout> | undefined;
  let unanswered = 0;

  const validReport = (raw: unknown): StateReport | undefined => {
    const parsed = adapterReportSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    log.warn(`adapter report dropped: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    return undefined;
  };

  /** The adapter's settled state, if it watches the page (an unwatched page is not read at all). */
  const currentReport = (): StateReport | undefined => {
    if (!watching) return undefined;
    const raw = adapter.current();
    const report = raw === undefined || raw === null ? undefined : validReport(raw);
    return report && withoutTurnEnd(report);
  };

  /** Watches the page while the background says it is a worker's; a running submission keeps it watched. */
  const follow = (): void => {
    if (stopped) return;
    const want = managed || inFlight.size > 0;
    if (want === watching) return;
    watching = want;
    if (want) adapter.start();
    else adapter.stop();
  };

  /**
   * Sends a message; its answer says whether this tab is a worker's (when it is the newest one sent). Unanswered, the
   * newest message goes again with backoff (`RESEND_BACKOFF`) until an answer comes or a newer message is sent.
   */
  const post = (message: unknown): void => {
    if (stopped) return;
    const id = ++asked;
    clearTimeout(resendTimer);
    resendTimer = undefined;
    const unansweredNow = (why: string): void => {
      if (id !== asked || stopped) return;
      // An extension reloaded under this page has no id any more: no later try can reach a background.
      if (api.runtime.id === undefined) return;
      const delay = backoffDelay(unanswered++, opts.resend ?? RESEND_BACKOFF, Math.random);
      log.warn(`${why}; sent again in ${Math.round(delay / 1000)} s`);
      resendTimer = setTimeout(() => {
        resendTimer = undefined;
        // A newer message (or a submission, which counts as one) supersedes this one.
        if (id === asked) post(message);
      }, delay);
    };
    let sent: Promise<unknown>;
    try {
      sent = api.runtime.sendMessage(message);
    } catch (e) {
      // Chromium throws at once when the extension's context is gone.
      unansweredNow(`message not delivered: ${errorText(e)}`);
      return;
    }
    sent.then(
      (reply: unknown) => {
        const parsed = contentHelloReplySchema.safeParse(reply);
        // No answer: the background failed to handle it (it logged why).
        if (!parsed.success) return unansweredNow("the background did not answer");
        if (id !== asked) return;
        unanswered = 0;
        managed = parsed.data.managed;
        follow();
      },
      // The background restarts (MV3) or the extension was reloaded.
      (e: unknown) => unansweredNow(`message not delivered: ${errorText(e)}`),
    );
  };

  /** The page's own URL goes with every question: the browser's record of the tab's URL can lag a pushState. */
  const hello = () => ({ type: "content.hello", url: opts.location.href.slice(0, 2_000) });

  // Reports leave in the order the adapter made them, even though hashing a block is asynchronous.
  let reports: Promise<void> = Promise.resolve();
  const adapter = opts.createAdapter((raw) => {
    const report = validReport(raw);
    if (!report) return;
    const block = blockOf(raw);
    reports = reports.then(async () => {
      const continuationBlock =
        // Only a turn this page saw end (idle) carries its block: a `ready` page load or a re-read of the same
        // turn must not count as another response for the host's block policy.
        block && report.state === "idle"
          ? await blockReportFromParse(block).catch((e: unknown) => {
              log.warn(`continuation block not reported: ${errorText(e)}`);
              return undefined;
            })
          : undefined;
      post({
        type: "content.state",
        // The brief and the length go with the idle report only, like the block.
        report: {
          ...(report.state === "idle" ? report : withoutTurnEnd(report)),
          ...(continuationBlock ? { continuationBlock } : {}),
        },
      });
    });
  });

  const submitOnce = (order: SubmitOrder) => {
    const { commandId } = order;
    const known = done.get(commandId);
    if (known) return Promise.resolve(known);
    const running = inFlight.get(commandId);
    if (running) return running; // the same command is never submitted twice by this page
    const request: AdapterSubmitRequest = {
      text: order.text,
      marker: order.marker,
      // Whether steering is possible is the page's call (today: STEERING_UNAVAILABLE, nothing typed).
      mode: adapterMode(order.mode),
      ...(order.deadlineAt !== undefined ? { deadlineAt: order.deadlineAt } : {}),
      ...(order.expectUrl !== undefined ? { expectUrl: order.expectUrl } : {}),
    };
    // The background submits only into a worker's tab: the page is watched from now on (the adapter's submission
    // reports what it proves), and a submission keeps it watched until it ends, whatever answer comes meanwhile.
    managed = true;
    asked += 1; // an answer to an earlier message is older than this
    follow();
    const attempt = (async (): Promise<SubmitResult> => {
      try {
        const parsed = submitResultSchema.safeParse(await adapter.submit(request));
        if (parsed.success) return parsed.data;
        return ambiguous(`the adapter answered an invalid result: ${parsed.error.issues[0]?.message ?? "?"}`);
      } catch (e) {
        return ambiguous(`the adapter threw while submitting: ${errorText(e)}`);
      }
    })().then((result) => {
      inFlight.delete(commandId);
      done.set(commandId, result);
      while (done.size > remember) done.delete(done.keys().next().value as string);
      follow();
      return result;
    });
    inFlight.set(commandId, attempt);
    return attempt;
  };

  const answer = async (m: BackgroundMessage): Promise<unknown> => {
    switch (m.type) {
      case "bg.ping": {
        const state = currentReport();
        const title = adapter.conversationTitle?.();
        return {
          ok: true,
          url: opts.location.href.slice(0, 2_000),
          watching,
          ...(state ? { state } : {}),
          ...(typeof title === "string" && title !== "" ? { title: title.slice(0, 80) } : {}),
        };
      }
      case "bg.submit":
        return submitOnce(m);
      case "bg.submit-status": {
        const result = done.get(m.commandId);
        const reply: SubmitStatusReply = result
          ? { status: "done", result }
          : inFlight.has(m.commandId)
            ? { status: "in-flight" }
            : { status: "unknown" };
        return reply;
      }
      case "bg.has-marker":
        return { found: (await adapter.hasMarker(m.marker)) === true };
      case "bg.watch":
        // This tab's binding changed: ask whether it is a worker's now (the answer decides, see `post`).
        post(hello());
        return { ok: true };
    }
  };

  const listener = (message: unknown, sender: MessageSender, sendResponse: SendResponse) => {
    if (sender.id !== api.runtime.id) return undefined;
    const parsed = backgroundMessageSchema.safeParse(message);
    if (!parsed.success) return undefined; // not ours (or malformed): let other listeners answer
    answer(parsed.data).then(sendResponse, (e: unknown) => {
      log.warn(`${parsed.data.type} failed: ${errorText(e)}`);
      sendResponse(undefined);
    });
    return true;
  };

  api.runtime.onMessage.addListener(listener);
  // The answer says whether this tab is a worker's; the adapter starts watching only then (and reports its state).
  post(hello());

  return {
    stop() {
      stopped = true;
      clearTimeout(resendTimer);
      api.runtime.onMessage.removeListener(listener);
      if (watching) adapter.stop();
      watching = false;
    },
  };
}

function adapterMode(mode: SubmitMode): AdapterSubmitRequest["mode"] {
  return mode === "steer" ? "steer" : "send";
}

function ambiguous(detail: string): SubmitResult {
  return { outcome: "failed", errorCode: "AMBIGUOUS_SUBMISSION", detail, phase: "after-click" };
}
