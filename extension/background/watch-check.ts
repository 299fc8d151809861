// The once-a-minute check that every worker's tab is watched (docs/extension.md, "Watching"): a bound tab whose page
// says it does not watch is told to ask again (`bg.watch`). A page stops watching on the background's word, so a word
// that was wrong when it came (a race, a restart) would otherwise leave the worker's turn ends unseen for good.
import type { Logger } from "../lib/logger.ts";
import type { BindingStore } from "./binding-store.ts";
import type { ContentChannel } from "./content-channel.ts";

export interface WatchCheckDeps {
  readonly bindings: BindingStore;
  readonly content: ContentChannel;
  readonly log: Logger;
  readonly probeTimeoutMs: number;
}

/** Pings every bound tab; one whose page does not watch is told to ask again. Returns the tabs told. */
export async function checkWatched(deps: WatchCheckDeps): Promise<number[]> {
  const { content, probeTimeoutMs, log } = deps;
  const bound = await deps.bindings.bound();
  const told: number[] = [];
  await Promise.all(
    bound.map(async (b) => {
      const ping = await content.ping(b.tabId, probeTimeoutMs);
      // A page that does not answer is the recovery's and the commands' concern (a reload); an older content
      // script says nothing of watching.
      if (!ping.ok || ping.value.watching !== false) return;
      log.warn(`tab ${b.tabId} of ${b.workerId} was not watching its page: told to ask again`);
      const reply = await content.watch(b.tabId, probeTimeoutMs);
      if (reply.ok) told.push(b.tabId);
      else log.info(`tab ${b.tabId} not told to watch: ${reply.error}`);
    }),
  );
  return told;
}
