// A view's call of an operation: the calls that bind or forget a tab (adopt, release) and the tab settings are
// handled here; every other call goes to the host if this view may make it (the overlay only for its own worker).
import type { ErrorCode } from "../../shared/error-codes.ts";
import { conversationIdOf } from "../lib/chatgpt-url.ts";
import { NOTIFY_OPS } from "../../shared/notify-settings.ts";
import {
  adoptRequestSchema,
  NOTIFY_PAGES,
  OVERLAY_OPERATIONS,
  overlayAdoptRequestSchema,
  PAGE_OPERATIONS,
  type LocalPrefs,
} from "../ui/ui-protocol.ts";
import { TAB_SETTINGS_GET_OP, TAB_SETTINGS_SET_OP, tabSettingsSchema } from "./tab-settings.ts";
import type { Reply, UiHostLink, View } from "./ui-bridge-types.ts";
import type { UiTabs } from "./ui-tabs.ts";

const PAGE_OPS: ReadonlySet<string> = new Set(PAGE_OPERATIONS);
/**
 * Handled here (they bind or forget a tab), not passed through. Extension pages may call both; the overlay may
 * adopt its own tab while the user has `offerAdopt` on, and never release.
 */
const ADOPT_OP = "conversation_adopt";
const RELEASE_OP = "conversation_release";
/** `worker_stop` refusals that mean the worker is over already: release still forgets its tab. */
const ALREADY_ENDED: ReadonlySet<string> = new Set(["WORKER_TERMINAL", "NOT_FOUND"]);
const OVERLAY_OPS: ReadonlySet<string> = new Set(OVERLAY_OPERATIONS);
/** The notification channels carry secrets (masked): only the settings page and the dashboard read or change them. */
const NOTIFY: ReadonlySet<string> = new Set(NOTIFY_OPS);
const NOTIFY_PAGE_SET: ReadonlySet<string> = new Set(NOTIFY_PAGES);

export interface UiCallsDeps {
  readonly host: UiHostLink;
  readonly tabs: UiTabs;
  /** Calls an operation on the host. */
  readonly request: (op: string, params: Record<string, unknown>) => Promise<Reply>;
  readonly localPrefs: () => Promise<LocalPrefs>;
  /** Durable state changed: every open view gets its status again. */
  readonly statusChanged: () => void;
}

export class UiCalls {
  constructor(private readonly deps: UiCallsDeps) {}

  /** The reply to a view's call of `op`. */
  async call(view: View, op: string, params: Record<string, unknown>): Promise<Reply> {
    const adopting = op === ADOPT_OP;
    if (adopting || (view.kind === "page" && op === RELEASE_OP))
      return adopting ? await this.adopt(view, params) : await this.release(params);
    if (view.kind === "page" && (op === TAB_SETTINGS_GET_OP || op === TAB_SETTINGS_SET_OP))
      return this.tabSettings(op, params);
    const refusal = await this.refusal(view, op, params);
    return refusal
      ? { ok: false, error: { code: "FORBIDDEN", message: refusal } }
      : await this.deps.request(op, params);
  }

  /**
   * "Keep this conversation going": the tab must show a chatgpt.com conversation no worker holds. For the popup it
   * is the active tab; for the overlay it is the tab its port came from (the browser's sender, never a tab id or
   * URL the page could name). The host creates the worker (`conversation_adopt`: the tab's URL, and the title its own
   * page shows as the worker's name, filled in here, never taken from the view); then the tab is bound to it.
   */
  private async adopt(view: View, params: Record<string, unknown>): Promise<Reply> {
    const { tabs } = this.deps;
    const refuse = (code: ErrorCode, message: string): Reply => ({ ok: false, error: { code, message } });
    const request = (view.kind === "overlay" ? overlayAdoptRequestSchema : adoptRequestSchema).safeParse(
      params,
    );
    if (!request.success)
      return refuse("INVALID_INPUT", `conversation_adopt: ${request.error.issues[0]?.message ?? "invalid"}`);
    if (view.kind === "overlay" && !(await this.deps.localPrefs()).offerAdopt)
      return refuse("FORBIDDEN", "Keeping a conversation going from the page is turned off in the settings.");
    const tab = view.kind === "overlay" ? await tabs.tabOf(view.tabId) : await tabs.activeTabInfo();
    const url = tab?.url;
    if (tab?.id === undefined || conversationIdOf(url) === undefined || url === undefined)
      return refuse(
        "NOT_A_CONVERSATION",
        view.kind === "overlay"
          ? "This page is not a saved ChatGPT conversation yet (chatgpt.com/c/…): send a first message."
          : "Open a ChatGPT conversation (chatgpt.com/c/…) in this window first.",
      );
    if ((await tabs.workerOfTab(tab.id)) !== null)
      return refuse("CONFLICT", "This conversation is already kept going by a worker.");
    const objective = request.data.objective?.trim() || undefined;
    const runId = "runId" in request.data ? request.data.runId : undefined;
    // The worker is named after the conversation's title, read by the tab's own page (never by the view).
    const title = await this.deps.host.conversationTitle(tab.id);
    const reply = await this.deps.request(ADOPT_OP, {
      conversationUrl: url,
      ...(objective !== undefined ? { objective } : {}),
      ...(runId !== undefined ? { runId } : {}),
      ...(title !== undefined ? { title } : {}),
    });
    const workerId = (reply.result as { worker?: { id?: unknown } } | undefined)?.worker?.id;
    if (!reply.ok || typeof workerId !== "string") return reply;
    await this.deps.host.adoptTab(workerId, tab.id, url);
    this.deps.statusChanged();
    return reply;
  }

  /**
   * "Release": stops the adopted worker (history kept) and forgets its tab; the conversation is the user's again.
   * A worker that has ended already is released too (its tab forgotten), so the conversation can be kept going again.
   */
  private async release(params: Record<string, unknown>): Promise<Reply> {
    const workerId = params.workerId;
    if (typeof workerId !== "string" || workerId === "")
      return { ok: false, error: { code: "INVALID_INPUT", message: "release needs a workerId" } };
    const reply = await this.deps.request("worker_stop", { workerId, reason: "released" });
    const ended = !reply.ok && reply.error !== undefined && ALREADY_ENDED.has(reply.error.code);
    if (!reply.ok && !ended) return reply;
    await this.deps.host.releaseTab(workerId);
    this.deps.statusChanged();
    return ended ? { ok: true, result: { workerId, alreadyEnded: true } } : reply;
  }

  /** The options page's tab settings (extension pages only): kept by the executor, never sent to the host. */
  private async tabSettings(op: string, params: Record<string, unknown>): Promise<Reply> {
    const { host } = this.deps;
    if (op === TAB_SETTINGS_SET_OP) {
      const settings = tabSettingsSchema.safeParse(params);
      if (!settings.success)
        return {
          ok: false,
          error: {
            code: "INVALID_INPUT",
            message: `${op}: ${settings.error.issues[0]?.message ?? "invalid"}`,
          },
        };
      await host.setTabSettings(settings.data);
    }
    return { ok: true, result: await host.tabSettings() };
  }

  /** Why a view may not make this call, or undefined when it may. */
  private async refusal(
    view: View,
    op: string,
    params: Record<string, unknown>,
  ): Promise<string | undefined> {
    if (view.kind === "page") {
      if (!PAGE_OPS.has(op)) return `${op} is not a UI operation`;
      if (NOTIFY.has(op) && !NOTIFY_PAGE_SET.has(view.page ?? ""))
        return `${op} is for the settings page and the dashboard only`;
      return undefined;
    }
    if (!OVERLAY_OPS.has(op)) return `the overlay may not call ${op}`;
    const own = await this.deps.tabs.workerOfTab(view.tabId);
    if (own === null || params.workerId !== own) return "the overlay controls only its own tab's worker";
    return undefined;
  }
}
