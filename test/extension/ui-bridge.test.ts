// The views' bridge end to end in one process: real UiClients on view ports → the real background (executor +
// UiBridge, fake browser, fake-indexeddb) → the native port → the real ExecutorHub and operations layer on a real
// Engine (sql.js on disk). Checks sender rules, the overlay's restriction to its own worker, live `ui.changed`,
// connection states, and the badge/notifications.
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OrchestratorDb, PrefStore } from "../../extension/background/db.ts";
import { Executor } from "../../extension/background/executor.ts";
import { realTimers } from "../../extension/background/native-connection.ts";
import type { ViewPort } from "../../extension/background/ui-bridge.ts";
import { loadLocalPrefs, startUi } from "../../extension/background/ui-wiring.ts";
import type { MessageSender } from "../../extension/lib/browser-api.ts";
import { UiClient, type ClientPort } from "../../extension/ui/ui-client.ts";
import { OVERLAY_PORT, UI_PORT } from "../../extension/ui/ui-protocol.ts";
import { Engine } from "../../native-host/src/engine/engine.ts";
import { ExecutorHub } from "../../native-host/src/bridge/executor-hub.ts";
import { encodeFrame } from "../../native-host/src/bridge/native-framing.ts";
import { OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { invoke } from "../../native-host/src/operations/registry.ts";
import type { HostMessage } from "../../shared/native-messages.ts";
import { makeTempDir, recordingLogger, removeDir } from "../store/helpers.ts";
import { FAST, waitFor } from "./executor-harness.ts";
import { EXTENSION_ID, FakeBrowser, FakeEvent, FakePort, MemoryLogger } from "./fake-browser.ts";

const PAGE_URL = `chrome-extension://${EXTENSION_ID}/extension/popup/popup.html`;

interface World {
  dir: string;
  backend: Engine;
  hub: ExecutorHub;
  browser: FakeBrowser;
  executor: Executor;
  db: OrchestratorDb;
  log: MemoryLogger;
  onConnect: FakeEvent<(port: ViewPort) => void>;
  badge: string[];
  titles: string[];
  notifications: { id: string; title: string; message: string }[];
  clients: UiClient[];
}

let w: World;

async function boot(): Promise<World> {
  const dir = makeTempDir("ui-bridge");
  const logger = recordingLogger();
  const backend = await Engine.open({ dir, log: logger.log });
  const hub = new ExecutorHub({
    engine: backend,
    operations: OPERATIONS,
    hostVersion: "9.9.9",
    log: logger.log,
  });
  backend.attach(hub);

  const browser = new FakeBrowser();
  // The fake native host forwards to the real hub: one hub connection per opened port.
  const sessions = new Map<FakePort, ReturnType<ExecutorHub["connect"]>>();
  const host = browser.host;
  const connect = host.connect.bind(host);
  host.connect = () => {
    const port = connect();
    // Framed as the real host frames it: a message over the browsers' limit throws instead of going out.
    const send = (m: HostMessage) => {
      encodeFrame(m);
      port.deliver(m);
    };
    if (!port.closed) sessions.set(port, hub.connect({ label: "test", send }));
    return port;
  };
  host.receive = (port, message) => {
    host.messages.push(message as never);
    void sessions.get(port)?.receive(message);
  };
  const kill = host.kill.bind(host);
  host.kill = (reason) => {
    const port = host.port;
    if (port) sessions.get(port)?.close();
    kill(reason);
  };

  const onConnect = new FakeEvent<(port: ViewPort) => void>();
  const badge: string[] = [];
  const titles: string[] = [];
  const notifications: World["notifications"] = [];
  const api = Object.assign(browser.api, {
    runtime: Object.assign(browser.api.runtime, { onConnect }),
    action: {
      setBadgeText: ({ text }: { text: string }) => void badge.push(text),
      setBadgeBackgroundColor: () => undefined,
      setTitle: ({ title }: { title: string }) => void titles.push(title),
    },
    notifications: {
      create: (id: string, o: { title: string; message: string }) => {
        notifications.push({ id, title: o.title, message: o.message });
        return Promise.resolve(id);
      },
    },
  });
  const log = new MemoryLogger();
  const db = new OrchestratorDb({
    name: `ui-bridge-${Math.random()}`,
    indexedDB: new IDBFactory(),
    IDBKeyRange,
  });
  const ui = startUi({ api, db, timers: realTimers, log, browser: "chromium" });
  const executor = new Executor({
    api,
    db,
    timers: realTimers,
    log,
    browser: "chromium",
    options: FAST,
    onUiMessage: ui.onUiMessage,
    onHealth: ui.onHealth,
  });
  executor.listen();
  ui.attach(executor);
  void executor.start();
  return {
    dir,
    backend,
    hub,
    browser,
    executor,
    db,
    log,
    onConnect,
    badge,
    titles,
    notifications,
    clients: [],
  };
}

/** Opens a view port the way `runtime.connect` does: both ends deliver asynchronously, structured-cloned. */
function connectView(name: string, sender: MessageSender): ClientPort {
  const toClient = new FakeEvent<(m: unknown) => void>();
  const toBackground = new FakeEvent<(m: unknown) => void>();
  const clientGone = new FakeEvent<(p: ClientPort) => void>();
  const backgroundGone = new FakeEvent<(p: ViewPort) => void>();
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    setTimeout(() => {
      clientGone.emit(client);
      backgroundGone.emit(background);
    }, 0);
  };
  const background: ViewPort = {
    name,
    sender,
    postMessage: (m) => {
      if (!open) throw new Error("Attempting to use a disconnected port object");
      const copy = structuredClone(m);
      setTimeout(() => open && toClient.emit(copy), 0);
    },
    disconnect: close,
    onMessage: toBackground,
    onDisconnect: backgroundGone,
  };
  const client: ClientPort = {
    postMessage: (m) => {
      if (!open) throw new Error("Attempting to use a disconnected port object");
      const copy = structuredClone(m);
      setTimeout(() => open && toBackground.emit(copy), 0);
    },
    disconnect: close,
    onMessage: toClient,
    onDisconnect: clientGone,
  };
  w.onConnect.emit(background);
  return client;
}

function pageClient(url = PAGE_URL): UiClient {
  const client = new UiClient((name) => connectView(name, { id: EXTENSION_ID, url }), UI_PORT);
  w.clients.push(client);
  return client;
}

async function call(op: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await invoke(OPERATIONS, op, params, w.backend);
  if (!r.ok) throw new Error(`${op}: ${r.error.message}`);
  return r.value;
}

async function runWithWorker(): Promise<{ runId: string; workerId: string }> {
  const { run } = (await call("run_create", { name: "r", policy: { mode: "manual" } })) as {
    run: { id: string };
  };
  const { worker } = (await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" })) as {
    worker: { id: string };
  };
  return { runId: run.id, workerId: worker.id };
}

beforeEach(async () => {
  w = await boot();
  await waitFor(() => w.executor.health().connection.status === "connected", "connected");
});

afterEach(async () => {
  for (const c of w.clients) c.close();
  w.executor.stop();
  await w.backend.close();
  w.db.close();
  removeDir(w.dir);
});

describe("ui bridge: pages", () => {
  it("a page gets live status, calls operations on the host, and sees every durable change", async () => {
    const { runId } = await runWithWorker();
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "status");
    expect(client.status.value).toMatchObject({
      hostVersion: "9.9.9",
      browser: "chromium",
      tabWorkerId: null,
    });
    const summary = await client.call("ui_summary", {});
    expect(summary.ok && summary.value.runs.map((r) => r.id)).toEqual([runId]);
    const before = client.changes.value;
    const set = await client.callRaw("run_continuation_set_default", { runId, patch: { mode: "auto" } });
    expect(set.ok).toBe(true);
    expect(w.backend.state.runs[runId]!.defaultPolicy.mode).toBe("auto");
    await waitFor(() => client.changes.value > before, "ui.changed reached the view");
    // A change made elsewhere (MCP) reaches the open view too.
    const seen = client.changes.value;
    await call("run_continuation_set_default", { runId, patch: { mode: "manual" } });
    await waitFor(() => client.changes.value > seen, "change from MCP reached the view");
  });

  it("an answer too large for one native message reaches the view whole: the bridge follows nextCursor", async () => {
    const { run } = (await call("run_create", { name: "big", policy: { mode: "manual" } })) as {
      run: { id: string };
    };
    // Twelve workers at the input limits (a 20,000-character objective, 50 criteria of 2,000): about 2.5 MB.
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { worker } = (await call("worker_spawn", {
        runId: run.id,
        path: i === 0 ? "/root" : `/root/w${i}`,
        objective: `${i} → "é"\n`.repeat(2_000),
        acceptance: Array.from({ length: 50 }, (_, j) => `${i}.${j} ✓ "x"\n`.repeat(200).slice(0, 2_000)),
      })) as { worker: { id: string } };
      ids.push(worker.id);
    }
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "status");
    const summary = await client.call("ui_summary", {});
    if (!summary.ok) throw new Error(`ui_summary: ${summary.error.code} ${summary.error.message}`);
    expect(summary.value.workers.map((x) => x.id)).toEqual(ids);
    expect(summary.value.runs.map((r) => r.id)).toEqual([run.id]);
    const continued = w.browser.host.of("ui.request").filter((m) => m.cursor !== undefined);
    expect(continued.length).toBeGreaterThanOrEqual(2);
  });

  it("refuses non-UI operations, bad input comes back as the host's error, invalid messages are dropped", async () => {
    const { workerId } = await runWithWorker();
    const client = pageClient();
    await waitFor(() => client.status.value !== null, "status");
    const forbidden = await client.callRaw("worker_complete", { workerId, summary: "x" });
    expect(forbidden).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(w.backend.state.workers[workerId]!.status).toBe("active");
    const invalid = await client.callRaw("worker_pause", { workerId: 42 });
    expect(invalid).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } });
    const unknown = await client.callRaw("worker_pause", { workerId: "nope" });
    expect(unknown).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("refuses a ui port from anything but this extension's pages", async () => {
    const client = new UiClient(
      (name) => connectView(name, { id: EXTENSION_ID, url: "https://evil.example/popup.html" }),
      UI_PORT,
      { setTimeout: () => undefined, clearTimeout: () => undefined },
    );
    w.clients.push(client);
    const r = await client.callRaw("ui_summary", {});
    expect(r).toMatchObject({ ok: false, error: { code: "BACKGROUND_UNAVAILABLE" } });
    expect(w.log.has(/refused a ui port/)).toBe(true);
  });

  it("host gone: pending and new calls fail with HOST_UNAVAILABLE, views show Reconnecting…, then Live again", async () => {
    await runWithWorker();
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "status");
    const seen: { connection: string; error?: string }[] = [];
    client.status.subscribe((s) => void (s && seen.push(s)));
    w.browser.host.kill();
    // The retry comes within milliseconds (FAST backoff): the view saw the state on the way, with the reason.
    await waitFor(() => seen.some((s) => s.connection === "reconnecting"), "reconnecting shown");
    expect(seen.find((s) => s.connection === "reconnecting")?.error).toContain("exited");
    await waitFor(() => client.status.value?.connection === "connected", "reconnected", 5_000);
    expect((await client.callRaw("ui_summary", {})).ok).toBe(true);
  });

  it("host not installed is its own state; calls fail at once with HOST_UNAVAILABLE and the fix", async () => {
    w.browser.host.installed = false;
    const client = pageClient();
    w.browser.host.kill("Specified native messaging host not found.");
    await waitFor(() => client.status.value?.connection === "host-not-installed", "not installed");
    const r = await client.callRaw("ui_summary", {});
    expect(r).toMatchObject({ ok: false, error: { code: "HOST_UNAVAILABLE" } });
    expect(!r.ok && r.error.message).toContain("orchestrator install");
  });

  it("local preferences are saved and pushed to every open view", async () => {
    const a = pageClient();
    const b = pageClient();
    await waitFor(() => a.status.value !== null && b.status.value !== null, "status");
    expect(a.status.value?.prefs).toEqual({ overlay: true, notifications: false, offerAdopt: false });
    a.setPrefs({ overlay: false });
    await waitFor(() => b.status.value?.prefs.overlay === false, "pushed");
    expect((await w.db.prefs.get("ui.prefs"))?.value).toEqual({
      overlay: false,
      notifications: false,
      offerAdopt: false,
    });
  });

  it("preferences stored before the adoption offer existed keep their values; the new switch starts off", async () => {
    await w.db.prefs.put({ key: "ui.prefs", value: { overlay: false, notifications: true } });
    expect(await loadLocalPrefs(new PrefStore(w.db))).toEqual({
      overlay: false,
      notifications: true,
      offerAdopt: false,
    });
    await w.db.prefs.put({ key: "ui.prefs", value: { overlay: "yes" } });
    expect(await loadLocalPrefs(new PrefStore(w.db))).toEqual({
      overlay: true,
      notifications: false,
      offerAdopt: false,
    });
  });
});

describe("ui bridge: notification channels", () => {
  const base = `chrome-extension://${EXTENSION_ID}/extension`;
  const sentOps = () => w.browser.host.of("ui.request").map((m) => String(m.op));

  it("the settings page and the dashboard reach the host with the notify requests; the popup may not", async () => {
    const options = pageClient(`${base}/options/options.html`);
    const dashboard = pageClient(`${base}/dashboard/dashboard.html#worker=w-1`);
    const popup = pageClient(PAGE_URL);
    await waitFor(
      () => [options, dashboard, popup].every((c) => c.status.value?.connection === "connected"),
      "status",
    );
    for (const [client, op, params] of [
      [options, "notify_settings", {}],
      [options, "notify_settings_set", { settings: { channels: [] } }],
      [options, "notify_test", { channelId: "phone" }],
      [dashboard, "notify_settings", {}],
    ] as const) {
      const before = sentOps().length;
      const r = await client.callRaw(op, params);
      // Whatever the host answers, the bridge forwarded it (a refusal of its own would be FORBIDDEN, unsent).
      expect(r.ok || r.error.code !== "FORBIDDEN", `${op}: ${JSON.stringify(r)}`).toBe(true);
      expect(sentOps().slice(before)).toContain(op);
    }
    const notifyOps = () => sentOps().filter((op) => op.startsWith("notify_")).length;
    const before = notifyOps();
    for (const op of ["notify_settings", "notify_settings_set", "notify_test"]) {
      const r = await popup.callRaw(op, op === "notify_test" ? { channelId: "phone" } : {});
      expect(r).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    }
    expect(notifyOps()).toBe(before);
  });
});

describe("ui bridge: executor settings", () => {
  it("the concurrency limit set from the options page is applied, kept, and shown to every view", async () => {
    const a = pageClient();
    const b = pageClient();
    await waitFor(() => a.status.value !== null && b.status.value !== null, "status");
    expect(a.status.value?.maxGenerating).toBe(3);
    a.setMaxGenerating(5);
    await waitFor(() => b.status.value?.maxGenerating === 5, "pushed");
    expect(w.executor.health().maxGenerating).toBe(5);
    expect((await w.db.prefs.get("maxGenerating"))?.value).toBe(5);
  });

  it("reopening closed tabs is this browser's setting: read and switched by a page, kept, never asked of the host", async () => {
    const page = pageClient();
    await waitFor(() => page.status.value !== null, "status");
    const requests = () => w.browser.host.of("ui.request").length;
    const before = requests();
    expect(await page.callRaw("tab_settings_get", {})).toEqual({
      ok: true,
      value: { reopenClosedTabs: true },
    });
    expect(await page.callRaw("tab_settings_set", { reopenClosedTabs: false })).toEqual({
      ok: true,
      value: { reopenClosedTabs: false },
    });
    expect(await w.executor.reopenClosedTabs()).toBe(false);
    expect((await w.db.prefs.get("reopenClosedTabs"))?.value).toBe(false);
    expect(await page.callRaw("tab_settings_set", { reopenClosedTabs: "no" })).toMatchObject({
      ok: false,
      error: { code: "INVALID_INPUT" },
    });
    expect(requests()).toBe(before);
  });
});

describe("ui bridge: overlay ports", () => {
  /** Spawning makes the host command `conversation.create`; the executor opens the tab and binds it (for real). */
  async function boundTab(workerId: string): Promise<number> {
    let tabId: number | undefined;
    await waitFor(async () => {
      const b = await w.db.bindings.get(workerId);
      tabId = b?.state === "bound" && b.conversationId !== undefined ? b.tabId : undefined;
      return tabId !== undefined;
    }, "worker bound to a tab");
    return tabId!;
  }

  function overlayClient(tabId: number): UiClient {
    const tab = w.browser.tabs.get(tabId)!;
    const client = new UiClient((name) => connectView(name, w.browser.senderOf(tab)), OVERLAY_PORT);
    w.clients.push(client);
    return client;
  }

  it("knows its tab's worker and may control only that one", async () => {
    const { runId, workerId } = await runWithWorker();
    const { worker: other } = (await call("worker_spawn", {
      runId,
      path: "/root/other",
      objective: "x",
    })) as {
      worker: { id: string };
    };
    const client = overlayClient(await boundTab(workerId));
    await waitFor(() => client.status.value !== null, "status");
    expect(client.status.value?.tabWorkerId).toBe(workerId);
    const foreign = await client.callRaw("worker_pause", { workerId: other.id });
    expect(foreign).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(w.backend.state.workers[other.id]!.pause).toBeUndefined();
    const summary = await client.callRaw("ui_summary", {});
    expect(summary).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    const own = await client.callRaw("worker_pause", { workerId });
    expect(own).toMatchObject({ ok: true });
    expect(w.backend.state.workers[workerId]!.pause?.source).toBe("operator");
  });

  it("may never read, change or test the notification channels", async () => {
    const { workerId } = await runWithWorker();
    const client = overlayClient(await boundTab(workerId));
    await waitFor(() => client.status.value?.tabWorkerId === workerId, "status");
    // The background's own reads (the badge) go on meanwhile: only the notify requests are counted.
    const requests = () =>
      w.browser.host.of("ui.request").filter((m) => String(m.op).startsWith("notify_")).length;
    for (const [op, params] of [
      ["notify_settings", {}],
      ["notify_settings", { workerId }],
      ["notify_settings_set", { settings: { channels: [] }, workerId }],
      ["notify_test", { channelId: "phone", workerId }],
    ] as const) {
      const r = await client.callRaw(op, params);
      expect(r, op).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    }
    expect(requests()).toBe(0); // none reached the host
    // The same request from the settings page does (so the refusal is the overlay's, not everyone's).
    const options = pageClient(`chrome-extension://${EXTENSION_ID}/extension/options/options.html`);
    const read = await options.callRaw("notify_settings", {});
    expect(read.ok || read.error.code !== "FORBIDDEN").toBe(true);
    expect(requests()).toBe(1);
  });

  it("keeps the active conversation going: adopt binds this tab, the host sends one bootstrap; release forgets it", async () => {
    const url = `https://chatgpt.com/c/${w.browser.nextConversationId()}`;
    const tab = w.browser.openTab(url);
    await waitFor(() => tab.adapter !== undefined, "the tab's content script");
    const adapter = tab.adapter!;
    adapter.report("idle");
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "connected");

    const adopted = await client.callRaw("conversation_adopt", {
      objective: "finish the report",
      conversationUrl: "https://chatgpt.com/c/forged",
    });
    expect(adopted).toMatchObject({ ok: true });
    const workerId = (adopted as { value: { worker: { id: string } } }).value.worker.id;
    const worker = w.backend.state.workers[workerId]!;
    expect(worker.objective).toBe("finish the report");
    await waitFor(() => client.status.value?.tabWorkerId === workerId, "the popup sees this tab's worker");
    // The host's one bootstrap turn is typed into this very tab: no new chat was opened.
    await waitFor(() => adapter.submits.length === 1, "the bootstrap turn");
    expect(w.browser.tabs.size).toBe(1);
    expect(adapter.submits[0]!.mode).toBe("send");

    const again = await client.callRaw("conversation_adopt", {});
    expect(again).toMatchObject({ ok: false, error: { code: "CONFLICT" } });

    const released = await client.callRaw("conversation_release", { workerId });
    expect(released).toMatchObject({ ok: true });
    expect(w.backend.state.workers[workerId]!.status).toBe("cancelled");
    await waitFor(() => client.status.value?.tabWorkerId === null, "the tab is the user's again");
    expect(await w.db.bindings.get(workerId)).toBeUndefined();
  });

  it("releases a worker that has ended already: its tab is forgotten, so the conversation can be kept going again", async () => {
    const { workerId } = await runWithWorker();
    const tabId = await boundTab(workerId);
    await call("worker_stop", { workerId }); // ended elsewhere (MCP, the dashboard)
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "connected");
    const released = await client.callRaw("conversation_release", { workerId });
    expect(released).toMatchObject({ ok: true, value: { workerId, alreadyEnded: true } });
    expect(await w.db.bindings.get(workerId)).toBeUndefined();
    expect(w.browser.tabs.get(tabId)!.autoDiscardable).toBe(true);
  });

  it("adopting a conversation its worker already keeps going, from a second tab, moves the binding there", async () => {
    const url = `https://chatgpt.com/c/${w.browser.nextConversationId()}`;
    const first = w.browser.openTab(url);
    await waitFor(() => first.adapter !== undefined, "the first tab's content script");
    first.adapter!.report("idle");
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "connected");
    const adopted = await client.callRaw("conversation_adopt", {});
    const workerId = (adopted as { value: { worker: { id: string } } }).value.worker.id;
    await waitFor(() => first.adapter!.submits.length === 1, "the bootstrap turn");
    first.adapter!.report("idle");

    const second = w.browser.openTab(url); // the person's second tab on it comes to the front
    await waitFor(() => second.adapter !== undefined, "the second tab's content script");
    const again = await client.callRaw("conversation_adopt", {});
    expect(again).toMatchObject({ ok: true, value: { worker: { id: workerId }, existing: true } });
    expect(await w.db.bindings.toArray()).toEqual([
      expect.objectContaining({ workerId, state: "bound", tabId: second.id }),
    ]);
    expect(first.autoDiscardable).toBe(true);
    expect(second.autoDiscardable).toBe(false);
    expect(Object.keys(w.backend.state.workers)).toEqual([workerId]);
  });

  it("names an adopted worker after the title its own page shows, else after the objective's first words", async () => {
    const titled = w.browser.openTab(`https://chatgpt.com/c/${w.browser.nextConversationId()}`);
    await waitFor(() => titled.adapter !== undefined, "the first tab's content script");
    titled.adapter!.title = "Billing refactor";
    titled.adapter!.report("idle");
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "connected");
    const first = await client.callRaw("conversation_adopt", { objective: "finish the refactor" });
    expect(first).toMatchObject({
      ok: true,
      value: {
        worker: { name: "Billing refactor", objective: "finish the refactor", path: "/root" },
        run: { name: "Billing refactor" },
      },
    });

    const untitled = w.browser.openTab(`https://chatgpt.com/c/${w.browser.nextConversationId()}`);
    await waitFor(() => untitled.adapter !== undefined, "the second tab's content script");
    untitled.adapter!.report("idle");
    const second = await client.callRaw("conversation_adopt", {
      objective: "migrate the orders database to Postgres seventeen tonight",
    });
    expect(second).toMatchObject({
      ok: true,
      value: { worker: { name: "migrate the orders database to Postgres…" } },
    });
  });

  it("refuses to adopt a tab that is not a ChatGPT conversation", async () => {
    w.browser.openTab("https://chatgpt.com/");
    const client = pageClient();
    await waitFor(() => client.status.value?.connection === "connected", "connected");
    const r = await client.callRaw("conversation_adopt", {});
    expect(r).toMatchObject({ ok: false, error: { code: "NOT_A_CONVERSATION" } });
    expect(Object.keys(w.backend.state.workers)).toHaveLength(0);
  });

  it("an unmanaged chatgpt.com tab gets no worker; a port from a page that is not chatgpt.com is refused", async () => {
    const tab = w.browser.openTab("https://chatgpt.com/");
    const client = overlayClient(tab.id);
    await waitFor(() => client.status.value !== null, "status");
    expect(client.status.value?.tabWorkerId).toBeNull();
    const evil = new UiClient(
      (name) =>
        connectView(name, { id: EXTENSION_ID, url: "https://evil.example/", frameId: 0, tab: { id: 5 } }),
      OVERLAY_PORT,
      { setTimeout: () => undefined, clearTimeout: () => undefined },
    );
    w.clients.push(evil);
    expect((await evil.callRaw("worker_pause", { workerId: "x" })).ok).toBe(false);
    expect(w.log.has(/refused an overlay port/)).toBe(true);
  });

  it("adopts its own tab from the overlay only while the offer is on: the sender's tab, never the active one", async () => {
    const active = w.browser.openTab(`https://chatgpt.com/c/${w.browser.nextConversationId()}`);
    const own = w.browser.openTab(`https://chatgpt.com/c/${w.browser.nextConversationId()}`);
    await waitFor(() => active.adapter !== undefined && own.adapter !== undefined, "content scripts");
    own.adapter!.report("idle");
    const overlay = overlayClient(own.id);
    const page = pageClient();
    await waitFor(() => overlay.status.value?.connection === "connected", "overlay status");
    expect(overlay.status.value).toMatchObject({ tabWorkerId: null, tabAdoptable: false });
    const off = await overlay.callRaw("conversation_adopt", {});
    expect(off).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(off.ok || off.error.message).toContain("turned off in the settings");
    expect(Object.keys(w.backend.state.workers)).toHaveLength(0);

    page.setPrefs({ offerAdopt: true });
    await waitFor(() => overlay.status.value?.tabAdoptable === true, "the offer reaches the overlay");
    // The overlay names no conversation, run or tab: only an objective.
    const forged = await overlay.callRaw("conversation_adopt", {
      conversationUrl: active.url,
      objective: "x",
    });
    expect(forged).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } });
    const tooLong = await overlay.callRaw("conversation_adopt", { objective: "x".repeat(2_001) });
    expect(tooLong).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } });
    expect(Object.keys(w.backend.state.workers)).toHaveLength(0);

    const adopted = await overlay.callRaw("conversation_adopt", { objective: "  tidy the notes " });
    expect(adopted).toMatchObject({ ok: true });
    const workerId = (adopted as { value: { worker: { id: string } } }).value.worker.id;
    expect(w.backend.state.workers[workerId]!.objective).toBe("tidy the notes");
    expect((await w.db.bindings.get(workerId))?.tabId).toBe(own.id);
    await waitFor(
      () => overlay.status.value?.tabWorkerId === workerId,
      "the overlay becomes the managed one",
    );
    expect(overlay.status.value?.tabAdoptable).toBe(false);
    await waitFor(() => own.adapter!.submits.length === 1, "the bootstrap turn in the overlay's tab");
    expect(active.adapter!.submits).toHaveLength(0);
    expect(w.browser.tabs.size).toBe(2);

    const again = await overlay.callRaw("conversation_adopt", {});
    expect(again).toMatchObject({ ok: false, error: { code: "CONFLICT" } });
    expect(Object.keys(w.backend.state.workers)).toHaveLength(1);
    // Release stays with the popup and the dashboard.
    const release = await overlay.callRaw("conversation_release", { workerId });
    expect(release).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(w.backend.state.workers[workerId]!.status).toBe("active");
  });

  it("offers adoption only on a saved conversation: not on a new chat, and as soon as the URL gets /c/<id>", async () => {
    const page = pageClient();
    await waitFor(() => page.status.value !== null, "page status");
    page.setPrefs({ offerAdopt: true });
    await waitFor(() => page.status.value?.prefs.offerAdopt === true, "offer on");
    const tab = w.browser.openTab("https://chatgpt.com/");
    const overlay = overlayClient(tab.id);
    await waitFor(() => overlay.status.value?.connection === "connected", "overlay status");
    expect(overlay.status.value).toMatchObject({ tabWorkerId: null, tabAdoptable: false });
    const early = await overlay.callRaw("conversation_adopt", {});
    expect(early).toMatchObject({ ok: false, error: { code: "NOT_A_CONVERSATION" } });
    // ChatGPT's first send moves the tab to /c/<id> with pushState; the browser reports the URL change.
    tab.navigate(`https://chatgpt.com/c/${w.browser.nextConversationId()}`);
    await waitFor(() => overlay.status.value?.tabAdoptable === true, "offered on the saved conversation");
    page.setPrefs({ offerAdopt: false });
    await waitFor(() => overlay.status.value?.tabAdoptable === false, "withdrawn when turned off");
    expect(Object.keys(w.backend.state.workers)).toHaveLength(0);
  });
});

describe("attention: badge and notifications", () => {
  it("counts Needs you and stalled workers on the badge and notifies once per episode when enabled", async () => {
    const { workerId } = await runWithWorker();
    const client = pageClient();
    await waitFor(() => client.status.value !== null, "status");
    client.setPrefs({ notifications: true });
    await waitFor(() => client.status.value?.prefs.notifications === true, "prefs");
    await call("worker_await_human", { workerId, reason: "choice", question: "Ship A or B?" });
    await waitFor(() => w.badge.at(-1) === "1", "badge 1");
    expect(w.titles.at(-1)).toContain("1 needs you");
    await waitFor(() => w.notifications.length === 1, "notification");
    expect(w.notifications[0]).toMatchObject({ title: "Needs you" });
    expect(w.notifications[0]!.message).toContain("Ship A or B?");
    // More changes while it still waits: no second notification.
    await call("worker_progress", { workerId, summary: "still here" });
    await waitFor(() => w.badge.length >= 3, "another refresh");
    expect(w.notifications).toHaveLength(1);
    await call("human_resolve", { workerId, answer: "A" });
    await waitFor(() => w.badge.at(-1) === "", "badge cleared");
  });

  it("shows 'off' on the badge while the host is not connected", async () => {
    w.browser.host.installed = false;
    w.browser.host.kill("Specified native messaging host not found.");
    await waitFor(() => w.badge.at(-1) === "off", "badge off");
    expect(w.titles.at(-1)).toContain("not connected");
  });
});
