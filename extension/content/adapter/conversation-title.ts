// The conversation's title as chatgpt.com shows it, to name the worker that adopts it: the sidebar's entry of this
// conversation (the active history item), else the tab's title. A name only: one line of at most 80 characters,
// never transcript text (docs/privacy.md); it leaves the page in the ping reply of the tab that is being adopted.
import { conversationIdOf } from "../../lib/chatgpt-url.ts";

/** The longest title read: it becomes a worker's name, and a name is a short line. */
export const TITLE_MAX = 80;
/** The tab title's product suffix: "<title> | ChatGPT", "<title> - ChatGPT" (also en/em dashes). */
const PRODUCT_SUFFIX = /\s+[|\-–—]\s+ChatGPT$/u;
/** What the page shows for a conversation not named yet: not a title. */
const UNTITLED = new Set(["chatgpt", "new chat"]);

/** One line of at most TITLE_MAX characters (cut after a word), or undefined when nothing is left or untitled. */
function asName(text: string | null | undefined): string | undefined {
  const line = (text ?? "").replace(/\s+/gu, " ").trim();
  if (line === "" || UNTITLED.has(line.toLowerCase())) return undefined;
  if (line.length <= TITLE_MAX) return line;
  const cut = line.slice(0, TITLE_MAX - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > 0 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The title in a tab title: "<title> | ChatGPT", "<title> - ChatGPT" or "<title>"; plain "ChatGPT" has none. */
export function titleOfDocumentTitle(text: string): string | undefined {
  return asName(text.trim().replace(PRODUCT_SUFFIX, ""));
}

/** The visible name inside a sidebar link: its title element if it has one, else its text without its buttons. */
function linkText(link: Element): string | undefined {
  const labelled = link.querySelector('[dir="auto"], .truncate');
  if (labelled?.textContent) return labelled.textContent;
  const copy = link.cloneNode(true) as Element;
  for (const control of copy.querySelectorAll("button, svg, [aria-hidden='true']")) control.remove();
  return copy.textContent ?? undefined;
}

/** Whether a link's href is this conversation's (`/c/<id>`, also `/g/<project>/c/<id>`, relative or absolute). */
function linksTo(link: Element, conversationId: string, origin: string): boolean {
  const href = link.getAttribute("href");
  if (href === null) return false;
  try {
    return conversationIdOf(new URL(href, origin).href) === conversationId;
  } catch {
    return false; // an href that is no URL at all links nowhere
  }
}

/**
 * The title of the conversation `href` shows (`https://chatgpt.com/…/c/<id>`), or undefined when the page does not
 * name it: the sidebar's active history item (`nav a[aria-current="page"]`), else its `a[href="/c/<id>"]` entry,
 * else `document.title` without the " | ChatGPT" suffix.
 */
export function conversationTitle(doc: Document, href: string): string | undefined {
  const id = conversationIdOf(href);
  if (id === undefined) return undefined;
  const origin = new URL(href).origin;
  const links = [
    ...doc.querySelectorAll('nav a[aria-current="page"]'),
    // Ids are letters, digits and dashes (conversationIdOf): safe inside the quoted attribute value.
    ...doc.querySelectorAll(`a[href*="/c/${id}"]`),
  ].filter((link) => linksTo(link, id, origin));
  for (const link of links) {
    const title = asName(linkText(link));
    if (title !== undefined) return title;
  }
  return titleOfDocumentTitle(doc.title);
}
