// A reader that stops early (`orchestrator connector | head -1`) closes our stdout: the next write fails with EPIPE.
// That is the reader's choice, not a failure, so the CLI ends quietly with exit 0 instead of an unhandled-error stack.

let guarded = false;

/** Installs the handler once per process; any other stdout error still surfaces. */
export function endQuietlyOnClosedPipe(stdout: NodeJS.WriteStream = process.stdout): void {
  if (guarded) return;
  guarded = true;
  stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}
