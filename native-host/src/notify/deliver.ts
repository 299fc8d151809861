// Sends one notification to one channel, once, within a timeout (docs/operator-guide.md, "Notifications"): the
// outbox sender, the settings page's "Send test" and `orchestrator notify test` all go through here.
import { type Channel, type NotificationPayload, SECRET_FIELDS } from "../../../shared/notify-settings.ts";
import { channelRequest, NOTIFY_USER_AGENT } from "./channels.ts";

export const DEFAULT_DELIVER_TIMEOUT_MS = 10_000;

export type DeliverResult = { ok: true; status: number } | { ok: false; retry: boolean; detail: string };

export interface DeliverOptions {
  readonly timeoutMs: number;
  /** Tests inject one; the global fetch otherwise. */
  readonly fetch?: typeof fetch;
  readonly userAgent?: string;
}

const MASK = "••••";
/** Enough of a receiver's answer to explain a refusal, short enough for a status line. */
const MAX_BODY_CHARS = 200;

/** Every form in which a channel's secrets could show up in an error: as given, URL-encoded, and inside its URL. */
export function channelSecrets(channel: Channel): string[] {
  const record = channel as unknown as Record<string, unknown>;
  const out = new Set<string>();
  for (const field of SECRET_FIELDS[channel.kind]) {
    const value = record[field];
    if (typeof value !== "string" || value === "") continue;
    out.add(value);
    out.add(encodeURIComponent(value));
  }
  if (channel.kind === "webhook") {
    try {
      const url = new URL(channel.url);
      out.add(url.href);
      const tail = `${url.pathname}${url.search}`;
      if (tail.length > 1) out.add(tail);
      for (const part of url.pathname.split("/")) if (part.length >= 4) out.add(part);
      for (const value of url.searchParams.values()) if (value.length >= 4) out.add(value);
      if (url.username) out.add(url.username);
      if (url.password) out.add(url.password);
    } catch {
      // The schema admits only parseable URLs; the raw value is masked above anyway.
    }
  }
  if (channel.kind === "telegram") out.add(`bot${channel.botToken}`);
  // A server URL is no secret, but credentials written into one (https://user:pass@host) are.
  const bases =
    channel.kind === "ntfy" ? [channel.server] : channel.kind === "telegram" ? [channel.apiBase] : [];
  for (const base of bases) {
    try {
      const url = new URL(base);
      if (url.username) out.add(url.username);
      if (url.password) out.add(url.password);
    } catch {
      // Parseable by the schema; nothing to add otherwise.
    }
  }
  // Longest first, so a secret that contains another is masked whole.
  return [...out].sort((a, b) => b.length - a.length);
}

/** Replaces every secret of the channel in `text` with a mask. */
export function sanitize(text: string, channel: Channel): string {
  let out = text;
  for (const secret of channelSecrets(channel)) out = out.split(secret).join(MASK);
  return out;
}

function errorWords(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${cause.message}` : cause.message;
  }
  return error.message;
}

async function bodySnippet(response: Response): Promise<string> {
  try {
    const text = (await response.text()).replace(/\s+/g, " ").trim();
    return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…` : text;
  } catch {
    return "";
  }
}

/**
 * One attempt. Network errors, the timeout, 5xx and 429 are worth retrying; any other refusal is not (a wrong token
 * or chat id stays wrong). The detail is for a person and never holds the channel's URL or a secret.
 */
export async function deliver(
  channel: Channel,
  payload: NotificationPayload,
  opts: DeliverOptions,
): Promise<DeliverResult> {
  const doFetch = opts.fetch ?? fetch;
  const request = channelRequest(channel, payload, opts.userAgent ?? NOTIFY_USER_AGENT);
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    const detail =
      name === "TimeoutError" || name === "AbortError"
        ? `no answer within ${opts.timeoutMs} ms`
        : `could not reach the receiver (${errorWords(error)})`;
    return { ok: false, retry: true, detail: sanitize(detail, channel) };
  }
  if (response.status >= 200 && response.status < 300) {
    // Drained so the connection can be reused; what a receiver says on success does not matter.
    await response.arrayBuffer().catch(() => undefined);
    return { ok: true, status: response.status };
  }
  const snippet = await bodySnippet(response);
  const retry = response.status >= 500 || response.status === 429;
  const detail = `the receiver answered HTTP ${response.status}${snippet ? `: ${snippet}` : ""}`;
  return { ok: false, retry, detail: sanitize(detail, channel) };
}
