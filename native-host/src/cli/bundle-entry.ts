// Entry of the packaged native host (`npm run package` bundles it into native-host/orchestrator.mjs, the `bin` of the
// npm tarball too): the same CLI, with the bundle's own folder as the root (it holds package.json, manifests/ and
// node_modules/) and itself as what the launcher runs, so nothing of the repository is needed.
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
