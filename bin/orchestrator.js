#!/usr/bin/env node
// Entry point of the `orchestrator` command: loads the TypeScript CLI through tsx's ESM loader.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../native-host/src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
