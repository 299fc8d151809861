// Page times go from the page adapter's report through the content bridge and the background to the host's
// `conversation.state`: a rate limit's reset time (docs/adapter.md, "Rate limits") and the page's end-of-turn time.
import { afterEach, describe, expect, it } from "vitest";
import { Harness, waitFor } from "./executor-harness.ts";

let h: Harness;
afterEach(() => h?.kill());

describe("resetAt on conversation.state", () => {
  it("is forwarded with RATE_LIMITED / USAGE_CAP when the page read one, and absent otherwise", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const errors = () => h.sent("conversation.state").filter((m) => m.state === "error");
    const resetAt = Date.now() + 20 * 60_000;
    h.adapter(tabId).report("error", { errorCode: "USAGE_CAP", resetAt });
    await waitFor(() => errors().length === 1, "the usage-cap report");
    expect(errors()[0]).toMatchObject({ workerId: "w1", errorCode: "USAGE_CAP", resetAt });
    h.adapter(tabId).report("error", { errorCode: "RATE_LIMITED" });
    await waitFor(() => errors().length === 2, "the rate-limit report");
    expect(errors()[1]).toMatchObject({ errorCode: "RATE_LIMITED" });
    expect(errors()[1]).not.toHaveProperty("resetAt");
  });
});

describe("since on conversation.state", () => {
  it("carries the page's own end-of-turn time to the host (the idle grace counts from it)", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const idles = () => h.sent("conversation.state").filter((m) => m.state === "idle");
    const since = Date.now() - 250;
    h.adapter(tabId).report("idle", { since });
    await waitFor(() => idles().length === 1, "the idle report");
    expect(idles()[0]).toMatchObject({ workerId: "w1", since });
  });
});
