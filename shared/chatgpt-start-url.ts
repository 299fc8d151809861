// Where a new conversation may start besides the plain new chat: a Custom GPT's or a project's page on chatgpt.com
// (docs/adapter.md). Checked by the host when a worker is spawned and again by the extension before it
// opens the tab, so nothing else is ever opened for a command.

/** `/g/g-<id>-<slug>` (a GPT) or `/g/g-p-<hex>-<slug>/project` (a project), optionally with a trailing slash. */
const START_PATH = /^\/g\/g-[A-Za-z0-9][A-Za-z0-9-]*(?:\/project)?\/?$/;

/** Whether `url` is a chatgpt.com GPT or project page a new conversation can be started from. */
export function isChatGptStartUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return (
    u.origin === "https://chatgpt.com" &&
    u.username === "" &&
    u.password === "" &&
    START_PATH.test(u.pathname)
  );
}

/**
 * The GPT or project page a conversation URL lies in (`/g/g-…/c/<id>` → `/g/g-…`, a project's → `…/project`), or
 * undefined for a plain chat: a worker that moves on opens its new conversation where the old one was.
 */
export function startUrlOfConversation(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const m = /^\/g\/(g-[A-Za-z0-9][A-Za-z0-9-]*)\/c\//.exec(u.pathname);
  if (u.origin !== "https://chatgpt.com" || !m) return undefined;
  const gizmo = m[1]!;
  return `https://chatgpt.com/g/${gizmo}${gizmo.startsWith("g-p-") ? "/project" : ""}`;
}
