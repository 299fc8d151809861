// Builds the background's modules and wires them to each other (docs/extension.md, "Background modules"): which
// module owns which table, and which calls which, is decided here and nowhere else. The executor coordinates them.
import type { BrowserFamily, ExtensionApi } from "../lib/browser-api.ts";
import type { Logger } from "../lib/logger.ts";
import { BindingStore } from "./binding-store.ts";
import { CommandRunner } from "./command-runner.ts";
import { CommandTabs } from "./command-tabs.ts";
import { ContentChannel } from "./content-channel.ts";
import { PrefStore, type OrchestratorDb } from "./db.ts";
import { DiscardExemption } from "./discard-exemption.ts";
import { DEFAULT_OPTIONS, type ExecutorOptions } from "./executor-options.ts";
import { ExecutorSettings } from "./executor-settings.ts";
import { GeneratingSlots } from "./generating-slots.ts";
import { HelloExchange } from "./hello.ts";
import type { Timers } from "./native-connection.ts";
import { Observations } from "./observations.ts";
import { Outbox } from "./outbox.ts";
import { SerialQueues } from "./queue.ts";
import { Recovery } from "./recovery.ts";
import { SubmissionOutcomes } from "./submission-outcome.ts";
import { TabKeeper } from "./tab-keeper.ts";

export interface ModuleDeps {
  readonly api: ExtensionApi;
  readonly db: OrchestratorDb;
  readonly timers: Timers;
  readonly log: Logger;
  readonly browser: BrowserFamily;
  readonly opts: ExecutorOptions;
  /** Resolves once recovery is done (the executor holds it). */
  readonly ready: () => Promise<void>;
}

export interface BackgroundModules {
  readonly settings: ExecutorSettings;
  readonly content: ContentChannel;
  readonly outbox: Outbox;
  readonly slots: GeneratingSlots;
  readonly observations: Observations;
  readonly bindings: BindingStore;
  readonly tabs: TabKeeper;
  readonly runner: CommandRunner;
  readonly recovery: Recovery;
  readonly hello: HelloExchange;
}

export function buildModules(deps: ModuleDeps): BackgroundModules {
  const { api, db, timers, log, opts, ready } = deps;
  const { probeTimeoutMs } = opts;
  const prefs = new PrefStore(db);
  const outbox = new Outbox();
  const step = <T>(fn: () => Promise<T>) => outbox.step(fn);
  const queues = new SerialQueues();
  const settings = new ExecutorSettings(prefs, DEFAULT_OPTIONS.maxGenerating);
  const focusNewTabs = () => settings.focusNewTabs;
  const content = new ContentChannel(api, timers);
  const slots = new GeneratingSlots({ timers, log, holdMs: opts.generatingHoldMs });
  const observations = new Observations({ db, timers, outbox, slots });
  const exemption = new DiscardExemption({ api, log });
  // A tab whose content script is not there yet asks by itself when it starts (its `content.hello`).
  const tabChanged = (tabId: number) =>
    void content.watch(tabId, probeTimeoutMs).then((reply) => {
      if (!reply.ok) log.info(`tab ${tabId} not told its binding changed: ${reply.error}`);
    });
  const bindings = new BindingStore({ db, timers, outbox, exemption, tabChanged });
  const tabs = new TabKeeper({
    api,
    store: bindings,
    exemption,
    prefs,
    log,
    content,
    probeTimeoutMs,
    ready,
    step,
    serial: (workerId, fn) => queues.run(workerId, fn),
    submitting: (workerId) => slots.isSubmitting(workerId),
    observe: (workerId, report) => observations.observe(workerId, report, { report: true }),
    latestObservation: (workerId) => observations.latest(workerId),
    forgetObservation: (workerId) => observations.forget(workerId),
    tabGone: (workerId) => slots.tabGone(workerId),
    focusNewTabs,
  });
  const outcomes = new SubmissionOutcomes({ api, content, probeTimeoutMs });
  const commandTabs = new CommandTabs({
    api,
    log,
    content,
    tabs,
    bindings,
    focusNewTabs,
    probeTimeoutMs,
    contentReadyTimeoutMs: opts.contentReadyTimeoutMs,
  });
  const runner = new CommandRunner({
    db,
    log,
    timers,
    content,
    outbox,
    queues,
    slots,
    bindings,
    commandTabs,
    outcomes,
    submitTimeoutMs: opts.submitTimeoutMs,
    journalKeepMs: opts.journalKeepMs,
    journalKeepMax: opts.journalKeepMax,
  });
  const { browser } = deps;
  const recovery = new Recovery({
    api,
    log,
    timers,
    browser,
    settings,
    content,
    tabs,
    bindings,
    observations,
    runner,
    outcomes,
    slots,
    defaultMaxGenerating: opts.maxGenerating,
    probeTimeoutMs,
    recoveryWaitMs: opts.recoveryWaitMs,
    submitTimeoutMs: opts.submitTimeoutMs,
  });
  const hello = new HelloExchange({
    api,
    log,
    browser,
    outbox,
    settings,
    bindings,
    observations,
    runner,
    ready,
  });
  return { settings, content, outbox, slots, observations, bindings, tabs, runner, recovery, hello };
}
