// chatgpt.com URLs: which conversation a tab shows (docs/adapter.md, the reported URL).

export const CHATGPT_ORIGIN = "https://chatgpt.com";
export const NEW_CHAT_URL = `${CHATGPT_ORIGIN}/`;
/** Match pattern of the tabs the extension works in (host permission and content script). */
export const CHATGPT_MATCH = `${CHATGPT_ORIGIN}/*`;

/**
 * A persisted conversation id in `/c/<id>` or `/g/<gpt-or-project>/c/<id>`. Transient routes of a first send
 * (`/c/local-chatgpt:<uuid>`, `/c/WEB:<uuid>`, percent-encoded or not) are not conversations yet.
 */
const CONVERSATION_PATH = /^\/(?:g\/[^/]+\/)?c\/([A-Za-z0-9][A-Za-z0-9-]*)(?:\/|$)/;

export function parseUrl(url: string | undefined): URL | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

export function isChatGptUrl(url: string | undefined): boolean {
  return parseUrl(url)?.origin === CHATGPT_ORIGIN;
}

/** The conversation id of a chatgpt.com URL, or undefined (new chat, transient route, other page or origin). */
export function conversationIdOf(url: string | undefined): string | undefined {
  const u = parseUrl(url);
  if (u?.origin !== CHATGPT_ORIGIN) return undefined;
  const id = CONVERSATION_PATH.exec(u.pathname)?.[1];
  if (id === undefined || /^(local-chatgpt|web)$/i.test(id)) return undefined;
  return id;
}

/** Whether `url` shows exactly the conversation `conversationId`. */
export function showsConversation(url: string | undefined, conversationId: string): boolean {
  return conversationIdOf(url) === conversationId;
}
