// The request each channel kind sends: a webhook gets the JSON payload, ntfy a short text with its title, priority,
// tags, click link and optional token in headers, Telegram a sendMessage through the configured API base.
import { describe, expect, it } from "vitest";
import {
  type Channel,
  type NotificationPayload,
  notificationPayloadSchema,
} from "../../../shared/notify-settings.ts";
import { channelRequest, headerText, NOTIFY_USER_AGENT } from "./channels.ts";

const payload: NotificationPayload = {
  version: 1,
  kind: "needs_you",
  episode: "held:w-1:question:1000",
  at: 2000,
  title: "Needs you: /root/api — Needs your answer",
  run: { id: "run-1", name: "Release" },
  worker: { id: "w-1", name: "api", path: "/root/api" },
  state: "Needs you",
  reason: "question",
  reasonText: "Needs your answer",
  remedy: "Answer the question to let it continue.",
  since: 1000,
  link: "chrome-extension://abc/extension/dashboard/dashboard.html#worker=w-1",
};

describe("channelRequest", () => {
  it("webhook: POSTs the v1 payload as JSON with our User-Agent", () => {
    const hook: Channel = {
      id: "hook",
      name: "Hook",
      enabled: true,
      kind: "webhook",
      url: "https://h.example/x/SECRET",
    };
    const req = channelRequest(hook, payload);
    expect(req).toMatchObject({ url: "https://h.example/x/SECRET", method: "POST" });
    expect(req.headers).toEqual({ "Content-Type": "application/json", "User-Agent": NOTIFY_USER_AGENT });
    expect(NOTIFY_USER_AGENT).toMatch(/^chatgpt-orchestrator\/\d+\.\d+\.\d+/);
    expect(notificationPayloadSchema.parse(JSON.parse(req.body))).toEqual(payload);
  });

  it("ntfy: POSTs a short text to <server>/<topic> with title, priority by kind, tags, click and token", () => {
    const ntfy: Channel = {
      id: "phone",
      name: "Phone",
      enabled: true,
      kind: "ntfy",
      server: "https://ntfy.example/",
      topic: "my-topic_1",
      token: "tk_secret",
    };
    const req = channelRequest(ntfy, payload);
    expect(req.url).toBe("https://ntfy.example/my-topic_1");
    expect(req.headers).toMatchObject({
      Priority: "high",
      Tags: "bell",
      Click: payload.link,
      Authorization: "Bearer tk_secret",
      "User-Agent": NOTIFY_USER_AGENT,
    });
    // The em dash is past Latin-1: the title goes as an RFC 2047 word, which ntfy decodes.
    expect(req.headers.Title).toBe(headerText(payload.title));
    const b64 = /^=\?UTF-8\?B\?(.+)\?=$/.exec(req.headers.Title!)?.[1];
    expect(Buffer.from(b64!, "base64").toString("utf8")).toBe(payload.title);
    expect(req.body).toContain("Needs your answer");
    expect(req.body).toContain("/root/api");
    expect(channelRequest({ ...ntfy, token: undefined }, payload).headers.Authorization).toBeUndefined();
    const kinds = ["run_failed", "worker_failed", "run_completed", "resolved", "test"] as const;
    expect(kinds.map((kind) => channelRequest(ntfy, { ...payload, kind }).headers.Priority)).toEqual([
      "high",
      "high",
      "default",
      "low",
      "default",
    ]);
    expect(headerText("Run completed: Release")).toBe("Run completed: Release");
  });

  it("telegram: POSTs sendMessage under <apiBase>/bot<token> with chat id, text and no link preview", () => {
    const tg: Channel = {
      id: "tg",
      name: "Telegram",
      enabled: true,
      kind: "telegram",
      botToken: "123456:ABCdefGHIjklMNOpqrSTUvwx",
      chatId: "-100200300",
      apiBase: "http://127.0.0.1:9999/",
    };
    const req = channelRequest(tg, payload);
    expect(req.url).toBe("http://127.0.0.1:9999/bot123456:ABCdefGHIjklMNOpqrSTUvwx/sendMessage");
    expect(req.headers["Content-Type"]).toBe("application/json");
    const body = JSON.parse(req.body) as { chat_id: string; text: string; disable_web_page_preview: boolean };
    expect(body.chat_id).toBe("-100200300");
    expect(body.disable_web_page_preview).toBe(true);
    expect(body.text.split("\n")[0]).toBe(payload.title);
    expect(body.text).toContain("Answer the question to let it continue.");
  });
});
