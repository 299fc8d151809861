// Entry of the packaged native host (`npm run package` bundles it into native-host/orchestrator.mjs): the same CLI,
// with the bundle's own folder as the root (it holds manifests/ and node_modules/sql.js) and itself as the launcher.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { processContext } from "./context.ts";
import { main } from "./main.ts";

const self = fileURLToPath(import.meta.url);
// Run through npm's `orchestrator` bin link it is on PATH; run as a file, the user typed `node <file>`.
const onPath = path.basename(process.argv[1] ?? "") === "orchestrator";
process.exitCode = await main(process.argv.slice(2), {
  ...processContext(),
  projectRoot: path.dirname(self),
  cliEntry: self,
  packaged: true,
  invocation: onPath ? "orchestrator" : `node ${self}`,
});
