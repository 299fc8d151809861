// The owner process, the only one with the database, and the host's composition root: store → engine → executor hub
// (the engine's effect sink) → MCP. Serves executors on stdio and the IPC socket, and agents over MCP.
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { ExecutorHub } from "../bridge/executor-hub.ts";
import type { LivenessEnv } from "../core/liveness.ts";
import { Engine } from "../engine/engine.ts";
import { OPERATIONS } from "../operations/all-operations.ts";
import type { OperationsContext } from "../operations/context.ts";
import { loadNotifySettings } from "../config/host-config.ts";
import { Notifier } from "../notify/notifier.ts";
import { backoffFromEnv } from "../notify/sender.ts";
import { notifySettingsAccess } from "../notify/settings-source.ts";
import { isStoreError } from "../store/store-error.ts";
import type { StoreLogger, StoreOptions } from "../store/store-types.ts";
import { type HostSettings, maskSecret } from "../../../shared/host-settings.ts";
import { DEFAULT_NOTIFY_SETTINGS, type NotifySettings } from "../../../shared/notify-settings.ts";
import { framedStream } from "./framed-stream.ts";
import { authenticatePeer } from "./ipc-auth.ts";
import { activitySummary } from "./status-activity.ts";
import { type HostStatus, StatusFile } from "./status-file.ts";

/** How often status.json's worker labels are recomputed: some change with time alone (Working → Resuming). */
const ACTIVITY_REFRESH_MS = 5_000;
/** How long a change waits for the rest of its burst before the summary is recomputed. */
const ACTIVITY_COALESCE_MS = 200;

export interface McpHandle {
  readonly url: string;
  readonly port: number;
  /** `…/mcp/<token>` with the current token. */
  readonly connectorUrl: string;
  /** The current token. */
  token(): string;
  /** Replaces the token with a fresh one, on disk and in the running server; old clients are refused from now on. */
  rotateToken(): void;
  close(): Promise<void>;
}

export interface OwnerOptions {
  readonly dir: string;
  readonly log: StoreLogger;
  readonly hostVersion: string;
  /** Starts the MCP server on the engine (absent in tests that only speak native messages). */
  readonly startMcp?: (engine: OperationsContext) => Promise<McpHandle>;
  readonly store?: Partial<Pick<StoreOptions, "snapshotAfterBytes" | "faultHook" | "ioRetryMs">>;
  readonly now?: () => number;
  /** The waits between notification attempts (default: ORCHESTRATOR_NOTIFY_BACKOFF_MS, else 10 s … 30 min). */
  readonly notifyBackoffMs?: readonly number[];
}

export interface OwnerHandle {
  readonly engine: Engine;
  readonly hub: ExecutorHub;
  readonly mcpUrl: string | null;
  /** Why the MCP server did not start (its port is taken, say); null when it runs or was not asked for. */
  readonly mcpError: HostStatus["mcpError"];
  /**
   * Serves one executor on a stream pair (the browser's stdio); resolves when it ends, with why. `relayed`: the
   * stream is an IPC socket, whose session may not read or rotate the MCP token.
   */
  serveStream(
    input: Readable,
    output: Writable,
    label: string,
    relayed?: boolean,
  ): { ended: Promise<string>; inject(raw: unknown): void };
  close(): Promise<void>;
}

/** Becomes the owner of `dir`, or answers "locked" when another live process owns it. */
export async function startOwner(opts: OwnerOptions): Promise<OwnerHandle | "locked"> {
  let engine: Engine;
  try {
    engine = await Engine.open({
      dir: opts.dir,
      log: opts.log,
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.store ? { store: opts.store } : {}),
    });
  } catch (e) {
    if (isStoreError(e, "STORE_LOCKED")) return "locked";
    throw e;
  }
  const status = new StatusFile(
    opts.dir,
    {
      pid: process.pid,
      startedAt: Date.now(),
      mcpUrl: null,
      mcpError: null,
      executors: [],
      lastExecutorContactAt: null,
      storage: engine.storeHealth(),
      runs: [],
      workers: [],
    },
    opts.log,
  );
  engine.store.onHealth((health) => status.update({ storage: health }));
  const clock = opts.now ?? Date.now;
  // Needs-you notifications (docs/operator-guide.md, "Notifications"). `notifications` that do not validate turn them
  // off with a warning and nothing else: the workers go on.
  let notifySettings: NotifySettings = DEFAULT_NOTIFY_SETTINGS;
  try {
    notifySettings = loadNotifySettings(opts.dir);
  } catch (e) {
    opts.log.warn(`notifications are off: ${e instanceof Error ? e.message : String(e)}`);
  }
  const notifier: Notifier = new Notifier({
    store: engine.store,
    state: () => engine.state,
    livenessEnv: (): LivenessEnv => liveHub.livenessEnv(),
    settings: notifySettings,
    now: clock,
    log: opts.log,
    backoffMs: opts.notifyBackoffMs ?? backoffFromEnv(process.env),
    onStatus: (notifications) => status.update({ notifications }),
  });
  let mcp: McpHandle | undefined;
  const settings = (reveal: boolean): HostSettings => ({
    hostVersion: opts.hostVersion,
    dataDir: opts.dir,
    mcp: mcp
      ? {
          port: mcp.port,
          url: mcp.url,
          connectorUrl: reveal ? mcp.connectorUrl : `${mcp.url}/${maskSecret(mcp.token())}`,
          token: reveal ? mcp.token() : maskSecret(mcp.token()),
          revealed: reveal,
        }
      : null,
  });
  const liveHub = new ExecutorHub({
    engine,
    operations: OPERATIONS,
    hostVersion: opts.hostVersion,
    log: opts.log,
    hostSettings: {
      get: settings,
      rotateToken() {
        if (!mcp)
          return { code: "MCP_UNAVAILABLE", message: "the MCP server is not running: no token to rotate" };
        mcp.rotateToken();
        opts.log.info("MCP token rotated from the extension's settings");
        return settings(false);
      },
    },
    notify: notifySettingsAccess(opts.dir, notifier, opts.log),
    onContact: () => {
      status.update({ lastExecutorContactAt: Date.now() });
      executorsChanged();
    },
  });
  // A reader (`orchestrator status`, a takeover's new owner) must see the browsers that are here now, not a second
  // later: a change of the executor set is written at once; the labels depend on it too (a browser connected).
  const executorsChanged = () => {
    const now = liveHub.executors;
    if (now.join("\n") === status.status.executors.join("\n")) return;
    status.update({ executors: now });
    refreshActivity();
    notifier.changed();
    status.flush();
  };
  // Runs and workers in status.json: recomputed on every durable change and every few seconds, written only when the
  // summary differs, so an idle backend does not rewrite the file.
  let activityJson = "";
  const refreshActivity = () => {
    const activity = activitySummary(engine.state, clock(), liveHub.livenessEnv());
    const json = JSON.stringify(activity);
    if (json === activityJson) return;
    activityJson = json;
    status.update(activity);
  };
  refreshActivity();
  const activityTimer = setInterval(refreshActivity, ACTIVITY_REFRESH_MS).unref();
  // A burst of commits (a busy MCP client) costs one summary, not one per commit: the views are O(workers).
  let activityPending: NodeJS.Timeout | undefined;
  const activityChanged = () => {
    activityPending ??= setTimeout(() => {
      activityPending = undefined;
      refreshActivity();
    }, ACTIVITY_COALESCE_MS).unref();
  };
  engine.attach({
    dispatch: (command) => liveHub.dispatch(command),
    cancel: (workerId, commandId) => liveHub.cancel(workerId, commandId),
    changed: (seq) => {
      liveHub.changed(seq);
      activityChanged();
      notifier.changed();
    },
    storeHealth: (health) => liveHub.storeHealth(health),
    livenessEnv: () => liveHub.livenessEnv(),
  });
  // Coalesced on every durable change like the activity above, and re-checked every few seconds on its own timer:
  // some episodes begin with time alone. Its deliveries run on their own timers; nothing here waits for them.
  notifier.start();

  const serveStream = (input: Readable, output: Writable, label: string, relayed = false) => {
    // Frames can only arrive after this synchronous setup, so the session always exists when they do.
    const ref: { session?: ReturnType<ExecutorHub["connect"]> } = {};
    const stream = framedStream(input, output, (raw) => void ref.session?.receive(raw), opts.log, label);
    const session = liveHub.connect({ label, relayed, send: (m) => stream.send(m) });
    ref.session = session;
    const ended = stream.ended.then((why) => {
      session.close();
      executorsChanged();
      return why;
    });
    return { ended, inject: (raw: unknown) => void session.receive(raw) };
  };

  // Relays (a second browser's host, the CLI) reach the owner over the IPC socket, once they proved with the secret
  // in ipc.secret that they run as this user; until then nothing they send is handled and nothing is sent to them.
  const sockets = new Set<Socket>();
  let peers = 0;
  engine.store.lock.serve((socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A peer that resets the connection must not crash the owner with an unhandled 'error'.
    socket.on("error", () => undefined);
    const label = `relay#${++peers}`;
    void authenticatePeer(socket, engine.store.lock.secret, { log: opts.log, label }).then((ok) => {
      if (ok) void serveStream(socket, socket, label, true).ended.then(() => socket.destroy());
    });
  });

  let mcpError: HostStatus["mcpError"] = null;
  try {
    mcp = opts.startMcp ? await opts.startMcp(engine) : undefined;
  } catch (e) {
    // The executor side still works without MCP (e.g. the port is taken): say so loudly, keep serving.
    opts.log.warn(`MCP server did not start: ${String(e)}`);
    const error = e as NodeJS.ErrnoException & { port?: unknown };
    mcpError = {
      code: typeof error.code === "string" ? error.code : "MCP_UNAVAILABLE",
      message: error instanceof Error ? error.message : String(e),
      port: typeof error.port === "number" ? error.port : 0,
    };
  }
  status.update({ mcpUrl: mcp?.url ?? null, mcpError });
  status.flush();

  return {
    engine,
    hub: liveHub,
    mcpUrl: mcp?.url ?? null,
    mcpError,
    serveStream,
    async close() {
      clearInterval(activityTimer);
      clearTimeout(activityPending);
      notifier.stop();
      status.stop();
      for (const s of sockets) s.destroy();
      await mcp?.close();
      await engine.close();
    },
  };
}
