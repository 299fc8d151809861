// bench:e2e (architecture §4a): resume overhead in the real system — Chromium, the production extension, the real
// host and the fake chatgpt.com. For each automatic resume: idle observed (the host's execution.idle event) →
// the continuation prompt starting to go into the editor (the page's first edit), minus the configured idle
// grace. Also idle → our user turn visible (includes the page's own Send-disabled wait). Last line: JSON.
import { buildExtension, ChromiumE2E, tool } from "../test/e2e/harness.ts";

const RESUMES = Number(process.env.BENCH_RESUMES ?? 32);
const IDLE_GRACE_MS = 300;

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
  const e2e = await ChromiumE2E.start(ext);
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
    await e2e.waitWorker(
      workerId,
      "bench worker complete",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
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
    const turns = pageEvents("user-turn-shown");
    const overhead: number[] = [];
    const toUserTurn: number[] = [];
    for (let seq = 1; seq <= RESUMES; seq++) {
      const idle = idleAt.get(seq);
      if (idle === undefined) continue;
      const edit = edits.find((t) => t >= idle);
      const shown = turns.find((t) => t >= idle);
      if (edit !== undefined) overhead.push(edit - idle - IDLE_GRACE_MS);
      if (shown !== undefined) toUserTurn.push(shown - idle);
    }
    overhead.sort((a, b) => a - b);
    toUserTurn.sort((a, b) => a - b);
    const result = {
      bench: "e2e",
      browser: "chromium",
      idleGraceMs: IDLE_GRACE_MS,
      samples: overhead.length,
      resumeOverheadP50Ms: Math.round(percentile(overhead, 50)),
      resumeOverheadP95Ms: Math.round(percentile(overhead, 95)),
      idleToUserTurnP50Ms: Math.round(percentile(toUserTurn, 50)),
      idleToUserTurnP95Ms: Math.round(percentile(toUserTurn, 95)),
      targetP50Ms: 150,
      duplicateUserMessages: e2e.fake.duplicateUserMessages(),
      retryClicks: e2e.fake.clicks("retry"),
    };
    console.log(`resume overhead (idle observed → insert start − grace): samples ${result.samples}`);
    console.log(
      `  p50 ${result.resumeOverheadP50Ms} ms, p95 ${result.resumeOverheadP95Ms} ms (target p50 ≤ 150 ms)`,
    );
    console.log(
      `idle observed → user turn visible: p50 ${result.idleToUserTurnP50Ms} ms, p95 ${result.idleToUserTurnP95Ms} ms`,
    );
    console.log(JSON.stringify(result));
  } finally {
    await e2e.close();
  }
}

await main();
