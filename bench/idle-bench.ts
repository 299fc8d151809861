// bench:idle: the idle footprint. Main-thread time of an idle fake chatgpt.com tab in headless Chromium without and
// with the built extension over one window (an unmanaged tab, then a worker's tab waiting for a person), the
// extension's own calls in the tab from a trace, and the host's CPU time and wake-ups with one browser connected and
// no worker due. IDLE_BENCH_SECONDS, IDLE_BENCH_TRACE_SECONDS, IDLE_BENCH_HOST_SECONDS. Last line: JSON.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import {
  buildExtension,
  ChromiumE2E,
  CHROMIUM,
  fakeSiteSwitches,
  QUIET_CHROMIUM,
} from "../test/e2e/harness.ts";
import { sendByHand } from "../test/e2e/zero-setup-kit.ts";
import { FakeChatGPT } from "../test/fake-chatgpt/server.ts";

const PAGE_SECONDS = Number(process.env.IDLE_BENCH_SECONDS ?? 45);
const HOST_SECONDS = Number(process.env.IDLE_BENCH_HOST_SECONDS ?? 60);
const TRACE_SECONDS = Number(process.env.IDLE_BENCH_TRACE_SECONDS ?? 20);
/** chatgpt.com rewrites its live regions about this often while nothing happens. */
const LIVE_REGION_TICK_MS = 3_500;
const TARGET = { unmanagedTaskMsPerS: 0.3, managedIdleTaskMsPerS: 1, hostWakeupsPerS: 1 };

interface PageCost {
  scriptMsPerS: number;
  taskMsPerS: number;
}

const round = (n: number, digits = 3) => Number(n.toFixed(digits));
const hold = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1_000));

/** Reads a page's DevTools performance counters (its renderer's main thread); see `measurePair`. */
async function meter(page: Page) {
  // Settled first: the ticker has changed the live region once more after the caller's own wait, so the load, the
  // composer's remount and the content script's start are behind (a condition, not a sleep).
  const tick = await page.locator("#live-ticker").textContent();
  await page.waitForFunction((t) => document.getElementById("live-ticker")?.textContent !== t, tick, {
    timeout: LIVE_REGION_TICK_MS * 3,
  });
  // No caret blinks in either page: a real browser blinks none in a tab the person is not looking at, and where they
  // look the caret is theirs. Headless Chromium counts the extension's tab as focused and blinks the caret our
  // submission left in the composer (frames, and garbage collection after them) but not the bare tab's.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  // What the tab's earlier life left (a whole first turn) is collected before the window, in both browsers: the
  // window measures the idle tab, not the one-off collection of that garbage.
  await cdp.send("HeapProfiler.collectGarbage");
  return {
    async read() {
      const { metrics } = await cdp.send("Performance.getMetrics");
      const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? Number.NaN;
      return { script: get("ScriptDuration"), task: get("TaskDuration"), at: performance.now() };
    },
    detach: () => cdp.detach(),
  };
}

/**
 * The two pages' ScriptDuration and TaskDuration over the same window, in ms per second: the same page without and
 * with the extension, measured together so the machine's other work weighs on both alike.
 */
async function measurePair(bare: Page, withExt: Page): Promise<{ without: PageCost; with: PageCost }> {
  const meters = [await meter(bare), await meter(withExt)];
  const before = await Promise.all(meters.map((m) => m.read()));
  await hold(PAGE_SECONDS);
  const after = await Promise.all(meters.map((m) => m.read()));
  await Promise.all(meters.map((m) => m.detach()));
  // The metrics are in seconds: seconds × 1000 / window seconds = ms per second.
  const cost = (i: number): PageCost => {
    const seconds = (after[i]!.at - before[i]!.at) / 1_000;
    return {
      scriptMsPerS: round(((after[i]!.script - before[i]!.script) * 1_000) / seconds),
      taskMsPerS: round(((after[i]!.task - before[i]!.task) * 1_000) / seconds),
    };
  };
  return { without: cost(0), with: cost(1) };
}

interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  args?: { data?: { url?: string } };
}

/**
 * The extension's own JavaScript in the tab over a window of its own (a trace slows the page a little, so it is not
 * taken during the with/without window): the top-level calls into the extension's scripts (its observer's, timers' and
 * port's callbacks) and their time, per second. Exact where the with/without difference is noise-bound.
 */
async function extensionCalls(page: Page, seconds: number): Promise<{ callsPerS: number; msPerS: number }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  // The protocol types trace events as string maps; they are JSON objects of this shape.
  cdp.on("Tracing.dataCollected", (e) => events.push(...(e.value as unknown as TraceEvent[])));
  const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.start", { categories: "devtools.timeline", transferMode: "ReportEvents" });
  await hold(seconds);
  await cdp.send("Tracing.end");
  await complete;
  await cdp.detach();
  const ours = events
    .filter(
      (e) =>
        e.ph === "X" && e.name === "FunctionCall" && e.args?.data?.url?.startsWith("chrome-extension://"),
    )
    .sort((a, b) => a.ts - b.ts);
  // A call made inside another of ours (same thread, within its span) is part of that one.
  const ends = new Map<string, number>();
  let calls = 0;
  let us = 0;
  for (const e of ours) {
    const thread = `${e.pid}:${e.tid}`;
    if (e.ts < (ends.get(thread) ?? 0)) continue;
    ends.set(thread, e.ts + (e.dur ?? 0));
    calls += 1;
    us += e.dur ?? 0;
  }
  return { callsPerS: round(calls / seconds), msPerS: round(us / 1_000 / seconds) };
}

/** Opens a conversation in a fresh tab and waits for its transcript and the live-region ticker. */
async function openConversation(context: BrowserContext, conversationId: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`https://chatgpt.com/c/${conversationId}`);
  await page.waitForSelector("[data-message-author-role='assistant']");
  await page.waitForSelector("#live-ticker");
  return page;
}

/** A person's first turn in a new chat of `context`: typed, sent with Enter, answered and finished. */
async function personTurn(context: BrowserContext, fake: FakeChatGPT): Promise<Page> {
  const page = await context.newPage();
  await sendByHand({ fake }, page, "Which database should the project use? Ask me before you choose.");
  await page.waitForSelector("[data-testid='copy-turn-action-button']", { timeout: 30_000 });
  await page.waitForSelector("#live-ticker");
  return page;
}

/** A process's CPU time (all threads, ms) and context switches (per thread, summed over its threads and main alone). */
function hostSample(pid: number, ticksPerS: number) {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1_000) / ticksPerS;
  const switches = (file: string) => {
    const text = readFileSync(file, "utf8");
    const n = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
    return n("voluntary_ctxt_switches") + n("nonvoluntary_ctxt_switches");
  };
  let allThreads = 0;
  // stat counts in clock ticks (10 ms); schedstat's run time (ns, per thread) resolves an idle host's few ms.
  let schedNs = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    // A thread gone meanwhile would throw here; none exit while the host idles.
    allThreads += switches(`/proc/${pid}/task/${tid}/status`);
    schedNs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
  }
  const mainThread = switches(`/proc/${pid}/status`);
  return { cpuMs, schedMs: schedNs / 1e6, mainThread, allThreads, at: performance.now() };
}

function ticksPerSecond(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const ext = await buildExtension("chrome");
  // No control poll: the fake's own scaffolding (scripted notices) would be most of an idle page's cost.
  const fake = await FakeChatGPT.start({ liveRegionTickMs: LIVE_REGION_TICK_MS, controlPollMs: null });
  const unmanagedId = fake.seedConversation();
  // The same Chromium and switches as the harness's, with no extension and its own profile.
  const plainProfile = mkdtempSync(path.join(tmpdir(), "orch-idle-plain-"));
  const plain = await chromium.launchPersistentContext(plainProfile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...QUIET_CHROMIUM, ...fakeSiteSwitches(fake.port)],
  });
  const e2e = await ChromiumE2E.start(ext, { fake });
  const measured: Record<string, { without: PageCost; with: PageCost }> = {};
  const traced: Record<string, { callsPerS: number; msPerS: number }> = {};
  try {
    // Each case: the same page in both browsers, measured over the same window; the bare one is closed after it.
    const caseOf = async (name: string, bare: Page, withExt: Page, keep = false) => {
      measured[name] = await measurePair(bare, withExt);
      await bare.close();
      traced[name] = await extensionCalls(withExt, TRACE_SECONDS);
      if (!keep) await withExt.close();
    };
    await caseOf(
      "unmanaged",
      await openConversation(plain, unmanagedId),
      await openConversation(e2e.context, unmanagedId),
    );

    // A worker whose first turn asks a person, then ends: its tab stays bound and idle. The bare browser's tab gets
    // the same history from a person: a new chat, a message typed and sent, the same answer streamed (with the tool
    // row, not the call), so both pages hold what a finished turn leaves (its garbage, the caret in the composer).
    fake.setAssistant(async (turn) => {
      await turn.say("I need a decision first.");
      if (/workerId "/.test(turn.text)) {
        await turn.tool("worker_await_human", {
          workerId: turn.workerId,
          reason: "choice",
          question: "Postgres or SQLite?",
        });
      } else turn.emit({ type: "tool", name: "worker_await_human" });
      await turn.say("\n\nstatus: blocked\nsummary: waiting for a choice\ncurrent: -\nnext: -");
    });
    const runId = await e2e.createRun({
      mode: "auto",
      idleGraceMs: 3_000,
      activeKeepaliveMinMs: 600_000,
      activeKeepaliveMaxMs: 600_000,
    });
    const workerId = await e2e.spawn(runId, "/root");
    await e2e.waitWorker(
      workerId,
      "Needs you, turn ended",
      (w) => w.worker.label === "Needs you" && w.worker.conversation.state === "idle",
    );
    await fake.settled();
    const conversationId = await e2e.conversationOf(workerId);
    await caseOf("managedIdle", await personTurn(plain, fake), await e2e.pageFor(conversationId), true);

    // The host with this browser connected, the worker's tab open, and nothing due.
    const pid = e2e.hostPid();
    if (pid === undefined) throw new Error("no host pid in status.json");
    const ticks = ticksPerSecond();
    const h0 = hostSample(pid, ticks);
    await hold(HOST_SECONDS);
    const h1 = hostSample(pid, ticks);
    const hostSeconds = (h1.at - h0.at) / 1_000;
    const host = {
      pid,
      cpuMs: round(h1.cpuMs - h0.cpuMs, 1),
      cpuMsPerS: round((h1.cpuMs - h0.cpuMs) / hostSeconds),
      schedCpuMsPerS: round((h1.schedMs - h0.schedMs) / hostSeconds),
      wakeupsPerS: round((h1.allThreads - h0.allThreads) / hostSeconds),
      mainThreadWakeupsPerS: round((h1.mainThread - h0.mainThread) / hostSeconds),
      seconds: round(hostSeconds, 1),
    };
    const extra = (name: string) => {
      const m = measured[name]!;
      return {
        extraTaskMsPerS: round(m.with.taskMsPerS - m.without.taskMsPerS),
        extraScriptMsPerS: round(m.with.scriptMsPerS - m.without.scriptMsPerS),
        without: m.without,
        with: m.with,
        extensionCalls: traced[name]!,
      };
    };
    const result = {
      bench: "idle",
      unmanaged: extra("unmanaged"),
      managedIdle: extra("managedIdle"),
      host,
      seconds: PAGE_SECONDS,
      hostSeconds: HOST_SECONDS,
      traceSeconds: TRACE_SECONDS,
      liveRegionTickMs: LIVE_REGION_TICK_MS,
      loadAvg1m: { before: round(loadBefore, 2), after: round(loadavg()[0]!, 2) },
      targets: TARGET,
    };

    const num = (n: number) => n.toFixed(3).padStart(9);
    console.log(
      `idle tab, ${PAGE_SECONDS} s per window, live regions every ${LIVE_REGION_TICK_MS} ms (ms per s)`,
    );
    console.log(
      `${"case".padEnd(12)} ${"script w/o".padStart(10)} ${"script w/".padStart(9)} ${"extra".padStart(9)}` +
        ` ${"task w/o".padStart(9)} ${"task w/".padStart(9)} ${"extra".padStart(9)}  target (extra task)`,
    );
    for (const [name, limit] of [
      ["unmanaged", TARGET.unmanagedTaskMsPerS],
      ["managedIdle", TARGET.managedIdleTaskMsPerS],
    ] as const) {
      const r = result[name];
      console.log(
        `${name.padEnd(12)} ${num(r.without.scriptMsPerS).padStart(10)} ${num(r.with.scriptMsPerS)} ${num(r.extraScriptMsPerS)}` +
          ` ${num(r.without.taskMsPerS)} ${num(r.with.taskMsPerS)} ${num(r.extraTaskMsPerS)}  ≤ ${limit}: ${r.extraTaskMsPerS <= limit ? "met" : "NOT met"}`,
      );
    }
    for (const name of ["unmanaged", "managedIdle"] as const) {
      const t = result[name].extensionCalls;
      console.log(
        `${name.padEnd(12)} the extension's own calls in the tab (trace, ${TRACE_SECONDS} s): ${t.callsPerS}/s, ${t.msPerS} ms/s`,
      );
    }
    console.log(
      `host (pid ${pid}), ${host.seconds} s idle, one browser: CPU ${host.cpuMs} ms (${host.cpuMsPerS} ms/s;` +
        ` ${host.schedCpuMsPerS} ms/s by schedstat); ` +
        `wake-ups ${host.wakeupsPerS}/s all threads, ${host.mainThreadWakeupsPerS}/s main thread` +
        ` (target ≤ ${TARGET.hostWakeupsPerS}/s: ${host.wakeupsPerS <= TARGET.hostWakeupsPerS ? "met" : "NOT met"})`,
    );
    console.log(`load average (1 min): ${result.loadAvg1m.before} before, ${result.loadAvg1m.after} after`);
    console.log(JSON.stringify(result));
  } finally {
    await plain.close().catch(() => undefined);
    rmSync(plainProfile, { recursive: true, force: true });
    await e2e.close();
    await fake.close();
  }
}

await main();
