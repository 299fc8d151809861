// Background entry (Chromium MV3 service worker, Firefox event page). Listeners are registered synchronously in
// the first turn, as MV3 requires; recovery and the native connection follow asynchronously.
import "../lib/zod-setup.ts";
import { browserFamily, getBrowserApi } from "../lib/browser-api.ts";
import { consoleLogger } from "../lib/logger.ts";
import { OrchestratorDb } from "./db.ts";
import { Executor } from "./executor.ts";
import { realTimers } from "./native-connection.ts";

const api = getBrowserApi();
const executor = new Executor({
  api,
  db: new OrchestratorDb(),
  timers: realTimers,
  log: consoleLogger("[orchestrator]"),
  browser: browserFamily(api),
});
executor.listen();
void executor.start();
