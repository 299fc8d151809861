// Messages to the background over `runtime.sendMessage`: a health question from an extension page, or a content
// script's hello or state report, which the bindings turn into the worker's observation (tab-keeper.ts). Senders
// are checked and messages validated: a page is less trusted than the background.
import type { ExtensionApi, MessageSender, SendResponse } from "../lib/browser-api.ts";
import { isChatGptUrl } from "../lib/chatgpt-url.ts";
import { contentMessageSchema, pageMessageSchema, type ContentMessage } from "../lib/content-protocol.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import type { ContentChannel } from "./content-channel.ts";
import { checkContentSender, isExtensionPageSender } from "./sender.ts";
import type { TabKeeper } from "./tab-keeper.ts";

export interface RuntimeMessagesDeps {
  readonly api: ExtensionApi;
  readonly log: Logger;
  readonly content: ContentChannel;
  readonly tabs: TabKeeper;
  /** Resolves once recovery is done. */
  readonly ready: () => Promise<void>;
  /** The executor's health, the answer to an extension page's question. */
  readonly health: () => unknown;
}

/** The `runtime.onMessage` listener: true when it will answer asynchronously, undefined when it ignores the message. */
export function onRuntimeMessage(
  deps: RuntimeMessagesDeps,
  message: unknown,
  sender: MessageSender,
  sendResponse: SendResponse,
): true | undefined {
  const { api, log } = deps;
  if (sender.tab === undefined) {
    if (!isExtensionPageSender(sender, api.runtime.id, api.runtime.getURL(""))) return undefined;
    const parsed = pageMessageSchema.safeParse(message);
    if (!parsed.success) return undefined;
    deps.ready().then(
      () => sendResponse(deps.health()),
      () => sendResponse(undefined),
    );
    return true;
  }
  const check = checkContentSender(sender, api.runtime.id);
  if (!check.ok) {
    log.warn(`rejected a message: ${check.reason}`);
    return undefined;
  }
  const parsed = contentMessageSchema.safeParse(message);
  if (!parsed.success) {
    log.warn(
      `dropped an invalid message from tab ${check.tabId}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
    return undefined;
  }
  const m = parsed.data;
  const work = (async () => {
    await deps.ready();
    if (m.type === "content.hello") deps.content.announced(check.tabId);
    const report = m.type === "content.state" ? m.report : undefined;
    const managed = await deps.tabs.fromTab(check.tabId, shownUrl(m, check.url), report);
    return { managed };
  })();
  work.then(sendResponse, (e: unknown) => {
    log.warn(`${m.type} from tab ${check.tabId}: ${errorText(e)}`);
    sendResponse(undefined);
  });
  return true;
}

/**
 * What the page showed when it sent the message: its own reading of its URL, which every message carries. The
 * sender's tab URL is the browser's record, taken when the message left, and can lag a pushState the page made just
 * before (a new chat getting its /c/<id>): judged by it, a worker's page could be told it is no worker's and stop
 * watching for good. The sender's URL stands in only when the page's is missing or not on chatgpt.com.
 */
function shownUrl(m: ContentMessage, senderUrl: string): string {
  const own = m.type === "content.state" ? m.report.url : m.url;
  return own !== undefined && isChatGptUrl(own) ? own : senderUrl;
}
