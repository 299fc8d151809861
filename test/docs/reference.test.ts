// The generated references (docs/reference/) must match the code: adding a tool, a message, a field or an error code
// without running `npm run docs:reference` fails here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  PROTOCOL_REFERENCE,
  renderProtocolReference,
  renderToolReference,
  TOOL_REFERENCE,
} from "../../scripts/reference.ts";
import { ALL_OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { extensionMessageSchema, hostMessageSchema } from "../../shared/native-messages.ts";

const STALE = "is stale: run `npm run docs:reference` and commit the result";

describe("generated references", () => {
  it("docs/reference/protocol.md matches shared/native-messages.ts", async () => {
    const committed = readFileSync(PROTOCOL_REFERENCE, "utf8");
    expect(committed, `docs/reference/protocol.md ${STALE}`).toBe(await renderProtocolReference());
    for (const schema of [...extensionMessageSchema.options, ...hostMessageSchema.options])
      expect(committed).toContain(`### \`${schema.shape.kind.value}\``);
  });

  it("docs/reference/mcp-tools.md matches the operation definitions", async () => {
    const committed = readFileSync(TOOL_REFERENCE, "utf8");
    expect(committed, `docs/reference/mcp-tools.md ${STALE}`).toBe(await renderToolReference());
    for (const op of ALL_OPERATIONS) expect(committed).toContain(`### \`${op.name}\``);
  });
});
