// What scans remember across ticks: node identities (a remounted node is a new node) and the last URL parsed.
import { classifyUrl, type PageUrl } from "./url.ts";

/** Node identities across ticks (a remounted node is a new node even if it looks the same), the last URL. */
export class ScanMemory {
  private readonly ids = new WeakMap<Node, number>();
  private next = 1;
  private url: { href: string; url: PageUrl } | undefined;

  /** `classifyUrl` of the location, parsed again only when its href changed (Location's getters are not cheap). */
  urlOf(loc: Location, href = loc.href): PageUrl {
    if (this.url?.href !== href) this.url = { href, url: classifyUrl(loc) };
    return this.url.url;
  }

  idOf(node: Node): number {
    let id = this.ids.get(node);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(node, id);
    }
    return id;
  }
}
