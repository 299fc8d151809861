// Chromium as a person runs it, for hidden-tab scenarios: started without Playwright's launch (its switches keep
// background tabs awake, and the focus emulation it turns on for every page keeps every page visible) and attached
// over CDP with `noDefaults`, so a background tab is really hidden: `document.visibilityState` is "hidden", its timers
// wake at most once a second and it renders no frames.
import { spawn } from "node:child_process";
import { chromium, type Browser, type BrowserContext } from "playwright-core";

/** What Playwright's launch would add that these scenarios still want (minus the anti-throttling switches). */
const QUIET_SWITCHES = [
  "--headless",
  "--no-sandbox",
  "--disable-field-trial-config",
  "--disable-back-forward-cache",
  "--disable-breakpad",
  "--disable-default-apps",
  "--disable-dev-shm-usage",
  "--disable-hang-monitor",
  "--disable-popup-blocking",
  "--disable-prompt-on-repost",
  "--disable-search-engine-choice-screen",
  "--metrics-recording-only",
  "--no-default-browser-check",
  "--no-service-autorun",
  "--password-store=basic",
  "--use-mock-keychain",
];

export interface ThrottledChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Starts `executable` on the profile `udd` with `args`, and attaches Playwright to its default context. */
export async function launchThrottledChromium(
  executable: string,
  udd: string,
  args: string[],
  env: Record<string, string>,
): Promise<ThrottledChromium> {
  const child = spawn(
    executable,
    [...QUIET_SWITCHES, "--remote-debugging-port=0", `--user-data-dir=${udd}`, ...args, "about:blank"],
    { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const started = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Chromium did not open CDP:\n${stderr}`)), 30_000);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-20_000);
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}):\n${stderr}`));
    });
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  let browser: Browser;
  try {
    browser = await chromium.connectOverCDP(await started, { noDefaults: true, isLocal: true });
  } catch (e) {
    child.kill("SIGKILL"); // nothing else would end it
    throw e;
  }
  return {
    context: browser.contexts()[0]!,
    async close() {
      // Disconnecting Playwright leaves the browser running: ask it to quit, then make sure.
      const cdp = await browser.newBrowserCDPSession().catch(() => undefined);
      await cdp?.send("Browser.close").catch(() => undefined);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      await browser.close().catch(() => undefined);
    },
  };
}
