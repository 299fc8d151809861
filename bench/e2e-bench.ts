// bench:e2e: resume latency in the real system (Chromium, the production extension, the real host, the fake
// chatgpt.com), one worker through many automatic resumes. Main figure: the page's own end of each answer (action bar
// and "Response complete" rendered) → the next prompt's receipt at the server, against the target (grace + 500 ms
// p50, grace + 1.5 s p95). Second: the host's idle record → that prompt. Also the resume overhead: the page's end →
// the continuation's first edit in the composer, minus the grace (before the page's own Send wait). BENCH_RESUMES,
// BENCH_HIDDEN=1 (hidden throttled tab), BENCH_GRACE_MS (idle grace, default 3000). Last line: JSON.
import { buildExtension, ChromiumE2E, tool } from "../test/e2e/harness.ts";

const RESUMES = Number(process.env.BENCH_RESUMES ?? 32);
/**
 * BENCH_GRACE_MS: the policy's idle grace. Default: the product's 3 s, the setting the target is stated for (the page's
 * report reaches the host within it, and the grace counts from the page's own end of turn).
 */
const IDLE_GRACE_MS = Number(process.env.BENCH_GRACE_MS ?? 3_000);
/** BENCH_HIDDEN=1: the worker's tab hidden in a Chromium that throttles it (harness `backgroundThrottling`). */
const HIDDEN = process.env.BENCH_HIDDEN === "1";

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

interface HostEvent {
  seq: number;
  type: string;
  at: number;
  workerId?: string;
  data: { execution?: { seq: number } };
}

async function main(): Promise<void> {
  const ext = await buildExtension("chrome");
  const e2e = await ChromiumE2E.start(ext, { backgroundThrottling: HIDDEN });
  try {
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index > RESUMES) {
        await turn.tool("worker_complete", { workerId: turn.workerId, summary: "bench done" });
        await turn.say("Done.\n\nstatus: complete\nsummary: done\ncurrent: -\nnext: -");
        return;
      }
      await turn.tool("worker_progress", { workerId: turn.workerId, summary: `step ${turn.index}` });
      await turn.say(`Step ${turn.index}.\n\nstatus: working\nsummary: step\ncurrent: -\nnext: more`);
    });
    const runId = await e2e.createRun({
      mode: "auto",
      idleGraceMs: IDLE_GRACE_MS,
      minContinuationSpacingMs: 0,
      activeKeepaliveMinMs: 600_000,
      activeKeepaliveMaxMs: 600_000,
      stallWarningAfterNoProgressAttempts: null,
      stallPauseAfterNoProgressAttempts: null,
    });
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    // Complete, and its last answer over (the figures need every page end; the host's record of that last turn is not
    // measured here).
    await e2e.waitWorker(
      workerId,
      "bench worker complete",
      (w) =>
        w.worker.label === "Complete" && e2e.fake.conversations.get(conversationId)?.live?.done !== false,
      RESUMES * 20_000,
    );
    await e2e.fake.settled();

    const events: HostEvent[] = [];
    for (let cursor = 0; ;) {
      const page = await tool<{ events: HostEvent[]; cursor: number }>(e2e.mcp, "events_list", {
        cursor,
        workerId,
        limit: 500,
      });
      events.push(...page.events);
      if (page.events.length === 0) break;
      cursor = page.cursor;
    }
    const idleAt = new Map<number, number>();
    for (const ev of events)
      if (ev.type === "execution.idle" && ev.data.execution) idleAt.set(ev.data.execution.seq, ev.at);
    const pageEvents = (kind: string) =>
      e2e.fake.log
        .filter((e) => e.source === "page" && e.kind === kind)
        .map((e) => e.detail.t as number)
        .sort((a, b) => a - b);
    const edits = pageEvents("edit-started");
    // The server's receipt of each prompt after the first: what a person sees as "the next message went out".
    const prompts = e2e.fake
      .stored(conversationId)
      .map((m) => m.at)
      .sort((a, b) => a - b);
    const nextPrompt = (t: number) => prompts.find((at) => at >= t);
    const hostIdleToPrompt: number[] = [];
    for (let seq = 1; seq <= RESUMES; seq++) {
      const idle = idleAt.get(seq);
      if (idle === undefined) continue;
      const prompt = nextPrompt(idle);
      if (prompt !== undefined) hostIdleToPrompt.push(prompt - idle);
    }
    // From the page's own end of each answer (action bar and "Response complete" rendered, the fake page's clock).
    const pageEndToPrompt: number[] = [];
    const overhead: number[] = [];
    for (const end of e2e.fake.turnEnds(conversationId).slice(0, RESUMES)) {
      const prompt = nextPrompt(end.t);
      if (prompt !== undefined) pageEndToPrompt.push(prompt - end.t);
      const edit = edits.find((t) => t >= end.t);
      if (edit !== undefined) overhead.push(edit - end.t - IDLE_GRACE_MS);
    }
    for (const list of [overhead, hostIdleToPrompt, pageEndToPrompt]) list.sort((a, b) => a - b);
    const p = (list: number[], q: number) => Math.round(percentile(list, q));
    const target = { p50: IDLE_GRACE_MS + 500, p95: IDLE_GRACE_MS + 1_500 };
    const result = {
      bench: "e2e",
      browser: "chromium",
      hiddenTab: HIDDEN,
      idleGraceMs: IDLE_GRACE_MS,
      samples: pageEndToPrompt.length,
      pageEndToPromptP50Ms: p(pageEndToPrompt, 50),
      pageEndToPromptP95Ms: p(pageEndToPrompt, 95),
      hostIdleToPromptP50Ms: p(hostIdleToPrompt, 50),
      hostIdleToPromptP95Ms: p(hostIdleToPrompt, 95),
      targetP50Ms: target.p50,
      targetP95Ms: target.p95,
      meetsTarget:
        pageEndToPrompt.length === RESUMES &&
        percentile(pageEndToPrompt, 50) <= target.p50 &&
        percentile(pageEndToPrompt, 95) <= target.p95,
      resumeOverheadP50Ms: p(overhead, 50),
      resumeOverheadP95Ms: p(overhead, 95),
      duplicateUserMessages: e2e.fake.duplicateUserMessages(),
      retryClicks: e2e.fake.clicks("retry"),
    };
    const row = (label: string, list: number[], note = "") =>
      `${label.padEnd(48)} ${String(p(list, 50)).padStart(6)} ms ${String(p(list, 95)).padStart(6)} ms  ${note}`.trimEnd();
    console.log(
      `resume latency to the next prompt at the server, ${result.samples} of ${RESUMES} resumes, idle grace ${IDLE_GRACE_MS} ms${HIDDEN ? ", hidden tab" : ""}`,
    );
    console.log(`${"".padEnd(48)} ${"p50".padStart(9)} ${"p95".padStart(9)}`);
    console.log(
      row(
        "page's end of the answer → prompt",
        pageEndToPrompt,
        `target p50 ≤ ${target.p50} ms, p95 ≤ ${target.p95} ms: ${result.meetsTarget ? "met" : "NOT met"}`,
      ),
    );
    console.log(row("host's idle record → prompt", hostIdleToPrompt));
    console.log(row("page's end of the answer → first edit − grace", overhead, "(target p50 ≤ 150 ms)"));
    console.log(JSON.stringify(result));
  } finally {
    await e2e.close();
  }
}

await main();
