// A worker may start its conversation in a Custom GPT or a project: the create command carries that page, also when
// it is offered again after a restart, and any other URL is refused at spawn.
import { describe, expect, it } from "vitest";
import { pendingCommands } from "./commands.ts";
import { Simulation } from "./simulation.ts";

const PROJECT = "https://chatgpt.com/g/g-p-0123456789abcdef0123456789abcdef-site/project";

describe("a worker's start page", () => {
  it("goes with the create command (and its redelivery), never with later sends", () => {
    const sim = new Simulation();
    sim.spawn({ startUrl: PROJECT });
    expect(sim.commands.at(-1)).toMatchObject({ type: "conversation.create", conversationUrl: PROJECT });
    expect(pendingCommands(sim.state)).toEqual([sim.commands.at(-1)]);
    sim.result("w-1");
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle");
    sim.advance(60_000);
    // The conversation now has its own URL; a follow-up goes there.
    expect(sim.commands.at(-1)).toMatchObject({
      type: "conversation.send",
      conversationUrl: "https://chatgpt.com/c/w-1",
    });
  });

  it("is refused unless it is a chatgpt.com GPT or project page", () => {
    const sim = new Simulation();
    expect(() => sim.spawn({ startUrl: "https://example.com/g/g-abc123def-writer" })).toThrow(
      /INVALID_INPUT.*GPT page/,
    );
    expect(sim.state.workers["w-1"]).toBeUndefined();
  });
});
