// Paging of `ui.response` (docs/host.md: a message to the extension stays under the browser's 1 MB limit, lists
// are paged). An answer too large for one frame is cut into pages once, when it is computed; the executor asks for
// the rest with `nextCursor`, so the pages are one snapshot and together hold every list item exactly once.
import { randomUUID } from "node:crypto";

/** Room kept in each page for the envelope: kind, ok, a request id of up to 200 characters, the cursor. */
const ENVELOPE_BYTES = 4 * 1024;
/** Cut answers kept per connection, oldest dropped first; a dropped cursor is answered with NOT_FOUND. */
const MAX_KEPT = 8;

type Page = Record<string, unknown>;

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "null", "utf8");

/**
 * Cuts an object answer into pages of at most `limit` bytes (with the envelope). Fields that are not arrays repeat
 * on every page; the items of the top-level arrays are spread over the pages in order (the first array's first).
 * Undefined when the answer has no array to cut or a single item cannot fit in a page of its own.
 */
export function cutIntoPages(result: unknown, limit: number): Page[] | undefined {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return undefined;
  const fields = Object.entries(result as Record<string, unknown>);
  const lists = fields.filter((f): f is [string, unknown[]] => Array.isArray(f[1]));
  if (lists.length === 0) return undefined;
  const fresh = (): Page => Object.fromEntries(fields.map(([k, v]) => [k, Array.isArray(v) ? [] : v]));
  const room = limit - ENVELOPE_BYTES - bytes(fresh());
  const pages: Page[] = [];
  let page = fresh();
  let used = 0;
  for (const [key, items] of lists) {
    for (const item of items) {
      const size = bytes(item) + 1; // its comma
      if (size > room) return undefined;
      if (used + size > room) {
        pages.push(page);
        page = fresh();
        used = 0;
      }
      (page[key] as unknown[]).push(item);
      used += size;
    }
  }
  pages.push(page);
  return pages;
}

/** The cut answers of one connection, waiting for their `nextCursor` requests. */
export class PagedAnswers {
  private readonly kept = new Map<string, { op: string; pages: Page[] }>();

  /** Keeps the pages of an answer whose first page goes out now; returns the cursor of the second. */
  keep(op: string, pages: Page[]): string {
    const id = randomUUID();
    this.kept.set(id, { op, pages });
    while (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    return `${id}.1`;
  }

  /** The page a cursor names and the cursor of the one after it; the answer is forgotten once its last page went out. */
  take(op: string, cursor: string): { page: Page; nextCursor?: string } | undefined {
    const [id = "", index = ""] = cursor.split(".");
    const answer = this.kept.get(id);
    const n = Number(index);
    if (!answer || answer.op !== op || !Number.isInteger(n) || n < 1 || n >= answer.pages.length)
      return undefined;
    if (n === answer.pages.length - 1) {
      this.kept.delete(id);
      return { page: answer.pages[n]! };
    }
    return { page: answer.pages[n]!, nextCursor: `${id}.${n + 1}` };
  }
}
