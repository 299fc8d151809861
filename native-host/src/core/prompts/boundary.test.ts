// The responsibility boundary (docs/prompts.md, "What prompts never say"): the skill is an output contract only,
// and no agent-facing prompt talks about executor mechanics (Retry, browser state, execution-boundary detection,
// resume scheduling).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONTINUATION_BLOCK_LINES, parseContinuationBlock } from "../../../../shared/continuation-block.ts";
import { DEFAULT_SKILL_DIR, parseSkillFrontmatter } from "../../../../scripts/package-skill.ts";
import type { AttemptReason } from "../model.ts";
import { PROMPT_IDS, renderPrompt, renderTemplate } from "./render.ts";
import { LANE, LANE_CTX, PROMPT_KINDS, request, ROOT_CTX, RUN } from "./test-fixtures.ts";

/**
 * Words no agent-facing text may contain (27.1: no browser Retry handling, no instructions to send
 * `continue`, no execution-boundary detection, no auto-resume scheduling, no browser state; 27.4: resume
 * and delivery-timeout policy stays outside). Beyond the literal Retry/auto-resume/browser/tab list this
 * covers the mechanics' other names: scheduling, keepalive timers, conversation states (idle,
 * generating), delivery timeouts, the extension/plugin, and promises that turns happen automatically.
 * `tab` is matched as a word so "table" or "stable" do not trip it.
 */
const EXECUTOR_MECHANICS: readonly RegExp[] = [
  /\bretr(y|ies|ying)\b/i,
  /auto[\s_-]?resum/i,
  /\bbrowser/i,
  /\btabs?\b/i,
  /\bschedul/i,
  /\bautomatic/i,
  /keep[\s-]?alive/i,
  /\btimer\b/i,
  /\bidle\b/i,
  /\bgenerating\b/i,
  /timed?[\s-]?out/i,
  /\b(execution|turn)[\s-]boundar/i,
  /\bextension\b/i,
  /\bplugin\b/i,
  /\b(type|send|say|reply)\s+["'`]?continue\b/i,
  /["'`]continue["'`]/i,
];

/**
 * The skill is stricter (27.1/27.2/27.6): besides the mechanics it must not mention the MCP lifecycle,
 * the orchestrator's tools, repositories or worktrees, nor `continue` as a message.
 */
const SKILL_ONLY: readonly RegExp[] = [
  /\bmcp\b/i,
  /\bworker_\w+/i,
  /\bmessage_\w+/i,
  /orchestrat/i,
  /worktree/i,
  /\brepositor/i,
  /\bchatgpt\b/i,
  /`continue`/i,
];

function violations(text: string, patterns: readonly RegExp[]): string[] {
  return patterns.filter((p) => p.test(text)).map((p) => `${p.source} in: ${text.slice(0, 80)}…`);
}

/** Every text the templates can produce for the fixtures, under every reason and every known wake reason. */
function allPromptTexts(): string[] {
  const reasons: AttemptReason[] = ["initial", "auto_resume", "manual_resume", "followup", "recovery"];
  const wakes = [
    "spawn",
    "idle",
    "active_keepalive",
    "delivery_timeout",
    "recovery",
    "continue_now",
    "followup",
    "corrective",
    "human_resolved",
    "dependency_released",
    "event:message.sent",
    "event:dependency_completed",
    "event:worker.progress:/root/api",
    "event:worker.awaiting_human:/root/ui",
    "event:worker.failed:/root/db",
  ];
  const texts: string[] = [];
  for (const ctx of [LANE_CTX, ROOT_CTX, { worker: LANE, run: RUN }]) {
    for (const kind of PROMPT_KINDS) {
      for (const reason of reasons) {
        texts.push(renderPrompt(request(kind, { reason, wakeReasons: wakes }), ctx).text);
        texts.push(renderPrompt(request(kind, { reason, wakeReasons: [] }), ctx).text);
      }
      for (const id of PROMPT_IDS) texts.push(renderTemplate(id, request(kind, { wakeReasons: wakes }), ctx));
    }
  }
  return texts;
}

async function skillMd(): Promise<string> {
  return readFile(path.join(DEFAULT_SKILL_DIR, "SKILL.md"), "utf8");
}

describe("responsibility boundary", () => {
  it("no prompt text mentions executor mechanics", () => {
    const found = allPromptTexts().flatMap((t) => violations(t, EXECUTOR_MECHANICS));
    expect(found).toEqual([]);
  });

  it("the skill contains output instructions only", async () => {
    expect(violations(await skillMd(), [...EXECUTOR_MECHANICS, ...SKILL_ONLY])).toEqual([]);
  });

  it("the patterns do catch what they are meant to", () => {
    for (const bad of [
      "Click Retry",
      "Auto Resume will",
      "auto-resume",
      "the browser tab",
      "send `continue`",
      "Type continue to go on",
      "a new turn is scheduled automatically",
      "after the keepalive timer",
      "Message delivery timed out",
    ]) {
      expect(violations(bad, EXECUTOR_MECHANICS), bad).not.toEqual([]);
    }
    for (const fine of ["a stable table", "continue working on the same assignment", "Do not stop"]) {
      expect(violations(fine, EXECUTOR_MECHANICS), fine).toEqual([]);
    }
  });
});

describe("skills/durable-continuation-output/SKILL.md", () => {
  it("has the name and description frontmatter", async () => {
    const fm = parseSkillFrontmatter(await skillMd());
    expect(fm.name).toBe("durable-continuation-output");
    expect(Object.keys(fm).sort()).toEqual(["description", "name"]);
  });

  it("defines the same block as the prompts and all three statuses", async () => {
    const text = await skillMd();
    expect(text).toContain(CONTINUATION_BLOCK_LINES.join("\n"));
    expect(text).toContain("exactly one block");
    expect(text).toContain("the overall assignment is unfinished and another execution can continue it");
    expect(text).toContain("all requested work and acceptance gates are finished");
    expect(text).toContain("further progress genuinely requires external input or an unavailable dependency");
  });

  it("its example parses as a working block", async () => {
    const example = /## Example\s+```text\n([\s\S]*?)```/.exec(await skillMd())?.[1];
    expect(parseContinuationBlock(example ?? "")).toMatchObject({ status: "working", current: "none" });
  });
});
