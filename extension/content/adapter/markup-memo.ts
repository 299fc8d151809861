// Whether an element itself is hidden by markup (`hiddenByMarkup`), kept from scan to scan: it depends only on the
// element's own attributes, so an attribute record on that element is the one thing that can change it.
import { hiddenByMarkup } from "./dom.ts";

export class MarkupMemo {
  private hidden = new WeakMap<Element, boolean>();

  /** Reads records as they are delivered, in the observer's callback (as the other record readers do). */
  note(records: readonly MutationRecord[]): void {
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      if (r.type === "attributes") this.hidden.delete(r.target as Element);
    }
  }

  /** Forgets everything (records may have been missed). */
  clear(): void {
    this.hidden = new WeakMap();
  }

  /**
   * `hiddenByMarkup(el, hiddenClass)`, from memory while no attribute of `el` changed. `hiddenClass` must look at the
   * element's own classes only (a selector that depends on other elements can change without a record on `el`).
   */
  selfHidden(el: Element, hiddenClass: (el: Element) => boolean): boolean {
    let hidden = this.hidden.get(el);
    if (hidden === undefined) {
      hidden = hiddenByMarkup(el, hiddenClass);
      this.hidden.set(el, hidden);
    }
    return hidden;
  }
}
