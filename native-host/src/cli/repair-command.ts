// `orchestrator repair --accept-loss`: opens a data directory the store refuses because acknowledged transactions are
// missing from its files, after the operator confirmed, and records the loss as an event in every active run.
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { Engine } from "../engine/engine.ts";
import { ownerOptionsFromEnv } from "../host/host-entry.ts";
import { isStoreError } from "../store/store-error.ts";
import type { StoreLoss } from "../store/store-types.ts";
import { UsageError } from "./browsers.ts";
import type { CliContext } from "./context.ts";
import { commandLine } from "./context.ts";

export async function runRepairCommand(args: readonly string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { "accept-loss": { type: "boolean" }, yes: { type: "boolean" } },
    strict: true,
  });
  if (!values["accept-loss"]) {
    throw new UsageError(
      "say --accept-loss: the only repair there is opens the directory without what is missing",
    );
  }
  const { dir, log } = ownerOptionsFromEnv(ctx.env);
  let accepted: StoreLoss | undefined;
  let asked = false;
  const confirm = async (loss: StoreLoss): Promise<boolean> => {
    asked = true;
    ctx.err(loss.message);
    if (values.yes) {
      accepted = loss;
      return true;
    }
    if (!process.stdin.isTTY) {
      ctx.err("Nothing was changed. Run again with --yes to open the directory without those transactions.");
      return false;
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question("Open the directory without them? Type 'accept' to go on: ");
      if (answer.trim() === "accept") accepted = loss;
      else ctx.err("Nothing was changed.");
      return accepted !== undefined;
    } finally {
      rl.close();
    }
  };
  let backend: Engine;
  try {
    backend = await Engine.open({ dir, log, store: { acceptLoss: confirm } });
  } catch (error) {
    if (isStoreError(error, "STORE_LOCKED")) {
      ctx.err(
        `${error.message}. A running backend opened it, so there is nothing to repair; stop it first if unsure.`,
      );
      return 1;
    }
    if (isStoreError(error, "STORE_CORRUPT") && accepted === undefined) {
      // Declined (the loss was printed when asked), or damage this command cannot repair (a damaged snapshot).
      if (!asked) ctx.err(error.message);
      return 1;
    }
    throw error;
  }
  await backend.close();
  if (accepted === undefined) {
    ctx.out(`Nothing to repair: ${dir} holds every transaction it acknowledged.`);
    return 0;
  }
  const missing =
    accepted.acknowledgedSeq === null
      ? "an unknown number of transactions"
      : `transactions ${accepted.keptSeq + 1}..${accepted.acknowledgedSeq}`;
  ctx.out(
    `Opened ${dir} without ${missing}; every active run records this as a store.loss_accepted event. ` +
      `Start the backend again (${commandLine(ctx, "serve")}, or open the browser).`,
  );
  return 0;
}
