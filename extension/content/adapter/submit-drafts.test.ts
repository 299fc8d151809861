// Runs in the node environment: each test builds its own happy-dom Window from a fixture (fixtures/fake-chatgpt.ts).
// What is already in the composer when a submission starts (docs/adapter.md, "Submission"): a leftover of ours (it
// carries one of our marker lines) is replaced and the new prompt sent once; a person's draft is refused at once with
// DRAFT_IN_COMPOSER, untouched, with nothing typed or clicked.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { commandMarker, embedMarker, markerLine } from "../../lib/marker.ts";
import { fakePageSuite, type FakeChatGpt } from "./fixtures/fake-chatgpt.ts";
import type { SubmitOutcome, SubmitRequest } from "./types.ts";

const LAYOUTS = ["classic", "composer-2026"] as const;

const setup = fakePageSuite({
  forbidClicks: true,
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

/** A prompt as the background builds it, for a command id. */
function request(commandId: string, body = "Continue the work."): SubmitRequest {
  const marker = commandMarker(commandId);
  return { text: embedMarker(body, marker), marker, mode: "send" };
}

/** Counts every edit event and every pointer or click event the page receives. */
function touchesOf(page: FakeChatGpt): { edits(): number; clicks(): number } {
  let edits = 0;
  let clicks = 0;
  for (const type of ["beforeinput", "input", "paste"]) page.doc.addEventListener(type, () => edits++, true);
  for (const type of ["pointerdown", "mousedown", "click"])
    page.doc.addEventListener(type, () => clicks++, true);
  return { edits: () => edits, clicks: () => clicks };
}

/** A "Pasted text" attachment in the composer form, as the page shows one for a long paste. */
function addChip(page: FakeChatGpt): Element {
  const chip = page.doc.createElement("button");
  chip.setAttribute("aria-label", "Remove Pasted text");
  page.editorEl.closest("form")!.appendChild(chip);
  return chip;
}

/** Starts a submission and advances the clock: its outcome, or undefined while it still waits. */
async function run(
  adapter: { submit(r: SubmitRequest): Promise<SubmitOutcome> },
  req: SubmitRequest,
  ms: number,
): Promise<SubmitOutcome | undefined> {
  let out: SubmitOutcome | undefined;
  void adapter.submit(req).then((o) => (out = o));
  await vi.advanceTimersByTimeAsync(ms);
  return out;
}

describe.each(LAYOUTS)("%s layout", (layout) => {
  it("a leftover of an earlier command (its marker line) is replaced; the new prompt is sent once", async () => {
    const { adapter, page } = await setup({ layout });
    page.typeDraft(embedMarker("An earlier prompt the page never took.", commandMarker("earlier-command")));
    page.reply = { chunks: ["ok"] };
    const req = request("this-command");
    expect(await run(adapter, req, 8_000)).toMatchObject({ outcome: "submitted" });
    expect(page.accepted).toEqual([req.text]);
    expect(page.clicks.send).toBe(1);
  });

  it("a person's draft → DRAFT_IN_COMPOSER at once: untouched, nothing typed, nothing clicked", async () => {
    const { adapter, page } = await setup({ layout });
    page.typeDraft("my own half-written question");
    const before = page.editorEl.innerHTML;
    const touches = touchesOf(page);
    const out = await run(adapter, request("refused-for-draft"), 100);
    expect(out).toMatchObject({ outcome: "failed", errorCode: "DRAFT_IN_COMPOSER", phase: "before-submit" });
    expect(page.editorEl.innerHTML).toBe(before);
    expect(page.model).toBe("my own half-written question");
    expect(touches.edits() + touches.clicks()).toBe(0);
    expect(page.clicks.send).toBe(0);
  });

  it("a person's draft while a turn is running is refused at once, not after the turn or the deadline", async () => {
    const { adapter, page } = await setup({ layout });
    page.appendUserTurn("continue");
    page.appendAssistantTurn("Streaming…", { streaming: true });
    page.setPrimary("stop");
    page.generating = true;
    page.typeDraft("a question for after this answer");
    await vi.advanceTimersByTimeAsync(500);
    const out = await run(adapter, request("refused-mid-turn"), 100);
    expect(out).toMatchObject({ outcome: "failed", errorCode: "DRAFT_IN_COMPOSER", phase: "before-submit" });
    expect(page.model).toBe("a question for after this answer");
    expect(page.clicks.send + page.clicks.stop).toBe(0);
  });

  it("a draft that quotes a marker inside a line, or a short one, is a person's, not ours", async () => {
    const quoted = `see ${markerLine(commandMarker("quoted"))} above`;
    for (const draft of [quoted, "[ref: orc-short]"]) {
      const { adapter, page } = await setup({ layout });
      page.typeDraft(draft);
      const out = await run(adapter, request(`person-${draft.length}`), 100);
      expect(out).toMatchObject({ outcome: "failed", errorCode: "DRAFT_IN_COMPOSER" });
      expect(page.model).toBe(draft);
      adapter.stop();
    }
  });

  it("an attachment chip is a person's, even beside an empty editor or a leftover of ours", async () => {
    for (const leftover of [false, true]) {
      const { adapter, page } = await setup({ layout });
      const chip = addChip(page);
      const ours = embedMarker("An earlier prompt.", commandMarker("earlier"));
      if (leftover) page.typeDraft(ours);
      const touches = touchesOf(page);
      const out = await run(adapter, request(`chip-${leftover}`), 100);
      expect(out).toMatchObject({
        outcome: "failed",
        errorCode: "DRAFT_IN_COMPOSER",
        phase: "before-submit",
      });
      expect(chip.isConnected).toBe(true);
      expect(page.model).toBe(leftover ? ours : "");
      expect(touches.edits() + touches.clicks()).toBe(0);
      adapter.stop();
    }
  });
});

describe("composer-2026 variants", () => {
  it("a leftover in the textarea composer is replaced (value setter path) and the prompt sent once", async () => {
    const { adapter, page } = await setup({
      layout: "composer-2026",
      editor: "textarea",
      execCommand: false,
    });
    page.typeDraft(embedMarker("Old.", commandMarker("old")));
    page.reply = { chunks: ["ok"] };
    const req = request("textarea-now");
    expect(await run(adapter, req, 8_000)).toMatchObject({ outcome: "submitted" });
    expect(page.accepted).toEqual([req.text]);
    expect(page.clicks.send).toBe(1);
  });

  it("labels the table does not know: after the leftover is cleared, Send is still found by structure", async () => {
    const labels = { voice: "Tryb głosowy", send: "Wyślij", stop: "Zatrzymaj" };
    const { adapter, page } = await setup({ layout: "composer-2026", labels });
    page.typeDraft(embedMarker("Old.", commandMarker("old-polish")));
    await vi.advanceTimersByTimeAsync(1_000); // the leftover's Send is enabled, labelled "Wyślij"
    page.reply = { chunks: ["ok"] };
    const req = request("polish-now");
    expect(await run(adapter, req, 8_000)).toMatchObject({ outcome: "submitted" });
    expect(page.accepted).toEqual([req.text]);
    expect(page.clicks.send).toBe(1);
    expect(page.clicks.stop + page.clicks.voice).toBe(0);
  });
});
