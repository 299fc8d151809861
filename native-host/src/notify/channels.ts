// The HTTP request each channel kind sends for a notification (docs/operator-guide.md, "Notifications"): a
// webhook gets the JSON payload, ntfy a short text with its title and priority in headers, Telegram a sendMessage.
import type { Channel, NotificationPayload } from "../../../shared/notify-settings.ts";
import { PRODUCT_VERSION } from "../../../shared/product-version.ts";

export const NOTIFY_USER_AGENT = `chatgpt-orchestrator/${PRODUCT_VERSION}`;

export interface ChannelRequest {
  readonly url: string;
  readonly method: "POST";
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

type Kind = NotificationPayload["kind"];

/** ntfy's priorities by name: a person needed or a failure rings louder than a completion. */
const NTFY_PRIORITY: Readonly<Record<Kind, string>> = {
  needs_you: "high",
  run_failed: "high",
  worker_failed: "high",
  run_completed: "default",
  worker_completed: "default",
  resolved: "low",
  test: "default",
};

/** ntfy shows these tag names as emoji in front of the title. */
const NTFY_TAGS: Readonly<Record<Kind, string>> = {
  needs_you: "bell",
  run_failed: "x",
  worker_failed: "x",
  run_completed: "white_check_mark",
  worker_completed: "white_check_mark",
  resolved: "heavy_check_mark",
  test: "test_tube",
};

/** The lines a person reads under the title: the reason in words and what to do. No conversation text, ever. */
export function bodyLines(payload: NotificationPayload): string[] {
  const lines: string[] = [];
  if (payload.run) lines.push(`Run: ${payload.run.name}`);
  if (payload.worker) lines.push(`Worker: ${payload.worker.path}`);
  if (payload.reasonText) lines.push(payload.reasonText);
  if (payload.remedy) lines.push(payload.remedy);
  if (lines.length === 0) lines.push(payload.title);
  return lines;
}

/**
 * HTTP header values are bytes; fetch refuses anything past Latin-1. A title with other characters (an em dash, a
 * worker named in another script) goes as an RFC 2047 encoded word, which ntfy decodes.
 */
export function headerText(value: string): string {
  const flat = value.replace(/[\r\n]+/g, " ");
  if (/^[\x20-\x7e]*$/.test(flat)) return flat;
  return `=?UTF-8?B?${Buffer.from(flat, "utf8").toString("base64")}?=`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** The request a channel sends for a payload; `userAgent` names the sender to the receiver. */
export function channelRequest(
  channel: Channel,
  payload: NotificationPayload,
  userAgent: string = NOTIFY_USER_AGENT,
): ChannelRequest {
  switch (channel.kind) {
    case "webhook":
      return {
        url: channel.url,
        method: "POST",
        headers: { "Content-Type": "application/json", "User-Agent": userAgent },
        body: JSON.stringify(payload),
      };
    case "ntfy": {
      const headers: Record<string, string> = {
        "Content-Type": "text/plain; charset=utf-8",
        "User-Agent": userAgent,
        Title: headerText(payload.title),
        Priority: NTFY_PRIORITY[payload.kind],
        Tags: NTFY_TAGS[payload.kind],
      };
      if (payload.link) headers.Click = payload.link;
      if (channel.token !== undefined) headers.Authorization = `Bearer ${channel.token}`;
      return {
        url: `${trimSlash(channel.server)}/${channel.topic}`,
        method: "POST",
        headers,
        body: bodyLines(payload).join("\n"),
      };
    }
    case "telegram":
      return {
        url: `${trimSlash(channel.apiBase)}/bot${channel.botToken}/sendMessage`,
        method: "POST",
        headers: { "Content-Type": "application/json", "User-Agent": userAgent },
        body: JSON.stringify({
          chat_id: channel.chatId,
          text: [payload.title, ...bodyLines(payload).filter((l) => l !== payload.title)].join("\n"),
          disable_web_page_preview: true,
        }),
      };
  }
}
