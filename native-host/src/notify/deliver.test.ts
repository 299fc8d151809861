// One delivery against a real local HTTP receiver: 2xx is delivered; 5xx, 429, a timeout and a refused connection are
// worth retrying; another 4xx is not; and what a person reads about a failure never holds the URL or a secret, even
// when the receiver echoes them back.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Channel, NotificationPayload } from "../../../shared/notify-settings.ts";
import { deliver } from "./deliver.ts";
import { testPayload } from "./payload.ts";

const PATH_TOKEN = "hookTokenAbc123XYZ";
const BOT_TOKEN = "987654:ZYXwvuTSRqpoNMLkjiHGFedc";
const NTFY_TOKEN = "tk_ntfySecret42";
const TOPIC = "secret-topic-77";

let server: Server;
let base: string;
/** What the receiver answers next, by the path's first segment. */
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const received: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ url: req.url ?? "", headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Answers with `status` and a body that repeats everything the request carried (URL and headers). */
function echo(status: number) {
  return (req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { "Content-Type": "text/plain" });
    res.end(
      `refused ${req.method} ${req.url} auth=${req.headers.authorization ?? ""} full=${base}${req.url}`,
    );
  };
}

const payload: NotificationPayload = testPayload(1_000);
const hookUrl = () => `${base}/hooks/${PATH_TOKEN}?key=${PATH_TOKEN}`;
const hook = (): Channel => ({ id: "hook", name: "Hook", enabled: true, kind: "webhook", url: hookUrl() });
const tg = (): Channel => ({
  id: "tg",
  name: "Telegram",
  enabled: true,
  kind: "telegram",
  botToken: BOT_TOKEN,
  chatId: "42",
  apiBase: base,
});
const ntfy = (): Channel => ({
  id: "ntfy",
  name: "Phone",
  enabled: true,
  kind: "ntfy",
  server: base,
  topic: TOPIC,
  token: NTFY_TOKEN,
});

/** No secret, and none of the URLs requests go to (each holds one). */
function expectNoSecret(detail: string): void {
  const urls = [hookUrl(), `${base}/bot${BOT_TOKEN}/sendMessage`, `${base}/${TOPIC}`, "/hooks/"];
  for (const secret of [PATH_TOKEN, BOT_TOKEN, NTFY_TOKEN, TOPIC, ...urls]) {
    expect(detail).not.toContain(secret);
  }
}

describe("deliver", () => {
  it("2xx: delivered, with the status", async () => {
    answer = (_req, res) => res.writeHead(204).end();
    const before = received.length;
    expect(await deliver(hook(), payload, { timeoutMs: 2_000 })).toEqual({ ok: true, status: 204 });
    expect(received.length).toBe(before + 1);
    expect(received.at(-1)?.url).toBe(`/hooks/${PATH_TOKEN}?key=${PATH_TOKEN}`);
    expect(JSON.parse(received.at(-1)!.body)).toEqual(payload);
  });

  it("500 and 429 are retried, 400 and 401 are not; the detail names the status but no secret", async () => {
    for (const [status, retry] of [
      [500, true],
      [503, true],
      [429, true],
      [400, false],
      [401, false],
    ] as const) {
      answer = echo(status);
      for (const channel of [hook(), tg(), ntfy()]) {
        const result = await deliver(channel, payload, { timeoutMs: 2_000 });
        expect(result).toMatchObject({ ok: false, retry });
        if (result.ok) throw new Error("unreachable");
        expect(result.detail).toContain(`HTTP ${status}`);
        expect(result.detail).toContain("refused POST");
        expectNoSecret(result.detail);
      }
    }
  });

  it("no answer within the timeout is retried", async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    const result = await deliver(tg(), payload, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ ok: false, retry: true });
    if (result.ok) throw new Error("unreachable");
    expect(result.detail).toMatch(/no answer within 300 ms/);
    expectNoSecret(result.detail);
  });

  it("a receiver that is not there is retried, and the detail still holds no secret", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const goneUrl = `http://127.0.0.1:${port}/hooks/${PATH_TOKEN}`;
    const gone: Channel = { id: "hook", name: "Hook", enabled: true, kind: "webhook", url: goneUrl };
    const result = await deliver(gone, payload, { timeoutMs: 2_000 });
    expect(result).toMatchObject({ ok: false, retry: true });
    if (result.ok) throw new Error("unreachable");
    expect(result.detail).toMatch(/could not reach the receiver/);
    expectNoSecret(result.detail);
    expect(result.detail).not.toContain(goneUrl);
  });
});
