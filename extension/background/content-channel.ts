// Requests from the background to the content script of one tab, each bounded in time and validated: the
// content script is less trusted than the background, and a tab can vanish at any moment.
import type { z } from "zod";
import type { ExtensionApi } from "../lib/browser-api.ts";
import {
  hasMarkerReplySchema,
  pingReplySchema,
  watchReplySchema,
  submitResultSchema,
  submitStatusReplySchema,
  type BackgroundMessage,
  type PingReply,
  type SubmitResult,
  type SubmitStatusReply,
} from "../lib/content-protocol.ts";
import { errorText } from "../lib/logger.ts";
import type { Timers } from "./native-connection.ts";

export type Reply<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export class ContentChannel {
  /** tabId → callbacks waiting for that tab's content script to announce itself. */
  private readonly waiters = new Map<number, Set<() => void>>();

  constructor(
    private readonly api: Pick<ExtensionApi, "tabs">,
    private readonly timers: Timers,
  ) {}

  /** The content script of `tabId` said `content.hello`. */
  announced(tabId: number): void {
    const waiting = this.waiters.get(tabId);
    this.waiters.delete(tabId);
    for (const wake of waiting ?? []) wake();
  }

  ping(tabId: number, timeoutMs: number): Promise<Reply<PingReply>> {
    return this.request(tabId, { type: "bg.ping" }, pingReplySchema, timeoutMs);
  }

  submit(
    tabId: number,
    request: Omit<Extract<BackgroundMessage, { type: "bg.submit" }>, "type">,
    timeoutMs: number,
  ): Promise<Reply<SubmitResult>> {
    return this.request(tabId, { type: "bg.submit", ...request }, submitResultSchema, timeoutMs);
  }

  submitStatus(tabId: number, commandId: string, timeoutMs: number): Promise<Reply<SubmitStatusReply>> {
    return this.request(tabId, { type: "bg.submit-status", commandId }, submitStatusReplySchema, timeoutMs);
  }

  async hasMarker(tabId: number, marker: string, timeoutMs: number): Promise<Reply<boolean>> {
    const reply = await this.request(
      tabId,
      { type: "bg.has-marker", marker },
      hasMarkerReplySchema,
      timeoutMs,
    );
    return reply.ok ? { ok: true, value: reply.value.found } : reply;
  }

  /**
   * Tells the tab its binding changed, so its content script asks whether it is watched now. A tab whose content
   * script is not there yet (loading, discarded) asks anyway when it starts: an error here is only what happened.
   */
  watch(tabId: number, timeoutMs: number): Promise<Reply<{ ok: true }>> {
    return this.request(tabId, { type: "bg.watch" }, watchReplySchema, timeoutMs);
  }

  /** Resolves true once the tab's content script answers a ping (or announces itself) within `timeoutMs`. */
  async waitForContent(tabId: number, timeoutMs: number, probeMs: number): Promise<boolean> {
    const deadline = this.timers.now() + timeoutMs;
    for (;;) {
      if ((await this.ping(tabId, probeMs)).ok) return true;
      const left = deadline - this.timers.now();
      if (left <= 0) return false;
      await this.announcedOrAfter(tabId, Math.min(left, 500));
    }
  }

  private announcedOrAfter(tabId: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(tabId) ?? new Set<() => void>();
      this.waiters.set(tabId, set);
      const done = () => {
        this.timers.clearTimeout(timer);
        set.delete(done);
        resolve();
      };
      const timer = this.timers.setTimeout(done, ms);
      set.add(done);
    });
  }

  private async request<S extends z.ZodType>(
    tabId: number,
    message: BackgroundMessage,
    schema: S,
    timeoutMs: number,
  ): Promise<Reply<z.infer<S>>> {
    let timer: unknown;
    const timeout = new Promise<Reply<z.infer<S>>>((resolve) => {
      timer = this.timers.setTimeout(
        () => resolve({ ok: false, error: `no answer to ${message.type} within ${timeoutMs} ms` }),
        timeoutMs,
      );
    });
    const answer = this.api.tabs.sendMessage(tabId, message, { frameId: 0 }).then(
      (raw): Reply<z.infer<S>> => {
        const parsed = schema.safeParse(raw);
        return parsed.success
          ? { ok: true, value: parsed.data }
          : {
              ok: false,
              error: `invalid answer to ${message.type}: ${parsed.error.issues[0]?.message ?? "?"}`,
            };
      },
      (e: unknown): Reply<z.infer<S>> => ({ ok: false, error: errorText(e) }),
    );
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      this.timers.clearTimeout(timer);
    }
  }
}
