// Start-up recovery: before `hello`, the executor's settings are loaded, the bindings checked against the open tabs,
// every bound tab asked what it shows, and the journal resumed: a submission a restart interrupted is settled
// (submitted only with proof, else AMBIGUOUS_SUBMISSION), commands still `received` are queued again.
import type { ExtensionApi } from "../lib/browser-api.ts";
import type { Logger } from "../lib/logger.ts";
import type { BindingStore } from "./binding-store.ts";
import type { CommandRunner } from "./command-runner.ts";
import type { ContentChannel } from "./content-channel.ts";
import type { ExecutorSettings } from "./executor-settings.ts";
import type { GeneratingSlots } from "./generating-slots.ts";
import { guard } from "./guard.ts";
import type { JournalEntry } from "./journal.ts";
import type { Timers } from "./native-connection.ts";
import type { Observations } from "./observations.ts";
import { AMBIGUOUS, type Outcome, type SubmissionOutcomes } from "./submission-outcome.ts";
import type { TabKeeper } from "./tab-keeper.ts";

export interface RecoveryDeps {
  readonly api: ExtensionApi;
  readonly log: Logger;
  readonly timers: Timers;
  readonly browser: string;
  readonly settings: ExecutorSettings;
  readonly content: ContentChannel;
  readonly tabs: TabKeeper;
  readonly bindings: BindingStore;
  readonly observations: Observations;
  readonly runner: CommandRunner;
  readonly outcomes: SubmissionOutcomes;
  readonly slots: GeneratingSlots;
  readonly defaultMaxGenerating: number;
  readonly probeTimeoutMs: number;
  readonly recoveryWaitMs: number;
  readonly submitTimeoutMs: number;
}

export class Recovery {
  /** Bound tabs whose content script did not answer during recovery. */
  private silentTabs: number[] = [];

  constructor(private readonly deps: RecoveryDeps) {}

  /** Runs once per start of the background; `hello` waits for it. */
  async recover(): Promise<void> {
    const { timers, log, runner } = this.deps;
    await this.deps.settings.load(this.deps.browser, timers.random, this.deps.defaultMaxGenerating);
    await this.deps.tabs.load();
    await this.deps.observations.load();

    await this.verifyBindings();

    const entries = await runner.entries();
    await Promise.all(
      entries
        .filter((e) => e.phase === "submission-started")
        .map(async (entry) => {
          const outcome = await this.resolveInterrupted(entry);
          log.info(`recovered ${entry.commandId} from submission-started as ${outcome.outcome}`);
          await runner.finish(entry, outcome, { report: false });
        }),
    );
    for (const entry of entries.filter((e) => e.phase === "received")) runner.schedule(entry);
    await runner.prune();
    await this.pruneObserved();
    guard(log, "reviving tabs", this.reviveSilentTabs());
    guard(log, "reopening tabs", this.deps.tabs.reviveDetached());
  }

  /** Bindings checked against the open tabs (tab-keeper.ts), then every bound tab is asked what it shows. */
  private async verifyBindings(): Promise<void> {
    const { content, probeTimeoutMs } = this.deps;
    await this.deps.tabs.verify();
    // The current state of every verified tab is recorded again, so `hello` carries what the pages show now.
    const verified = await this.deps.bindings.bound();
    const pings = await Promise.all(verified.map((b) => content.ping(b.tabId, probeTimeoutMs)));
    const silent: number[] = [];
    for (const [i, b] of verified.entries()) {
      const ping = pings[i];
      if (ping?.ok && ping.value.state)
        await this.deps.observations.observe(b.workerId, ping.value.state, { report: false });
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
        const { recoveryWaitMs, probeTimeoutMs } = this.deps;
        if (await this.deps.content.waitForContent(tabId, recoveryWaitMs, probeTimeoutMs)) return;
        const binding = await this.deps.bindings.boundTo(tabId);
        if (binding === undefined || this.deps.slots.isSubmitting(binding.workerId)) return;
        this.deps.log.info(`tab ${tabId} of ${binding.workerId} has no content script: reloading it`);
        await this.deps.api.tabs.reload(tabId).catch(() => undefined);
      }),
    );
  }

  /** Last observations of workers this browser no longer holds are kept a while, then dropped. */
  private async pruneObserved(): Promise<void> {
    const held = new Set((await this.deps.bindings.all()).map((b) => b.workerId));
    await this.deps.observations.prune(held);
  }

  /** A submission interrupted by a restart is submitted only with proof (the page's word or the marker). */
  private async resolveInterrupted(entry: JournalEntry): Promise<Outcome> {
    const { api, content, timers, outcomes, probeTimeoutMs } = this.deps;
    const tabId = entry.tabId;
    const ambiguous = (why: string): Outcome => ({
      outcome: "failed",
      errorCode: AMBIGUOUS,
      detail: `the executor restarted after it began submitting; ${why}`,
    });
    if (tabId === undefined) return ambiguous("no tab was recorded");
    const tab = await api.tabs.get(tabId).catch(() => undefined);
    if (!tab) return ambiguous("its tab is gone");
    if (!(await content.waitForContent(tabId, this.deps.recoveryWaitMs, probeTimeoutMs)))
      return ambiguous("its tab does not answer");
    const deadline = timers.now() + this.deps.submitTimeoutMs;
    for (;;) {
      const status = await content.submitStatus(tabId, entry.commandId, probeTimeoutMs);
      if (!status.ok || status.value.status === "unknown") break;
      if (status.value.status === "done") return outcomes.settle(tabId, entry, status.value.result);
      if (timers.now() > deadline) break;
      await new Promise<void>((resolve) => timers.setTimeout(resolve, 250));
    }
    return (await outcomes.proveByMarker(tabId, entry))
      ? { outcome: "submitted", ...(tab.url ? { url: tab.url } : {}) }
      : ambiguous("its marker is not in the conversation");
  }
}
