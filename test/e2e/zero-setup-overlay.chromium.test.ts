// Zero-setup mode from the page itself (docs/ui.md, "Overlay") in real Chromium: by default no overlay exists on a
// conversation no worker holds; with "Offer 'Keep this conversation going'" switched on in the settings, the overlay's small badge
// appears there, and adopting through it with real keys binds a worker to that very tab, which gets one
// adopt-bootstrap turn (no MCP call from the conversation, no new chat).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OVERLAY_HOST_ID } from "../../extension/content/overlay/mount-overlay.tsx";
import { buildExtension, ChromiumE2E, waitFor } from "./harness.ts";
import { block } from "./scenario-kit.ts";
import { OverlayProbe, personalConversation, popupFor, setOfferAdopt, workerOf } from "./zero-setup-kit.ts";

let e2e: ChromiumE2E;

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
});

afterAll(async () => {
  await e2e?.close();
});

const overlayHost = `#${OVERLAY_HOST_ID}`;

describe("the overlay's adoption offer in Chromium", () => {
  it("off by default: no overlay on an unmanaged conversation; switched on in the settings, the badge appears", async () => {
    e2e.fake.reset();
    e2e.fake.page.layout = "classic";
    e2e.fake.setAssistant((turn) => turn.say("Sure, let us look at it."));
    const { page } = await personalConversation(e2e, "What should the release notes say?");
    // The background sees this tab as an adoptable conversation (the popup offers it) ...
    const popup = await popupFor(e2e, page);
    await popup.getByTestId("adopt-button").waitFor();
    await popup.close();
    // ... and still the page has no overlay: nothing is shown in tabs the orchestrator does not manage.
    expect(await page.locator(overlayHost).count()).toBe(0);

    await setOfferAdopt(e2e, true);
    await page.locator(overlayHost).waitFor({ state: "attached" });
    const probe = await OverlayProbe.attach(e2e, page);
    expect(await probe.text(await probe.waitFor("overlay-badge"))).toBe("↻ Keep going?");
    await probe.detach();
    await setOfferAdopt(e2e, false);
    await page.locator(overlayHost).waitFor({ state: "detached" });
    await page.close();
  }, 120_000);

  it("adopt through the badge with the keyboard: a worker bound to this tab, one adopt-bootstrap turn", async () => {
    e2e.fake.reset();
    e2e.fake.page.layout = "classic";
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return turn.say("Here is a first draft of the notes.");
      return turn.say(`The notes are tidy now.\n\n${block("complete", "notes tidied")}`);
    });
    await setOfferAdopt(e2e, true);
    const { page, conversationId } = await personalConversation(e2e, "Draft release notes for 2.0.");
    const conversationsBefore = e2e.fake.conversations.size;
    await page.locator(overlayHost).waitFor({ state: "attached" });
    const probe = await OverlayProbe.attach(e2e, page);

    // Keyboard only from here: focus lands on the badge as Tab would, then real key presses.
    await probe.focus(await probe.waitFor("overlay-badge"));
    await page.keyboard.press("Enter");
    await probe.waitFor("overlay-drawer");
    await page.keyboard.press("Tab");
    await page.keyboard.type("tidy the notes");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");

    const workerId = await waitFor(
      () => workerOf(e2e, conversationId).catch(() => undefined),
      "the adopted worker",
    );
    // The same tab now shows the managed overlay, and keyboard focus stayed in it (on its badge) — until the bootstrap
    // turn, which the page takes through its composer (focused to type), possibly before this looks.
    await probe.waitFor("overlay");
    const focused = await page.evaluate(() => document.activeElement?.id);
    if (focused !== OVERLAY_HOST_ID) {
      expect(focused).toBe("prompt-textarea");
      expect((await e2e.worker(workerId)).attempts.length).toBeGreaterThan(0);
    }
    const done = await e2e.waitWorker(
      workerId,
      "complete from the block",
      (w) => w.worker.label === "Complete",
    );
    await e2e.fake.settled();
    await probe.detach();

    expect(done.worker.conversation).toMatchObject({ binding: "bound" });
    expect(done.worker.conversation.url).toContain(conversationId);
    expect(done.attempts).toHaveLength(1);
    const stored = e2e.fake.stored(conversationId);
    expect(stored).toHaveLength(2); // the person's message + the one adopt-bootstrap turn
    expect(stored[1]!.text).toMatch(/^From now on, end every response with exactly one block/);
    expect(stored[1]!.text).toContain("Objective:\ntidy the notes");
    expect(e2e.fake.conversations.size).toBe(conversationsBefore); // no new chat was opened
    expect(e2e.fake.duplicateUserMessages()).toBe(0);
    expect(e2e.fake.clicks("retry")).toBe(0);
    expect(e2e.fake.log.filter((e) => e.source === "assistant" && e.kind === "tool")).toEqual([]); // no MCP call
    await setOfferAdopt(e2e, false);
  }, 180_000);
});
