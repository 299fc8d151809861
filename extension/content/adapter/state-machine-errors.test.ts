// The state machine after a submission into a page showing an error (docs/adapter.md, "States and debounce"): it
// moves on to generating and idle, a limit notice the prompt went past stops counting, and resetAt is read once.
import { describe, expect, it } from "vitest";
import type { ErrorFinding, PageScan } from "./scan-types.ts";
import { StateMachine } from "./state-machine.ts";
import { DEFAULT_TIMING } from "./timing.ts";

const URL = "https://chatgpt.com/c/6a3ea6a0-a1f4-83eb-91bf-c7cd349080a0";

function scan(over: Partial<PageScan> = {}): PageScan {
  return {
    url: { kind: "conversation", url: URL, conversationId: "6a3ea6a0-a1f4-83eb-91bf-c7cd349080a0" },
    layout: "classic",
    composer: {
      form: null,
      editor: null,
      primary: null,
      primaryKind: "voice",
      send: null,
      stopVisible: false,
      chips: 0,
      workMode: false,
    },
    turns: { turns: [], newestMessages: [], newest: null, newestRole: "assistant", newestAssistant: null },
    animated: false,
    thinking: false,
    actionBar: true,
    liveStatus: { sig: "", complete: false },
    draftSendable: false,
    contentSig: "1",
    dialogOpen: false,
    ...over,
  };
}

const failed: ErrorFinding = { code: "RESPONSE_FAILED", detail: "error card" };

/** Feeds `s` at each of `times`; returns the report after the last. */
function feed(machine: StateMachine, s: PageScan, ...times: number[]) {
  let last;
  for (const t of times) last = machine.update(s, t, () => undefined).report;
  return last;
}

describe("state machine: a submission into an error page", () => {
  it("an error card still current after the proof, then gone: generating (our answer is on its way), not idle", () => {
    const m = new StateMachine(DEFAULT_TIMING);
    expect(feed(m, scan({ error: failed }), 0, 600)).toMatchObject({
      state: "error",
      errorCode: "RESPONSE_FAILED",
    });
    expect(m.noteSubmitted(scan({ error: failed, contentSig: "2" }), 1_000)).toMatchObject({
      state: "generating",
    });
    // The page is slow to show our turn: the old card is seen again long enough to be an error once more.
    expect(feed(m, scan({ error: failed, contentSig: "2" }), 1_100, 1_700)).toMatchObject({ state: "error" });
    // Our turn shows: the card is stale, and the state is generating until the answer ends.
    const user = scan({ contentSig: "3", turns: { ...scan().turns, newestRole: "user" } });
    expect(feed(m, user, 2_000, 2_600)).toMatchObject({ state: "generating" });
    expect(feed(m, scan({ contentSig: "4", busy: "stop button" }), 3_000)).toMatchObject({
      state: "generating",
    });
    expect(feed(m, scan({ contentSig: "5" }), 4_000, 6_100)).toMatchObject({ state: "idle" });
  });

  it("a limit notice the prompt went past is left out, and the error shown besides it counts", () => {
    const m = new StateMachine(DEFAULT_TIMING);
    const element = {} as Element;
    const text = "You've hit your limit. Please try again after 3:45 PM.";
    const notice: ErrorFinding = {
      code: "USAGE_CAP",
      detail: "banner",
      limit: { element, text, modal: false },
    };
    const at = new Date(2026, 10, 30, 14, 0).getTime();
    const resetAt = new Date(2026, 10, 30, 15, 45).getTime();
    expect(feed(m, scan({ error: notice }), at, at + 600)).toEqual(
      expect.objectContaining({ state: "error", errorCode: "USAGE_CAP", resetAt }),
    );
    // Two hours later the same words are still the same moment (read once, when they showed).
    expect(feed(m, scan({ error: notice }), at + 2 * 3_600_000)).toMatchObject({ resetAt });
    m.noteSubmitted(scan({ error: notice, contentSig: "2" }), at + 7_200_100, false, notice.limit);
    // Still on screen, with a failed answer behind it: that failure is what the page shows now.
    const behind = scan({ error: notice, behindLimit: failed, contentSig: "3" });
    expect(feed(m, behind, at + 7_201_000, at + 7_201_600)).toMatchObject({ errorCode: "RESPONSE_FAILED" });
    expect(m.error).toBe(failed);
    // Without anything behind it, the notice is no error at all.
    const alone = scan({ error: notice, contentSig: "4" });
    expect(feed(m, alone, at + 7_202_000, at + 7_202_600)).not.toHaveProperty("errorCode");
    expect(m.error).toBeUndefined();
  });
});
