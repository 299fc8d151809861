// Who may talk to the background (a page is less trusted than the background): a content script of this
// extension, in the top frame of a tab on https://chatgpt.com; or a page of this extension (popup, dashboard,
// options).
import type { MessageSender } from "../lib/browser-api.ts";
import { CHATGPT_ORIGIN, parseUrl } from "../lib/chatgpt-url.ts";

export type SenderCheck =
  | { readonly ok: true; readonly tabId: number; readonly url: string }
  | { readonly ok: false; readonly reason: string };

export function checkContentSender(sender: MessageSender, runtimeId: string): SenderCheck {
  if (sender.id !== runtimeId)
    return { ok: false, reason: `sender id ${String(sender.id)} is not this extension` };
  const tabId = sender.tab?.id;
  if (typeof tabId !== "number" || tabId < 0) return { ok: false, reason: "not sent from a tab" };
  if (sender.frameId !== 0)
    return { ok: false, reason: `sent from frame ${String(sender.frameId)}, not the top frame` };
  const url = sender.url ?? sender.tab?.url;
  if (parseUrl(url)?.origin !== CHATGPT_ORIGIN || url === undefined)
    return { ok: false, reason: `sender URL ${String(url)} is not on ${CHATGPT_ORIGIN}` };
  if (sender.origin !== undefined && sender.origin !== CHATGPT_ORIGIN)
    return { ok: false, reason: `sender origin ${sender.origin} is not ${CHATGPT_ORIGIN}` };
  // The frame's URL is the document's URL when the content script started: Chromium does not update it after
  // the page's own history.pushState (seen in Chromium 156: a tab on /c/<uuid> still sends "/"). The top
  // frame's current URL is the tab's, so that is where the page is now.
  const tabUrl = sender.tab?.url;
  const current = tabUrl !== undefined && parseUrl(tabUrl)?.origin === CHATGPT_ORIGIN ? tabUrl : url;
  return { ok: true, tabId, url: current };
}

/** A message from one of this extension's own pages (no tab, extension URL). */
export function isExtensionPageSender(sender: MessageSender, runtimeId: string, baseUrl: string): boolean {
  return sender.id === runtimeId && sender.tab === undefined && sender.url?.startsWith(baseUrl) === true;
}
