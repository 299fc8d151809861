// bench:adapter (docs/adapter.md, "Benchmark"): the content adapter in real headless Chromium over a 1,000-turn
// conversation streaming on the fake chatgpt.com. Prints its time per mutation batch (target p99 ≤ 1 ms) and its state reports per real
// transition (target exactly 1). The adapter submits every turn itself, as on a resume. Last line: JSON.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { build, type Rolldown } from "vite";
import { CHROMIUM, fakeSiteSwitches, QUIET_CHROMIUM } from "../test/e2e/harness.ts";
import { FakeChatGPT, type Layout } from "../test/fake-chatgpt/server.ts";
import { DEFAULT_TIMING } from "../extension/content/adapter/timing.ts";
import type { BenchConfig, BenchResults, PageBench } from "./adapter-bench-page.ts";

const TURNS = Number(process.env.BENCH_TURNS ?? 1_000);
const LAYOUT = (process.env.BENCH_LAYOUT ?? "classic") as Layout;
/**
 * Earlier turns the conversation already holds when the page loads (a quick look at a long thread's cost); at least
 * one: a conversation page with no finished turn shows no evidence that nothing runs, and the adapter then waits for
 * its last resort before it settles (docs/adapter.md, "States"). A real conversation page always holds a turn.
 */
const HISTORY = Math.max(1, Number(process.env.BENCH_HISTORY ?? 1));
/**
 * The adapter's timings except one, the settle (`BENCH_SETTLE_MS`, default the adapter's) aside: submit's proof poll
 * (default 100 ms) is 20 ms. The fake page ends each turn with the action bar and "Response complete" together, which
 * ends the turn without the settle; the cost per batch does not depend on either.
 */
const CONFIG: BenchConfig = {
  settleMs: Number(process.env.BENCH_SETTLE_MS ?? DEFAULT_TIMING.settleMs),
  submitPollMs: 20,
};
/** Words per answer; the answer and its continuation block stream as `DELTAS` SSE deltas, `GAP_MS` apart. */
const TOKENS = Number(process.env.BENCH_ANSWER_WORDS ?? 40);
const DELTAS = 52; // about one per word or block line, as ChatGPT streams tokens
const GAP_MS = 1;
const WORDS = "the plan holds so far and the next step follows from the notes in the working file".split(" ");

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function summary(values: readonly number[]): { p50: number; p95: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/**
 * An answer of `TOKENS` words (`BENCH_ANSWER_WORDS`, default 40) in paragraphs, ending with the continuation block the
 * adapter parses.
 */
function answer(index: number): string {
  const words = Array.from({ length: TOKENS }, (_, i) => WORDS[(index + i) % WORDS.length]!);
  // Paragraphs of 15 words, the last one taking the rest (15, 15 and 10 for the default 40).
  const count = Math.max(1, Math.ceil(TOKENS / 15));
  const paragraphs = Array.from({ length: count }, (_, p) =>
    words.slice(p * 15, p === count - 1 ? undefined : (p + 1) * 15).join(" "),
  );
  return `Step ${index}. ${paragraphs.join("\n\n")}\n\nstatus: working\nsummary: step ${index}\ncurrent: -\nnext: more`;
}

/** The page module with the real adapter, bundled the way the extension build bundles the content script. */
async function bundlePageScript(): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: "warn",
    build: {
      write: false,
      minify: false,
      target: "chrome120",
      lib: {
        entry: path.join(import.meta.dirname, "adapter-bench-page.ts"),
        formats: ["iife"],
        name: "AdapterBench",
      },
    },
  })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  const chunk = (Array.isArray(out) ? out[0]! : out).output[0];
  return chunk.code;
}

type BenchWindow = Window & {
  AdapterBench: { startBench(config: BenchConfig): PageBench };
  bench: PageBench;
};

async function openConversation(fake: FakeChatGPT, page: Page): Promise<string> {
  // An existing conversation (one finished turn unless BENCH_HISTORY): every turn is a follow-up on a stable /c/<uuid>
  // URL, as for a worker.
  const id = randomUUID();
  const stored = (role: "user" | "assistant", text: string) => {
    return { role, id: randomUUID(), text, tools: [], error: null, complete: true };
  };
  const turns = Array.from({ length: HISTORY }, (_, i) => [
    stored("user", `Continue with step ${i + 1}.`),
    stored("assistant", answer(i + 1)),
  ]).flat();
  fake.conversations.set(id, { id, turns, live: null, workerId: null, runId: null });
  const url = `https://chatgpt.com/c/${id}`;
  // The document gets cross-origin isolation headers so performance.now() has 5 µs resolution instead of 100 µs;
  // everything else the page loads is same-origin and goes to the fake untouched (streams are not buffered).
  await page.route(url, async (route) => {
    // Fetched from Node, which does not see Chromium's host mapping: ask the fake directly.
    const response = await route.fetch({ url: `https://127.0.0.1:${fake.port}/c/${id}` });
    await route.fulfill({
      response,
      headers: {
        ...response.headers(),
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-embedder-policy": "require-corp",
      },
    });
  });
  await page.goto(url);
  await page.waitForSelector("form .ProseMirror[contenteditable='true']");
  return url;
}

async function main(): Promise<void> {
  const script = await bundlePageScript();
  const fake = await FakeChatGPT.start({
    layout: LAYOUT,
    // Stop shows while the answer streams and goes when it ends; Send enables at once (submit's Send-disabled
    // wait is not what is measured); no hydration remount, so no turn waits on the composer's 600 ms rule.
    stopDelayMs: [5, 30],
    sendDisabledMs: [0, 0],
    hydrationRemountMs: null,
    acceptDelayMs: [0, 0],
  });
  fake.setAssistant(async (turn) => {
    await turn.say(answer(turn.index), { chunks: DELTAS, gapMs: GAP_MS });
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...QUIET_CHROMIUM, ...fakeSiteSwitches(fake.port)],
  });
  try {
    const page = await browser.newPage({ ignoreHTTPSErrors: true });
    const url = await openConversation(fake, page);
    await page.addScriptTag({ content: script });
    await page.evaluate((config) => {
      const w = window as unknown as BenchWindow;
      w.bench = w.AdapterBench.startBench(config);
    }, CONFIG);

    // BENCH_PROFILE=<file>: a CPU profile of the page over the last 100 turns (open it in Chrome DevTools).
    const profileTo = process.env.BENCH_PROFILE;
    const cdp = profileTo ? await page.context().newCDPSession(page) : undefined;
    // All JavaScript the page runs over the streamed turns (the fake's own rendering included, the same in every run):
    // what the adapter costs in total, wherever it runs (a batch's tick, submit's own scans, polls).
    const metrics = await page.context().newCDPSession(page);
    await metrics.send("Performance.enable");
    const scriptSeconds = async () => {
      const { metrics: all } = await metrics.send("Performance.getMetrics");
      return all.find((m) => m.name === "ScriptDuration")?.value ?? Number.NaN;
    };
    const scriptBefore = await scriptSeconds();
    const started = Date.now();
    for (let i = 1; i <= TURNS; i++) {
      if (cdp && i === Math.max(1, TURNS - 99)) {
        await cdp.send("Profiler.enable");
        // 40 µs samples: a tick lasts about a millisecond, so the default 1 ms interval sees almost nothing of it.
        await cdp.send("Profiler.setSamplingInterval", { interval: 40 });
        await cdp.send("Profiler.start");
      }
      const marker = `bench-${i}-${randomUUID().slice(0, 8)}`;
      const text = `Continue with step ${i}. [${marker}]`;
      await page.evaluate(([t, m]) => (window as unknown as BenchWindow).bench.turn(t!, m!), [text, marker]);
      if (i % 100 === 0) console.log(`  ${i} turns, ${Math.round((Date.now() - started) / 1000)} s`);
    }
    await page.evaluate(() => (window as unknown as BenchWindow).bench.settled(20_000));
    const pageScriptMsPerTurn =
      Math.round((((await scriptSeconds()) - scriptBefore) * 1_000_000) / TURNS) / 1_000;
    if (cdp && profileTo) {
      const { profile } = await cdp.send("Profiler.stop");
      writeFileSync(profileTo, JSON.stringify(profile));
      console.log(`CPU profile of the last 100 turns: ${profileTo}`);
    }
    const elapsedS = Math.round((Date.now() - started) / 1000);
    const r: BenchResults = await page.evaluate(() => {
      const w = window as unknown as BenchWindow;
      w.bench.stop();
      return w.bench.results();
    });
    const marker = summary(
      await page.evaluate(() => (window as unknown as BenchWindow).bench.markerSearchMs(20)),
    );

    // Real transitions: the page settling once (ready), then per streamed turn generating and idle.
    const transitions = 1 + 2 * TURNS;
    const expected = ["ready", ...Array.from({ length: TURNS }, () => ["generating", "idle"]).flat()];
    const states = r.reports.map((rep) => rep.state);
    // The first report that is not the expected next one (or, with none wrong, the first one missing).
    let firstMismatch = states.findIndex((s, i) => s !== expected[i]);
    if (firstMismatch < 0 && states.length !== expected.length)
      firstMismatch = Math.min(states.length, expected.length);
    const wrongUrl = r.reports.filter((rep) => rep.url !== url).length;
    const idleWithStatus = r.reports.filter(
      (rep) => rep.state === "idle" && rep.continuationStatus === "working",
    ).length;
    const batch = summary(r.mutationTickMs);
    const observer = summary(r.observerMs);
    const other = summary(r.otherTimerMs);
    const quarter = Math.ceil(TURNS / 4);
    console.log(
      `adapter in Chromium (${LAYOUT} layout), ${TURNS} streamed turns` +
        (HISTORY > 1 ? ` after ${HISTORY} loaded with the page` : "") +
        (TOKENS !== 40 ? `, ${TOKENS}-word answers` : "") +
        ` in ${elapsedS} s, ` +
        `${r.domElements} elements in the page at the end, crossOriginIsolated ${r.crossOriginIsolated}`,
    );
    console.log(
      `time per mutation batch (the tick the batch schedules: scan + state machine), ${r.mutationTickMs.length} batches:`,
    );
    console.log(`  p50 ${batch.p50} ms, p95 ${batch.p95} ms, p99 ${batch.p99} ms, max ${batch.max} ms`);
    for (let from = 1; from <= TURNS; from += quarter) {
      const to = Math.min(TURNS, from + quarter - 1);
      const part = summary(
        r.mutationTickMs.filter((_, i) => r.mutationTickTurn[i]! >= from && r.mutationTickTurn[i]! <= to),
      );
      console.log(`    turns ${from}–${to}: p50 ${part.p50} ms, p99 ${part.p99} ms, max ${part.max} ms`);
    }
    console.log(
      `  observer callbacks (${r.observerMs.length}): p50 ${observer.p50} ms, p99 ${observer.p99} ms, max ${observer.max} ms`,
    );
    console.log(
      `  other timers — polls, settle deadlines, submit waits (${r.otherTimerMs.length}): p99 ${other.p99} ms, max ${other.max} ms`,
    );
    console.log(`all JavaScript in the page (the fake's own included): ${pageScriptMsPerTurn} ms per turn`);
    console.log(
      `marker search over the whole page (hasMarker, twice per submission; 20 calls): p50 ${marker.p50} ms, max ${marker.max} ms`,
    );
    console.log(
      `state reports: ${r.reports.length} for ${transitions} real transitions (ready + generating/idle per turn)` +
        (firstMismatch >= 0
          ? `; first unexpected at #${firstMismatch}: ${JSON.stringify(r.reports[firstMismatch] ?? "missing")}`
          : ""),
    );
    const result = {
      bench: "adapter",
      browser: "chromium",
      layout: LAYOUT,
      turns: TURNS,
      history: HISTORY,
      answerWords: TOKENS,
      elapsedS,
      settleMs: CONFIG.settleMs,
      domElements: r.domElements,
      batches: r.mutationTickMs.length,
      batchP50Ms: batch.p50,
      batchP95Ms: batch.p95,
      batchP99Ms: batch.p99,
      batchMaxMs: batch.max,
      observerCallbacks: r.observerMs.length,
      observerCallbackP99Ms: observer.p99,
      targetBatchP99Ms: 1,
      reports: r.reports.length,
      transitions,
      reportsPerTransition: Math.round((r.reports.length / transitions) * 1000) / 1000,
      unexpectedReportAt: firstMismatch,
      reportsWithOtherUrl: wrongUrl,
      idleReportsWithStatus: idleWithStatus,
      pageScriptMsPerTurn,
      markerSearchP50Ms: marker.p50,
      retryClicks: fake.clicks("retry"),
      duplicateUserMessages: fake.duplicateUserMessages(),
    };
    console.log(JSON.stringify(result));
  } finally {
    await browser.close();
    await fake.close();
  }
}

await main();
