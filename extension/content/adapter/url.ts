// Conversation URLs (docs/adapter.md, the "URL" paragraph): the persisted `/c/<uuid>` form versus the transient
// routes of a first send (`/c/local-chatgpt:<uuid>`, `/c/WEB:<uuid>`), which are never reported as conversation ids.

const CONVERSATION =
  /^\/(?:g\/[^/]+\/)?c\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/i;
const ANY_CONVERSATION_ROUTE = /^\/(?:g\/[^/]+\/)?c\//;

export type UrlKind = "conversation" | "transient" | "page";

export interface PageUrl {
  kind: UrlKind;
  /** For `conversation`: origin + path up to the uuid. For `page`: origin + path (+ the temporary-chat flag). */
  url: string;
  conversationId?: string;
}

export function classifyUrl(loc: Pick<Location, "origin" | "pathname" | "search">): PageUrl {
  const m = CONVERSATION.exec(loc.pathname);
  if (m) {
    const id = m[1]!.toLowerCase();
    const prefix = loc.pathname.slice(0, m[0].length).replace(/\/$/, "");
    return { kind: "conversation", url: loc.origin + prefix, conversationId: id };
  }
  // `/c/local-chatgpt%3A…`, `/c/WEB:…` and any other non-uuid id under /c/ is a client-side draft route.
  if (ANY_CONVERSATION_ROUTE.test(loc.pathname)) return { kind: "transient", url: loc.origin + loc.pathname };
  const temporary = new URLSearchParams(loc.search).get("temporary-chat") === "true";
  return { kind: "page", url: loc.origin + loc.pathname + (temporary ? "?temporary-chat=true" : "") };
}

export function isLoginPath(pathname: string): boolean {
  return /^\/(auth\/login|log-in)(\/|$)/.test(pathname);
}
