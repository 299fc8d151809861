// `npm run docs:reference`: regenerates docs/reference/protocol.md and docs/reference/mcp-tools.md from the code.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  PROTOCOL_REFERENCE,
  renderProtocolReference,
  renderToolReference,
  TOOL_REFERENCE,
} from "./reference.ts";

for (const [file, render] of [
  [PROTOCOL_REFERENCE, renderProtocolReference],
  [TOOL_REFERENCE, renderToolReference],
] as const) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, await render());
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
