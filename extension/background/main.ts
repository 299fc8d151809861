// Background entry (Chromium MV3 service worker, Firefox event page). Listeners are registered synchronously in
// the first turn, as MV3 requires; recovery and the native connection follow asynchronously.
import "../lib/zod-setup.ts";
import { browserFamily, getBrowserApi, type ExtensionApi } from "../lib/browser-api.ts";
import { consoleLogger } from "../lib/logger.ts";
import { OrchestratorDb } from "./db.ts";
import { Executor } from "./executor.ts";
import { realTimers } from "./native-connection.ts";
import { startUi } from "./ui-wiring.ts";

const api = getBrowserApi<ExtensionApi & Parameters<typeof startUi>[0]["api"]>();
const db = new OrchestratorDb();
const log = consoleLogger("[orchestrator]");
const ui = startUi({ api, db, timers: realTimers, log, browser: browserFamily(api) });
const executor = new Executor({
  api,
  db,
  timers: realTimers,
  log,
  browser: browserFamily(api),
  onUiMessage: ui.onUiMessage,
  onHealth: ui.onHealth,
});
executor.listen();
ui.attach(executor);
void executor.start();
