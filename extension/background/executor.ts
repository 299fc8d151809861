// The background executor: it carries out the host's commands in ChatGPT tabs exactly once, reports what the
// tabs show, and after any restart tells the host precisely what it knows (spec 12, 13.2, 13.3, 19, 21, 22).
// It never decides that another turn is warranted (spec 12.1): it only submits what the host commands.
import { isChatGptStartUrl } from "../../shared/chatgpt-start-url.ts";
import {
  MAX_GENERATING_LIMIT,
  PROTOCOL_VERSION,
  type CommandMessage,
  type ExtensionMessage,
  type Hello,
  type HostMessage,
} from "../../shared/native-messages.ts";
import type { BackoffPolicy } from "../lib/backoff.ts";
import type { BrowserFamily, ExtensionApi, MessageSender, SendResponse } from "../lib/browser-api.ts";
import { conversationIdOf, NEW_CHAT_URL } from "../lib/chatgpt-url.ts";
import {
  contentMessageSchema,
  pageMessageSchema,
  type StateReport,
  type SubmitMode,
  type SubmitResult,
} from "../lib/content-protocol.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import { commandMarker, embedMarker } from "../lib/marker.ts";
import { ContentChannel } from "./content-channel.ts";
import {
  JournalStore,
  PrefStore,
  type BindingRecord,
  type ObservedRecord,
  type OrchestratorDb,
} from "./db.ts";
import { helloPhase, needsReport, newEntry, type JournalEntry } from "./journal.ts";
import {
  NativeConnection,
  type ConnectionHealth,
  type PortHandle,
  type Timers,
} from "./native-connection.ts";
import { GeneratingTabs, SerialQueues } from "./queue.ts";
import { checkContentSender, isExtensionPageSender } from "./sender.ts";
import { markTold, TabKeeper, type CommandTab } from "./tab-keeper.ts";

export interface ExecutorOptions {
  /**
   * Tabs generating at once across workers, unless the `maxGenerating` preference says otherwise. The host keeps the
   * limit (it sends a command only when a slot is free); this browser tells it in `hello` and `executor.settings`.
   */
  readonly maxGenerating: number;
  /** How long a tab may take to load the content script before a command fails (nothing submitted). */
  readonly contentReadyTimeoutMs: number;
  /** How long the page may take to submit (wait for the composer, insert, click, confirm). */
  readonly submitTimeoutMs: number;
  /** One ping, marker or status question to a content script. */
  readonly probeTimeoutMs: number;
  /** After a restart: how long to wait for a tab's content script to come back before failing closed. */
  readonly recoveryWaitMs: number;
  /** A tab stops counting as generating at the latest after this long without an idle report. */
  readonly generatingHoldMs: number;
  /** Finished journal entries are kept this long (to answer a redelivered command), and at most this many. */
  readonly journalKeepMs: number;
  readonly journalKeepMax: number;
  readonly backoff?: BackoffPolicy;
}

export const DEFAULT_OPTIONS: ExecutorOptions = {
  maxGenerating: 3,
  contentReadyTimeoutMs: 45_000,
  submitTimeoutMs: 180_000,
  probeTimeoutMs: 3_000,
  recoveryWaitMs: 10_000,
  generatingHoldMs: 60 * 60_000,
  journalKeepMs: 24 * 60 * 60_000,
  journalKeepMax: 500,
};

export interface ExecutorDeps {
  readonly api: ExtensionApi;
  readonly db: OrchestratorDb;
  readonly timers: Timers;
  readonly log: Logger;
  readonly browser: BrowserFamily;
  readonly options?: Partial<ExecutorOptions>;
  /** `ui.response`/`ui.changed` for the views (ui-bridge.ts); handled at once, not behind commands. */
  readonly onUiMessage?: (message: Extract<HostMessage, { kind: "ui.response" | "ui.changed" }>) => void;
  readonly onHealth?: (health: ConnectionHealth) => void;
}

export interface ExecutorHealth {
  readonly executorId: string;
  readonly connection: ConnectionHealth;
  readonly generating: number;
  readonly maxGenerating: number;
  readonly hostVersion?: string;
}

const KEEPALIVE_ALARM = "orchestrator.keepalive";
/** Not a protocol error code: the host cancelled the command before its submission started. */
const CANCELLED = "CANCELLED";
const AMBIGUOUS = "AMBIGUOUS_SUBMISSION";
/** Sequence numbers come from the clock, so dropping an old worker's last observation loses nothing. */
const OBSERVED_KEEP_MS = 7 * 24 * 60 * 60_000;

type Outcome =
  | { readonly outcome: "submitted"; readonly url?: string }
  | { readonly outcome: "failed"; readonly errorCode: string; readonly detail?: string };

const isPositiveInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0;
const isBool = (v: unknown): v is boolean => typeof v === "boolean";
const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 200;

export class Executor {
  readonly connection: NativeConnection;
  private readonly opts: ExecutorOptions;
  private readonly journal: JournalStore;
  private readonly prefs: PrefStore;
  private readonly content: ContentChannel;
  /** Where each worker's conversation is open, and the tab events that move it (docs/extension.md, "Bindings"). */
  private readonly tabs: TabKeeper;
  private readonly queues = new SerialQueues();
  private readonly generatingTabs = new GeneratingTabs();
  private executorId = "";
  private focusNewTabs = false;
  private ready: Promise<void> = new Promise(() => undefined);
  private started = false;
  /** Commands whose submission this process is carrying out right now. */
  private readonly inFlight = new Set<string>();
  /** Commands with a task in a worker queue. */
  private readonly scheduled = new Set<string>();
  private readonly submitting = new Set<string>();
  private readonly observedGenerating = new Set<string>();
  private readonly aborts = new Map<string, AbortController>();
  private readonly holdTimers = new Map<string, unknown>();
  private readonly lastSeq = new Map<string, number>();
  /** Outbound reports run one at a time, so `hello` and live reports never interleave inconsistently. */
  private outbox: Promise<unknown> = Promise.resolve();
  /** The port `hello` went out on; reports are sent only there. */
  private port: PortHandle | undefined;
  private readonly helloContents = new Map<number, { commandIds: string[]; bindings: BindingRecord[] }>();
  private pendingSteps = 0;
  /** Host messages are handled one at a time, in arrival order (commands of a worker stay in order). */
  private hostChain: Promise<unknown> = Promise.resolve();
  private maxGenerating = DEFAULT_OPTIONS.maxGenerating;
  /** Bound tabs whose content script did not answer during recovery. */
  private silentTabs: number[] = [];
  private hostVersion: string | undefined;

  constructor(private readonly deps: ExecutorDeps) {
    this.opts = { ...DEFAULT_OPTIONS, ...deps.options };
    this.journal = new JournalStore(deps.db);
    this.prefs = new PrefStore(deps.db);
    this.content = new ContentChannel(deps.api, deps.timers);
    this.tabs = new TabKeeper({
      api: deps.api,
      db: deps.db,
      log: deps.log,
      timers: deps.timers,
      content: this.content,
      probeTimeoutMs: this.opts.probeTimeoutMs,
      ready: () => this.ready,
      step: (fn) => this.step(fn),
      send: (message) => this.send(message),
      serial: (workerId, fn) => this.queues.run(workerId, fn),
      submitting: (workerId) => this.submitting.has(workerId),
      observe: (workerId, report) => this.observe(workerId, report, { report: true }),
      tabGone: (workerId) => {
        this.observedGenerating.delete(workerId);
        if (!this.submitting.has(workerId)) this.releaseSlot(workerId);
      },
      focusNewTabs: () => this.focusNewTabs,
    });
    this.connection = new NativeConnection({
      api: deps.api,
      timers: deps.timers,
      log: deps.log,
      ...(this.opts.backoff ? { backoff: this.opts.backoff } : {}),
      onOpen: (port) => this.sendHello(port),
      ...(deps.onHealth ? { onHealth: deps.onHealth } : {}),
      onMessage: (message, port) => {
        if (message.kind === "welcome" && !message.error) this.hostVersion = message.hostVersion;
        if (message.kind === "ui.response" || message.kind === "ui.changed") {
          deps.onUiMessage?.(message);
          return;
        }
        const handled = this.hostChain.then(() => this.onHostMessage(message, port));
        this.hostChain = handled.catch(() => undefined);
        this.guard(`host ${message.kind}`, handled);
      },
      onClose: () => {
        this.port = undefined;
      },
    });
  }

  // ── lifecycle ─────────────────────────────────────────────────────────────────────────────────

  /**
   * Registers every event listener. Call synchronously in the first turn of the background script: an MV3
   * service worker woken by an event only delivers it to listeners registered at top level.
   */
  listen(): void {
    const { api } = this.deps;
    api.runtime.onMessage.addListener((m, s, r) => this.onRuntimeMessage(m, s, r));
    this.tabs.listen();
    api.alarms.onAlarm.addListener((alarm) => {
      if (alarm.name === KEEPALIVE_ALARM) this.connection.ensure();
    });
    // These only need to wake the background; start() has already run by then.
    api.runtime.onStartup.addListener(() => this.connection.ensure());
    api.runtime.onInstalled.addListener(() => this.connection.ensure());
  }

  /** Recovers from the journal (once), then connects to the host. */
  start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.ready = this.recover();
      void this.ready.then(
        () => this.connection.start(),
        (e: unknown) => this.deps.log.warn(`recovery failed: ${errorText(e)}`),
      );
      void Promise.resolve(this.deps.api.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 1 })).catch(
        (e: unknown) => this.deps.log.warn(`keepalive alarm: ${errorText(e)}`),
      );
    }
    return this.ready;
  }

  stop(): void {
    this.connection.stop();
    for (const timer of this.holdTimers.values()) this.deps.timers.clearTimeout(timer);
    this.holdTimers.clear();
  }

  health(): ExecutorHealth {
    return {
      executorId: this.executorId,
      connection: this.connection.health(),
      generating: this.generatingTabs.size,
      maxGenerating: this.maxGenerating,
      ...(this.hostVersion !== undefined ? { hostVersion: this.hostVersion } : {}),
    };
  }

  /** For the views' bridge: a `ui.request` on the port `hello` went out on (false if there is none). */
  sendUi(message: Extract<ExtensionMessage, { kind: "ui.request" }>): boolean {
    return this.send(message);
  }

  /**
   * The options page changed the limit of tabs generating at once: kept as the `maxGenerating` preference and told to
   * the host, which keeps the limit (without a port now, the next `hello` carries it).
   */
  async setMaxGenerating(limit: number): Promise<void> {
    await this.ready;
    await this.prefs.set("maxGenerating", limit);
    this.maxGenerating = limit;
    await this.step(() => {
      this.send({ kind: "executor.settings", maxGenerating: Math.min(limit, MAX_GENERATING_LIMIT) });
      return Promise.resolve();
    });
  }

  /** Managed tabs as this browser knows them (the views' "current conversation" and diagnostics). */
  async bindings(): Promise<BindingRecord[]> {
    await this.ready;
    return this.deps.db.bindings.toArray();
  }

  /** Whether a worker whose tab was closed gets its conversation reopened (the `reopenClosedTabs` preference). */
  async reopenClosedTabs(): Promise<boolean> {
    await this.ready;
    return this.tabs.reopensClosedTabs();
  }

  /** The options page switched reopening: kept, and every worker without a tab is reported again. */
  async setReopenClosedTabs(on: boolean): Promise<void> {
    await this.ready;
    await this.tabs.setReopenClosedTabs(on);
  }

  /**
   * "Keep this conversation going": binds the open conversation tab to the worker the host created for it (or the
   * one that already keeps it going: its binding, wherever it was, is replaced) and reports what the page shows
   * now, so the host can send its one bootstrap turn. The user chose this tab; nothing else is ever adopted.
   */
  async adoptTab(workerId: string, tabId: number, url: string): Promise<void> {
    await this.ready;
    const conversationId = conversationIdOf(url);
    if (conversationId === undefined) throw new Error(`${url} is not a ChatGPT conversation`);
    await this.tabs.adopt(workerId, tabId, url, conversationId);
    const ping = await this.content.ping(tabId, this.opts.probeTimeoutMs);
    if (ping.ok && ping.value.state)
      await this.observe(
        workerId,
        { ...ping.value.state, url: ping.value.state.url ?? url },
        { report: true },
      );
  }

  /** "Release": the host stopped the worker; forget its tab, so nothing of it is observed or sent any more. */
  async releaseTab(workerId: string): Promise<void> {
    await this.ready;
    await this.tabs.release(workerId);
  }

  /** Resolves once no command is queued or running and no report is pending (tests, diagnostics). */
  async idle(): Promise<void> {
    await this.ready;
    while (this.scheduled.size > 0 || this.pendingSteps > 0) await this.sleep(2);
    await this.hostChain;
  }

  // ── recovery (spec 12.4, 13.2, 13.3) ──────────────────────────────────────────────────────────

  private async recover(): Promise<void> {
    const { db, timers, log } = this.deps;
    this.executorId = await this.prefs.get("executorId", "", isText);
    if (!this.executorId) {
      this.executorId = `${this.deps.browser}-${randomHex(timers.random, 8)}`;
      await this.prefs.set("executorId", this.executorId);
    }
    this.maxGenerating = await this.prefs.get("maxGenerating", this.opts.maxGenerating, isPositiveInt);
    this.focusNewTabs = await this.prefs.get("focusNewTabs", false, isBool);
    await this.tabs.load();
    for (const o of await db.observed.toArray()) this.lastSeq.set(o.workerId, o.seq);

    await this.verifyBindings();

    const entries = await this.journal.all();
    await Promise.all(
      entries
        .filter((e) => e.phase === "submission-started")
        .map(async (entry) => {
          const outcome = await this.resolveInterrupted(entry);
          log.info(`recovered ${entry.commandId} from submission-started as ${outcome.outcome}`);
          await this.finish(entry, outcome, { report: false });
        }),
    );
    for (const entry of entries.filter((e) => e.phase === "received")) this.schedule(entry);
    await this.journal.prune(timers.now(), this.opts.journalKeepMs, this.opts.journalKeepMax);
    await this.pruneObserved();
    this.guard("reviving tabs", this.reviveSilentTabs());
    this.guard("reopening tabs", this.tabs.reviveDetached());
  }

  /** Bindings checked against the open tabs (tab-keeper.ts), then every bound tab is asked what it shows. */
  private async verifyBindings(): Promise<void> {
    const { db } = this.deps;
    await this.tabs.verify();
    // Republish the current observed state of every verified tab (spec 13.2).
    const verified = (await db.bindings.toArray()).filter((b) => b.state === "bound");
    const pings = await Promise.all(
      verified.map((b) => this.content.ping(b.tabId, this.opts.probeTimeoutMs)),
    );
    const silent: number[] = [];
    for (const [i, b] of verified.entries()) {
      const ping = pings[i];
      if (ping?.ok && ping.value.state) await this.observe(b.workerId, ping.value.state, { report: false });
      else if (!ping?.ok) silent.push(b.tabId);
    }
    this.silentTabs = silent;
  }

  /**
   * A managed tab whose content script does not answer is not observed, so its worker would never be resumed.
   * Chromium does not inject content scripts into tabs open before an extension update, and restores tabs
   * unloaded: give each one a moment, then reload it (ChatGPT resumes a running reply after a reload).
   */
  private async reviveSilentTabs(): Promise<void> {
    const tabs = this.silentTabs;
    this.silentTabs = [];
    await Promise.all(
      tabs.map(async (tabId) => {
        const { recoveryWaitMs, probeTimeoutMs } = this.opts;
        if (await this.content.waitForContent(tabId, recoveryWaitMs, probeTimeoutMs)) return;
        const binding = await this.tabs.bindingOfTab(tabId);
        if (binding === undefined || this.submitting.has(binding.workerId)) return;
        this.deps.log.info(`tab ${tabId} of ${binding.workerId} has no content script: reloading it`);
        await this.deps.api.tabs.reload(tabId).catch(() => undefined);
      }),
    );
  }

  /** Last observations of workers this browser no longer holds are kept a while, then dropped. */
  private async pruneObserved(): Promise<void> {
    const { db } = this.deps;
    const bound = new Set((await db.bindings.toArray()).map((b) => b.workerId));
    const cutoff = this.now() - OBSERVED_KEEP_MS;
    const stale = (await db.observed.toArray()).filter((o) => !bound.has(o.workerId) && o.at < cutoff);
    await db.observed.bulkDelete(stale.map((o) => o.workerId));
  }

  /** Spec 12.4: a submission interrupted by a restart is submitted only with proof, else ambiguous. */
  private async resolveInterrupted(entry: JournalEntry): Promise<Outcome> {
    const tabId = entry.tabId;
    const ambiguous = (why: string): Outcome => ({
      outcome: "failed",
      errorCode: AMBIGUOUS,
      detail: `the executor restarted after it began submitting; ${why}`,
    });
    if (tabId === undefined) return ambiguous("no tab was recorded");
    const tab = await this.deps.api.tabs.get(tabId).catch(() => undefined);
    if (!tab) return ambiguous("its tab is gone");
    if (!(await this.content.waitForContent(tabId, this.opts.recoveryWaitMs, this.opts.probeTimeoutMs)))
      return ambiguous("its tab does not answer");
    const deadline = this.deps.timers.now() + this.opts.submitTimeoutMs;
    for (;;) {
      const status = await this.content.submitStatus(tabId, entry.commandId, this.opts.probeTimeoutMs);
      if (!status.ok || status.value.status === "unknown") break;
      if (status.value.status === "done") return this.settle(tabId, entry, status.value.result);
      if (this.deps.timers.now() > deadline) break;
      await this.sleep(250);
    }
    return (await this.proveByMarker(tabId, entry))
      ? { outcome: "submitted", ...(tab.url ? { url: tab.url } : {}) }
      : ambiguous("its marker is not in the conversation");
  }

  // ── host messages ─────────────────────────────────────────────────────────────────────────────

  private async onHostMessage(message: HostMessage, port: PortHandle): Promise<void> {
    await this.ready;
    switch (message.kind) {
      case "welcome":
        if (!message.error) await this.welcomed(port.generation);
        return;
      case "command":
        return this.onCommand(message, port);
      case "command.cancel":
        return this.onCancel(message.commandId);
      case "binding.release":
        // The host does not know the worker: its tab is the person's again (never reopened, rebound or kept from discarding).
        return this.tabs.release(message.workerId);
      case "ui.response":
      case "ui.changed":
        return; // handed to the views' bridge on arrival (constructor)
    }
  }

  private sendHello(port: PortHandle): void {
    this.guard(
      "hello",
      this.step(async () => {
        await this.ready;
        const hello = await this.buildHello();
        if (port.send(hello.message)) {
          this.port = port;
          this.helloContents.set(port.generation, hello.contents);
        }
      }),
    );
  }

  private async buildHello(): Promise<{
    message: Hello;
    contents: { commandIds: string[]; bindings: BindingRecord[] };
  }> {
    const { db, api } = this.deps;
    const observed = new Map((await db.observed.toArray()).map((o) => [o.workerId, o]));
    const bindings = (await db.bindings.toArray()).slice(0, 1_000);
    const entries = (await this.journal.all()).filter(needsReport).slice(0, 1_000);
    const message: Hello = {
      kind: "hello",
      protocolVersion: PROTOCOL_VERSION,
      executorId: this.executorId,
      browser: this.deps.browser,
      extensionVersion: api.runtime.getManifest().version,
      bindings: bindings.map((b) => {
        // A detached worker's last observation still says whether its turn was running (the host decides on it).
        const o = b.state !== "unavailable" ? observed.get(b.workerId) : undefined;
        return {
          workerId: b.workerId,
          binding: b.state,
          ...(b.url !== undefined ? { url: b.url } : {}),
          ...(o
            ? {
                observed: {
                  state: o.state,
                  seq: o.seq,
                  ...(o.errorCode !== undefined ? { errorCode: o.errorCode } : {}),
                },
              }
            : {}),
        };
      }),
      journal: entries.map((e) => ({
        commandId: e.commandId,
        workerId: e.workerId,
        phase: helloPhase(e, this.inFlight.has(e.commandId)),
        ...(e.errorCode !== undefined ? { errorCode: e.errorCode } : {}),
        ...(e.url !== undefined ? { url: e.url } : {}),
      })),
      // A preference stored out of range must not make the host refuse the whole hello.
      maxGenerating: Math.min(this.maxGenerating, MAX_GENERATING_LIMIT),
    };
    const told = entries.filter((e) => e.phase === "submitted" || e.phase === "failed");
    return { message, contents: { commandIds: told.map((e) => e.commandId), bindings } };
  }

  /** The host answered our `hello`: what it carried is now known to the host. */
  private welcomed(generation: number): Promise<void> {
    const contents = this.helloContents.get(generation);
    this.helloContents.delete(generation);
    if (!contents) return Promise.resolve();
    return this.step(async () => {
      const now = this.deps.timers.now();
      for (const id of contents.commandIds) {
        await this.journal.transition(id, ["submitted"], "completed", {}, now);
        await this.journal.markFailureReported(id, now);
      }
      const { db } = this.deps;
      await db.transaction("rw", db.bindings, async () => {
        for (const sent of contents.bindings) {
          const current = await db.bindings.get(sent.workerId);
          if (current?.updatedAt !== sent.updatedAt || current.state !== sent.state) continue;
          await markTold(db, current);
        }
      });
    });
  }

  private async onCommand(command: CommandMessage, port: PortHandle): Promise<void> {
    const { log, timers } = this.deps;
    const known = await this.journal.get(command.commandId);
    if (known) return this.redelivered(known, port);
    const twin = (await this.journal.byIdempotencyKey(command.idempotencyKey)).find(
      (e) => e.commandId !== command.commandId,
    );
    // Journal first (strict durability), then acknowledge: an acknowledged command survives any crash.
    const entry = await this.journal.insert(
      newEntry(command, commandMarker(command.commandId), timers.now()),
    );
    port.send({ kind: "command.ack", commandId: entry.commandId, workerId: entry.workerId });
    if (twin) {
      log.warn(`${command.commandId} repeats idempotency key of ${twin.commandId}: not submitted again`);
      return this.finish(entry, {
        outcome: "failed",
        errorCode: "CONFLICT",
        detail: `same idempotency key as command ${twin.commandId}, which is ${twin.phase}`,
      });
    }
    this.schedule(entry);
  }

  /** A command id already journaled: answer from the journal, never submit again (spec 12.4). */
  private async redelivered(entry: JournalEntry, port: PortHandle): Promise<void> {
    port.send({ kind: "command.ack", commandId: entry.commandId, workerId: entry.workerId });
    switch (entry.phase) {
      case "completed":
      case "failed":
        return this.step(async () => {
          this.send(resultMessage(entry));
          if (entry.phase === "failed") await this.journal.markFailureReported(entry.commandId, this.now());
        });
      case "submitted":
        return this.step(() => this.reportSubmitted(entry));
      case "received":
        if (!this.scheduled.has(entry.commandId)) this.schedule(entry);
        return;
      case "submission-started":
        return; // being carried out here: its result follows
    }
  }

  /**
   * Spec 21.3: a command not yet being submitted is withdrawn, and the host is told (CANCELLED proves it was
   * never sent, so the host can close the attempt). One already being submitted runs on; its result is reported.
   */
  private onCancel(commandId: string): Promise<void> {
    return this.step(async () => {
      const now = this.now();
      // Only from `received`, in one transaction: a submission that has started wins and reports its own result.
      const cancelled = await this.journal.transition(
        commandId,
        ["received"],
        "failed",
        { errorCode: CANCELLED, detail: "cancelled by the host before submission" },
        now,
      );
      if (!cancelled) {
        const entry = await this.journal.get(commandId);
        this.deps.log.info(`cancel of ${commandId} ignored: ${entry ? entry.phase : "unknown command"}`);
        return;
      }
      this.aborts.get(commandId)?.abort();
      this.deps.log.info(`${commandId} cancelled before submission`);
      if (this.send(resultMessage(cancelled))) await this.journal.markFailureReported(commandId, now);
    });
  }

  // ── carrying out a command ────────────────────────────────────────────────────────────────────

  private schedule(entry: JournalEntry): void {
    const { commandId, workerId } = entry;
    this.scheduled.add(commandId);
    const abort = new AbortController();
    this.aborts.set(commandId, abort);
    this.queues
      .run(workerId, () =>
        this.execute(commandId, abort.signal).catch((e: unknown) => this.failUnexpected(commandId, e)),
      )
      .catch((e: unknown) => this.deps.log.warn(`${commandId}: ${errorText(e)}`))
      .finally(() => {
        this.scheduled.delete(commandId);
        this.aborts.delete(commandId);
      });
  }

  /** A browser API threw mid-command: before submission nothing was sent; after it, the marker decides. */
  private async failUnexpected(commandId: string, error: unknown): Promise<void> {
    const why = errorText(error);
    this.deps.log.warn(`${commandId}: ${why}`);
    const entry = await this.journal.get(commandId);
    if (entry?.phase === "received")
      return this.finish(entry, { outcome: "failed", errorCode: "EXECUTOR_UNAVAILABLE", detail: why });
    if (entry?.phase === "submission-started") {
      const outcome: Outcome =
        entry.tabId !== undefined
          ? await this.unknownOutcome(entry.tabId, entry, why)
          : { outcome: "failed", errorCode: AMBIGUOUS, detail: `delivery unknown: ${why}` };
      return this.finish(entry, outcome);
    }
  }

  private async execute(commandId: string, signal: AbortSignal): Promise<void> {
    const entry = await this.journal.get(commandId);
    if (entry?.phase !== "received" || signal.aborted) return;
    const { workerId } = entry;
    const fail = (errorCode: string, detail: string) =>
      this.finish(entry, { outcome: "failed", errorCode, detail });
    if (!entry.prompt) return fail("EXECUTOR_UNAVAILABLE", "the journal holds no prompt for this command");
    if (this.now() > entry.deadlineAt)
      return fail("DEADLINE_EXCEEDED", "the deadline passed before submission");

    // Counted as generating from here; the host already kept the limit, so nothing waits for a slot here.
    const needsSlot = entry.type !== "conversation.steer";
    let submitted = false;
    let createdTab: { tabId: number; previous: BindingRecord | undefined } | undefined;
    try {
      if (needsSlot) this.generatingTabs.occupy(workerId);
      const target = await this.targetTab(entry);
      if ("errorCode" in target) return await fail(target.errorCode, target.detail);
      if (target.created) createdTab = { tabId: target.tabId, previous: target.previous };
      const { tabId } = target;
      const reachable = await this.ensureContent(target, entry.type !== "conversation.steer");
      if (!reachable)
        return await fail("EXECUTOR_UNAVAILABLE", "the ChatGPT tab did not load the extension's page script");
      if (signal.aborted) return;
      if (this.now() > entry.deadlineAt)
        return await fail("DEADLINE_EXCEEDED", "the deadline passed before submission");

      // Spec 12.4: from here on the outcome is "submitted" only with proof; a crash leaves it ambiguous.
      const started = await this.journal.transition(
        commandId,
        ["received"],
        "submission-started",
        { tabId },
        this.now(),
      );
      if (!started) return; // cancelled meanwhile
      createdTab = undefined; // the prompt may be in that tab now: it stays, bound
      this.inFlight.add(commandId);
      this.submitting.add(workerId);
      const mode = submitMode(entry.type);
      const reply = await this.content.submit(
        tabId,
        {
          commandId,
          text: embedMarker(entry.prompt.text, entry.marker),
          marker: entry.marker,
          mode,
          deadlineAt: entry.deadlineAt,
          ...(target.expectUrl !== undefined ? { expectUrl: target.expectUrl } : {}),
        },
        this.opts.submitTimeoutMs,
      );
      const outcome = reply.ok
        ? await this.settle(tabId, started, reply.value)
        : await this.unknownOutcome(tabId, started, reply.error);
      submitted = outcome.outcome === "submitted";
      await this.finish(started, outcome);
    } finally {
      this.inFlight.delete(commandId);
      this.submitting.delete(workerId);
      if (needsSlot) {
        if (submitted) this.holdSlot(workerId);
        else if (!this.observedGenerating.has(workerId)) this.releaseSlot(workerId);
      }
      if (createdTab) await this.discardCreatedTab(workerId, createdTab.tabId, createdTab.previous);
    }
  }

  /** The tab a command goes to: a new chat for `create`, else the worker's conversation (tab-keeper.ts). */
  private async targetTab(
    entry: JournalEntry,
  ): Promise<
    | (Exclude<CommandTab, { errorCode: string }> & { created?: boolean; previous?: BindingRecord })
    | { errorCode: string; detail: string }
  > {
    const { api, db } = this.deps;
    if (entry.type !== "conversation.create")
      return this.tabs.commandTab(entry.workerId, entry.conversationUrl);
    const previous = await db.bindings.get(entry.workerId);
    // A GPT's or project's page when the host names one (checked again here: nothing else is opened), else a new chat.
    const start =
      entry.conversationUrl !== undefined && isChatGptStartUrl(entry.conversationUrl)
        ? entry.conversationUrl
        : NEW_CHAT_URL;
    const tab = await api.tabs.create({ url: start, active: this.focusNewTabs });
    if (tab.id === undefined)
      return { errorCode: "EXECUTOR_UNAVAILABLE", detail: "the browser opened no tab" };
    await this.tabs.bindCreated(entry.workerId, tab.id);
    return { tabId: tab.id, fresh: true, discarded: false, created: true, ...(previous ? { previous } : {}) };
  }

  /**
   * Waits for the tab's content script. A discarded tab is reloaded first (it has none until then); an existing tab
   * that does not answer (extension updated) is reloaded once, never for a steer, which is for a reply in progress.
   */
  private async ensureContent(
    target: { tabId: number; fresh: boolean; discarded: boolean },
    mayReload: boolean,
  ): Promise<boolean> {
    const { probeTimeoutMs, contentReadyTimeoutMs } = this.opts;
    const { tabId } = target;
    if (target.fresh) return this.content.waitForContent(tabId, contentReadyTimeoutMs, probeTimeoutMs);
    if (!target.discarded) {
      if ((await this.content.ping(tabId, probeTimeoutMs)).ok) return true;
      if (!mayReload) return false;
    } else this.deps.log.info(`tab ${tabId} was discarded: reloading it for a command`);
    // Chromium does not inject content scripts into tabs that were open before an extension update.
    await this.deps.api.tabs.reload(tabId).catch(() => undefined);
    return this.content.waitForContent(tabId, contentReadyTimeoutMs, probeTimeoutMs);
  }

  /** The page's answer, made exact: a failure after the click is a submission if the marker is there. */
  private async settle(tabId: number, entry: JournalEntry, result: SubmitResult): Promise<Outcome> {
    if (result.outcome === "submitted")
      return { outcome: "submitted", ...(result.url ? { url: result.url } : {}) };
    if (result.phase === "before-submit")
      return {
        outcome: "failed",
        errorCode: result.errorCode,
        ...(result.detail ? { detail: result.detail } : {}),
      };
    if (await this.proveByMarker(tabId, entry))
      return { outcome: "submitted", ...(await this.tabUrl(tabId)) };
    return {
      outcome: "failed",
      errorCode: result.errorCode,
      ...(result.detail ? { detail: result.detail } : {}),
    };
  }

  /** No answer from the page (timeout, tab gone, invalid reply): submitted only if the marker proves it. */
  private async unknownOutcome(tabId: number, entry: JournalEntry, why: string): Promise<Outcome> {
    if (await this.proveByMarker(tabId, entry))
      return { outcome: "submitted", ...(await this.tabUrl(tabId)) };
    return { outcome: "failed", errorCode: AMBIGUOUS, detail: `delivery unknown: ${why}` };
  }

  private async proveByMarker(tabId: number, entry: JournalEntry): Promise<boolean> {
    const reply = await this.content.hasMarker(tabId, entry.marker, this.opts.probeTimeoutMs);
    return reply.ok && reply.value;
  }

  private async tabUrl(tabId: number): Promise<{ url?: string }> {
    const tab = await this.deps.api.tabs.get(tabId).catch(() => undefined);
    return tab?.url !== undefined ? { url: tab.url } : {};
  }

  /** Journals the outcome and reports it (when a port is up; otherwise the next `hello` carries it). */
  private finish(entry: JournalEntry, outcome: Outcome, how: { report: boolean } = { report: true }) {
    return this.step(async () => {
      const now = this.now();
      if (outcome.outcome === "submitted") {
        const url = outcome.url ?? entry.url;
        const next = await this.journal.transition(
          entry.commandId,
          ["submission-started"],
          "submitted",
          url !== undefined ? { url } : {},
          now,
        );
        if (!next) return;
        await this.bindAfterSubmission(next, how);
        if (how.report) await this.reportSubmitted(next);
      } else {
        const next = await this.journal.transition(
          entry.commandId,
          ["received", "submission-started"],
          "failed",
          {
            errorCode: outcome.errorCode,
            ...(outcome.detail !== undefined ? { detail: outcome.detail } : {}),
          },
          now,
        );
        if (!next || !how.report) return;
        if (this.send(resultMessage(next))) await this.journal.markFailureReported(next.commandId, now);
      }
    });
  }

  /** Sends `command.result` (submitted) and marks the entry completed; runs inside an outbox step. */
  private async reportSubmitted(entry: JournalEntry): Promise<void> {
    if (!this.send(resultMessage(entry))) return;
    await this.journal.transition(entry.commandId, ["submitted"], "completed", {}, this.now());
  }

  /** A new chat got its conversation URL with the submission: the binding now names it. */
  private async bindAfterSubmission(entry: JournalEntry, how: { report: boolean }): Promise<void> {
    const { db } = this.deps;
    const binding = await db.bindings.get(entry.workerId);
    if (binding?.state !== "bound" || binding.tabId !== entry.tabId) return;
    const conversationId = conversationIdOf(entry.url);
    if (conversationId === undefined || conversationId === binding.conversationId) return;
    await this.tabs.setBinding(
      entry.workerId,
      { ...binding, url: entry.url, conversationId },
      { report: how.report, inStep: true },
    );
  }

  /** A create that never reached submission: close its tab quietly and give back the previous binding. */
  private async discardCreatedTab(workerId: string, tabId: number, previous: BindingRecord | undefined) {
    await this.tabs.unbindCreated(workerId, tabId, previous);
    await this.deps.api.tabs.remove(tabId).catch(() => undefined);
  }

  // ── tabs generating (counted for the health; the host keeps the limit) ─────────────────────────

  private holdSlot(workerId: string): void {
    const old = this.holdTimers.get(workerId);
    if (old !== undefined) this.deps.timers.clearTimeout(old);
    this.holdTimers.set(
      workerId,
      this.deps.timers.setTimeout(() => {
        this.holdTimers.delete(workerId);
        this.deps.log.warn(
          `${workerId}: no idle report within the hold time; no longer counted as generating`,
        );
        this.observedGenerating.delete(workerId);
        this.generatingTabs.release(workerId);
      }, this.opts.generatingHoldMs),
    );
  }

  private releaseSlot(workerId: string): void {
    const timer = this.holdTimers.get(workerId);
    if (timer !== undefined) this.deps.timers.clearTimeout(timer);
    this.holdTimers.delete(workerId);
    this.generatingTabs.release(workerId);
  }

  // ── content scripts and tabs ──────────────────────────────────────────────────────────────────

  private onRuntimeMessage(message: unknown, sender: MessageSender, sendResponse: SendResponse) {
    const { api, log } = this.deps;
    if (sender.tab === undefined) {
      if (!isExtensionPageSender(sender, api.runtime.id, api.runtime.getURL(""))) return undefined;
      const parsed = pageMessageSchema.safeParse(message);
      if (!parsed.success) return undefined;
      this.ready.then(
        () => sendResponse(this.health()),
        () => sendResponse(undefined),
      );
      return true;
    }
    const check = checkContentSender(sender, api.runtime.id);
    if (!check.ok) {
      log.warn(`rejected a message: ${check.reason}`);
      return undefined;
    }
    const parsed = contentMessageSchema.safeParse(message);
    if (!parsed.success) {
      log.warn(
        `dropped an invalid message from tab ${check.tabId}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
      return undefined;
    }
    const m = parsed.data;
    const work = (async () => {
      await this.ready;
      if (m.type === "content.hello") this.content.announced(check.tabId);
      const report = m.type === "content.hello" ? m.state : m.report;
      const managed = await this.tabs.fromTab(check.tabId, check.url, report);
      return { managed };
    })();
    work.then(sendResponse, (e: unknown) => {
      log.warn(`${m.type} from tab ${check.tabId}: ${errorText(e)}`);
      sendResponse(undefined);
    });
    return true;
  }

  /**
   * Records an observation with the next per-worker sequence number and forwards it. A page's `closed` (it is going
   * away: reload, navigation) ends nothing: the binding follows the browser's tab events, and a reloaded page
   * reports its own state once it is back.
   */
  private observe(workerId: string, report: StateReport, how: { report: boolean }): Promise<void> {
    if (report.state === "closed") return Promise.resolve();
    if (report.state === "generating") {
      this.observedGenerating.add(workerId);
      this.generatingTabs.occupy(workerId);
    } else {
      this.observedGenerating.delete(workerId);
      // A report racing our own submission says nothing about the turn we are starting: keep the slot.
      if (!this.submitting.has(workerId)) this.releaseSlot(workerId);
    }
    return this.step(async () => {
      const { db } = this.deps;
      const previous = await db.observed.get(workerId);
      if (
        !how.report &&
        previous?.state === report.state &&
        previous.errorCode === report.errorCode &&
        previous.continuationStatus === report.continuationStatus
      )
        return;
      const seq = this.nextSeq(workerId);
      const record: ObservedRecord = {
        workerId,
        state: report.state,
        seq,
        ...(report.errorCode !== undefined ? { errorCode: report.errorCode } : {}),
        ...(report.url !== undefined ? { url: report.url } : {}),
        ...(report.continuationStatus !== undefined ? { continuationStatus: report.continuationStatus } : {}),
        at: this.now(),
      };
      await db.observed.put(record);
      if (!how.report) return;
      this.send({
        kind: "conversation.state",
        workerId,
        state: record.state,
        seq,
        ...(record.errorCode !== undefined ? { errorCode: record.errorCode } : {}),
        ...(record.url !== undefined ? { url: record.url } : {}),
        ...(record.continuationStatus !== undefined ? { continuationStatus: record.continuationStatus } : {}),
        // Forwarded, never stored here: the host decides what the block means for the worker (issue 8).
        ...(report.continuationBlock !== undefined ? { continuationBlock: report.continuationBlock } : {}),
        ...(report.resetAt !== undefined ? { resetAt: report.resetAt } : {}),
        // The idle grace counts from the page's own end of turn, not from this report's arrival.
        ...(report.since !== undefined ? { since: report.since } : {}),
      });
    });
  }

  /** Strictly increasing per worker across restarts: never below the clock in microseconds. */
  private nextSeq(workerId: string): number {
    const seq = Math.max((this.lastSeq.get(workerId) ?? 0) + 1, Math.floor(this.now()) * 1000);
    this.lastSeq.set(workerId, seq);
    return seq;
  }

  // ── plumbing ──────────────────────────────────────────────────────────────────────────────────

  /** Sends on the port `hello` went out on; false if there is none (the next `hello` carries the news). */
  private send(message: ExtensionMessage): boolean {
    return this.port?.send(message) ?? false;
  }

  /** Runs `fn` after every earlier outbox step. */
  private step<T>(fn: () => Promise<T>): Promise<T> {
    this.pendingSteps += 1;
    const result = this.outbox.then(fn).finally(() => {
      this.pendingSteps -= 1;
    });
    this.outbox = result.catch(() => undefined);
    return result;
  }

  private guard(what: string, work: Promise<unknown>): void {
    work.catch((e: unknown) => this.deps.log.warn(`${what}: ${errorText(e)}`));
  }

  private now(): number {
    return this.deps.timers.now();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.deps.timers.setTimeout(resolve, ms));
  }
}

function submitMode(type: CommandMessage["type"]): SubmitMode {
  switch (type) {
    case "conversation.create":
      return "create";
    case "conversation.send":
      return "send";
    case "conversation.steer":
      return "steer";
  }
}

function resultMessage(entry: JournalEntry): ExtensionMessage {
  const submitted = entry.phase === "submitted" || entry.phase === "completed";
  return {
    kind: "command.result",
    commandId: entry.commandId,
    workerId: entry.workerId,
    outcome: submitted ? "submitted" : "failed",
    ...(!submitted ? { errorCode: entry.errorCode ?? "EXECUTOR_UNAVAILABLE" } : {}),
    ...(!submitted && entry.detail !== undefined ? { detail: entry.detail.slice(0, 2_000) } : {}),
    ...(entry.url !== undefined ? { url: entry.url } : {}),
  };
}

function randomHex(random: () => number, bytes: number): string {
  let out = "";
  for (let i = 0; i < bytes; i++)
    out += Math.floor(random() * 256)
      .toString(16)
      .padStart(2, "0");
  return out;
}
