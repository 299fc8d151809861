// A real local HTTP receiver for the notification tests: records every request (path, headers, body) and answers
// with the status a test chooses per request, standing in for a webhook endpoint, an ntfy server and Telegram's API.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NotifySettings } from "../../shared/notify-settings.ts";

export interface Hit {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** What the receiver answered (0: held unanswered). */
  readonly status: number;
}

export class Receiver {
  readonly hits: Hit[] = [];
  /** The status to answer a request with (200 unless a test says otherwise). */
  respond: (path: string, body: string) => number = () => 200;
  /** Requests to hold unanswered (a receiver that hangs); `dropHeld` cuts their connections. */
  hang: (path: string) => boolean = () => false;
  private readonly held = new Set<ServerResponse>();
  private constructor(
    private readonly server: Server,
    readonly base: string,
  ) {}

  static async start(): Promise<Receiver> {
    const holder: { receiver?: Receiver } = {};
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const receiver = holder.receiver!;
        const path = req.url ?? "";
        if (receiver.hang(path)) {
          receiver.hits.push({ path, headers: req.headers, body, status: 0 });
          receiver.held.add(res);
          return;
        }
        const status = receiver.respond(path, body);
        receiver.hits.push({ path, headers: req.headers, body, status });
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(status < 300 ? '{"ok":true}' : '{"ok":false,"description":"try later"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    holder.receiver = receiver;
    return receiver;
  }

  /** Requests whose path starts with `prefix`. */
  to(prefix: string): Hit[] {
    return this.hits.filter((h) => h.path.startsWith(prefix));
  }

  dropHeld(): void {
    for (const res of this.held) res.socket?.destroy();
    this.held.clear();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The secrets of the three test channels: each must show up nowhere but config.json and the receiver. */
export interface ChannelSecrets {
  readonly hookToken: string;
  readonly topic: string;
  readonly ntfyToken: string;
  readonly botToken: string;
}

export function newSecrets(): ChannelSecrets {
  return {
    hookToken: `hk${randomBytes(12).toString("hex")}`,
    topic: `tp${randomBytes(10).toString("hex")}`,
    ntfyToken: `tk_${randomBytes(12).toString("hex")}`,
    botToken: `123456:${randomBytes(16).toString("hex")}`,
  };
}

export function allSecrets(s: ChannelSecrets): string[] {
  return [s.hookToken, s.topic, s.ntfyToken, s.botToken];
}

/** A webhook (at /hook/<token>), an ntfy server (at /ntfy/<topic>) and Telegram (at /tg/bot<token>/…). */
export function threeChannels(base: string, s: ChannelSecrets): NotifySettings["channels"] {
  return [
    { id: "hook", name: "Webhook", enabled: true, kind: "webhook", url: `${base}/hook/${s.hookToken}` },
    {
      id: "phone",
      name: "ntfy",
      enabled: true,
      kind: "ntfy",
      server: `${base}/ntfy`,
      topic: s.topic,
      token: s.ntfyToken,
    },
    {
      id: "tg",
      name: "Telegram",
      enabled: true,
      kind: "telegram",
      botToken: s.botToken,
      chatId: "4242",
      apiBase: `${base}/tg`,
    },
  ];
}

/** config.json as the host would create it, plus `notifications` (written before the host starts). */
export function writeConfig(home: string, notifications: Partial<NotifySettings>): void {
  const file = join(home, "config.json");
  const current = existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>)
    : { port: 0, token: randomBytes(32).toString("hex"), maxGeneratingTabs: 3 };
  writeFileSync(file, `${JSON.stringify({ ...current, notifications }, null, 2)}\n`, { mode: 0o600 });
}

/** status.json's notification entries (empty until the host wrote them). */
export function notificationStatus(home: string): {
  id: string;
  pid: number;
  lastAttemptAt: number | null;
  lastDeliveredAt: number | null;
  lastError: string | null;
  pending: number;
}[] {
  const file = join(home, "status.json");
  if (!existsSync(file)) return [];
  try {
    const status = JSON.parse(readFileSync(file, "utf8")) as {
      pid: number;
      notifications?: {
        id: string;
        lastAttemptAt: number | null;
        lastDeliveredAt: number | null;
        lastError: string | null;
        pending: number;
      }[];
    };
    return (status.notifications ?? []).map((n) => ({ ...n, pid: status.pid }));
  } catch {
    return []; // being replaced at this moment
  }
}
