// Every reason of the closed liveness list is explained where operators look: the operator guide names it and
// the troubleshooting page has a section under its words (shared/liveness.ts says adding a reason means both).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LIVENESS_REASON_NAMES, LIVENESS_REASONS } from "../../shared/liveness.ts";

const docs = (name: string) => readFileSync(join(import.meta.dirname, "..", "..", "docs", name), "utf8");

describe("liveness reasons in the docs", () => {
  const guide = docs("operator-guide.md");
  const troubleshooting = docs("troubleshooting.md");
  const moving = new Set(["generating", "submitted", "idle_grace", "submitting"]);

  it("the operator guide names every reason", () => {
    for (const reason of LIVENESS_REASON_NAMES) expect(guide, reason).toContain(`\`${reason}\``);
  });

  it("troubleshooting has a section for every reason that is not plain progress", () => {
    for (const reason of LIVENESS_REASON_NAMES) {
      if (moving.has(reason)) continue;
      expect(troubleshooting, reason).toContain(`### ${LIVENESS_REASONS[reason].text}`);
    }
  });
});
