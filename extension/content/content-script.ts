// Content script entry (top frame of https://chatgpt.com tabs): the page adapter observes and submits; the
// bridge carries its reports to the background and the background's requests to it. Nothing runs in the page's
// own JavaScript world, and nothing from the page is trusted as a command.
import "../lib/zod-setup.ts";
import { startContentBridge } from "../lib/content-bridge.ts";
import { getBrowserApi, type ContentApi } from "../lib/browser-api.ts";
import { consoleLogger } from "../lib/logger.ts";
import { createChatGptAdapter } from "./adapter/index.ts";
import { startOverlay, type OverlayApi } from "./overlay/mount-overlay.tsx";

startContentBridge({
  api: getBrowserApi<ContentApi>(),
  location: window.location,
  log: consoleLogger("[orchestrator]"),
  createAdapter: (onReport) =>
    createChatGptAdapter(window, {
      now: () => Date.now(),
      onReport,
      setTimeout: (fn, ms) => window.setTimeout(fn, ms),
      clearTimeout: (handle) => window.clearTimeout(handle as number),
      requestAnimationFrame: (fn) => window.requestAnimationFrame(fn),
      cancelAnimationFrame: (handle) => window.cancelAnimationFrame(handle as number),
    }),
});

// The operator overlay: shown only if the background says this tab is a managed one (and it is not hidden).
startOverlay({ api: getBrowserApi<OverlayApi>(), document });
