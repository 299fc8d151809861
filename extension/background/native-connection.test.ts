import { describe, expect, it } from "vitest";
import type { ExtensionApi, NativePort } from "../lib/browser-api.ts";
import { NATIVE_HOST_NAME } from "../../shared/extension-ids.ts";
import { NativeConnection, type ConnectionHealth, type Timers } from "./native-connection.ts";
import { FakeEvent, MemoryLogger } from "../../test/extension/fake-browser.ts";

/** Timers driven by hand: `advance(ms)` runs what falls due. */
class ManualTimers implements Timers {
  time = 1_000;
  private queue: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  readonly delays: number[] = [];
  now = () => this.time;
  random = () => 0.5;
  setTimeout = (fn: () => void, ms: number) => {
    this.delays.push(ms);
    const id = this.nextId++;
    this.queue.push({ at: this.time + ms, fn, id });
    return id;
  };
  clearTimeout = (id: unknown) => {
    this.queue = this.queue.filter((t) => t.id !== id);
  };
  advance(ms: number): void {
    this.time += ms;
    for (;;) {
      const due = this.queue.filter((t) => t.at <= this.time).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.queue = this.queue.filter((t) => t !== due);
      due.fn();
    }
  }
}

class Port implements NativePort {
  readonly onMessage = new FakeEvent<(message: unknown) => void>();
  readonly onDisconnect = new FakeEvent<(port: NativePort) => void>();
  error: { message: string } | null = null;
  readonly posted: unknown[] = [];
  postMessage(message: unknown) {
    this.posted.push(message);
  }
  disconnect() {}
}

function setup() {
  const timers = new ManualTimers();
  const log = new MemoryLogger();
  const ports: Port[] = [];
  const names: string[] = [];
  const runtime = {
    lastError: null as { message: string } | null,
    connectNative: (name: string) => {
      names.push(name);
      const port = new Port();
      ports.push(port);
      return port;
    },
  } as unknown as ExtensionApi["runtime"];
  const received: unknown[] = [];
  const health: ConnectionHealth[] = [];
  const conn = new NativeConnection({
    api: { runtime },
    timers,
    log,
    backoff: { baseMs: 1_000, maxMs: 8_000 },
    onOpen: (port) => {
      port.send({
        kind: "hello",
        protocolVersion: 1,
        executorId: "e",
        browser: "chromium",
        extensionVersion: "0",
        bindings: [],
        journal: [],
      });
    },
    onMessage: (m) => received.push(m),
    onHealth: (h) => health.push(h),
  });
  const last = () => ports.at(-1)!;
  const welcome = () =>
    last().onMessage.emit({ kind: "welcome", protocolVersion: 1, hostVersion: "1", executorId: "e" });
  const drop = (message: string, how: "firefox" | "chromium" = "firefox") => {
    const port = last();
    if (how === "firefox") port.error = { message };
    else (runtime as { lastError: unknown }).lastError = { message };
    port.onDisconnect.emit(port);
    (runtime as { lastError: unknown }).lastError = null;
  };
  return { conn, timers, log, ports, names, received, health, last, welcome, drop };
}

describe("native connection", () => {
  it("connects to the host by its fixed name, says hello, and is connected after welcome", () => {
    const t = setup();
    t.conn.start();
    expect(t.names).toEqual([NATIVE_HOST_NAME]);
    expect(t.last().posted).toEqual([expect.objectContaining({ kind: "hello" })]);
    expect(t.conn.health().status).toBe("connecting");
    t.welcome();
    expect(t.conn.health()).toMatchObject({ status: "connected", failures: 0 });
    expect(t.received).toHaveLength(1);
  });

  it("reports host-not-installed with the browser's words, and keeps retrying with capped, jittered backoff", () => {
    const t = setup();
    t.conn.start();
    t.drop("Specified native messaging host not found.", "chromium");
    expect(t.conn.health()).toMatchObject({
      status: "host-not-installed",
      error: "Specified native messaging host not found.",
      nextRetryAt: 1_000 + 750,
    });
    for (let i = 0; i < 6; i++) {
      t.timers.advance(t.timers.delays.at(-1)!);
      t.drop("No such native application com.chatgpt_orchestrator.host");
    }
    // random() = 0.5 → 3/4 of the ceiling: 1 s, 2 s, 4 s, then 8 s forever.
    expect(t.timers.delays).toEqual([750, 1_500, 3_000, 6_000, 6_000, 6_000, 6_000]);
    expect(t.ports).toHaveLength(7);
    expect(t.conn.health()).toMatchObject({ status: "host-not-installed", failures: 7 });
  });

  it("reconnects after the host exits, and a welcome resets the backoff", () => {
    const t = setup();
    t.conn.start();
    t.welcome();
    t.drop("Native host has exited.");
    expect(t.conn.health()).toMatchObject({ status: "reconnecting", error: "Native host has exited." });
    t.timers.advance(750);
    expect(t.ports).toHaveLength(2);
    t.drop("Native host has exited.");
    t.timers.advance(1_500);
    t.welcome();
    t.drop("Native host has exited.");
    expect(t.timers.delays).toEqual([750, 1_500, 750]);
  });

  it("drops and logs invalid host messages, and ignores a stale port", () => {
    const t = setup();
    t.conn.start();
    const first = t.last();
    first.onMessage.emit({ kind: "command", commandId: "c" });
    first.onMessage.emit({ kind: 42 });
    first.onMessage.emit(null);
    expect(t.received).toEqual([]);
    expect(t.conn.health().droppedInvalid).toBe(3);
    expect(t.log.has(/dropped an invalid host message \(kind "command"\)/)).toBe(true);
    t.drop("Native host has exited.");
    t.timers.advance(10_000);
    first.onMessage.emit({ kind: "ui.changed", eventSeq: 1 }); // from the dead port
    expect(t.received).toEqual([]);
  });

  it("stops sending after a protocol mismatch and says why", () => {
    const t = setup();
    t.conn.start();
    t.last().onMessage.emit({
      kind: "welcome",
      protocolVersion: 2,
      hostVersion: "9",
      executorId: "e",
      error: { code: "PROTOCOL_VERSION_MISMATCH", message: "host speaks protocol 2" },
    });
    expect(t.conn.health()).toMatchObject({ status: "incompatible", error: "host speaks protocol 2" });
  });

  it("connects again at once when woken (alarm) while waiting to retry", () => {
    const t = setup();
    t.conn.start();
    t.drop("Native host has exited.");
    t.conn.ensure();
    expect(t.ports).toHaveLength(2);
    t.conn.ensure(); // already open: nothing
    expect(t.ports).toHaveLength(2);
  });
});
