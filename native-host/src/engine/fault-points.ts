// Named crash points for the restart matrix (test/host/restart-matrix.test.ts): ORCHESTRATOR_FAULT=<point>[:<hit>]
// makes the process SIGKILL itself the <hit>-th time it reaches <point>. Without the variable every call is a no-op.
// It lives with the engine (the bridge imports it from here) so neither imports the host above them.
export type FaultPoint =
  | "idle-received" // 1. an idle report arrived, not yet applied
  | "resume-scheduled" // 2. a resume attempt is durable, not yet sent to the executor
  | "command-sent" // 3. the command is written to the executor, its ack not yet received
  | "ack-received" // 4. the executor acknowledged (it is submitting), no result yet
  | "result-received" // 5. the executor reported the submission, not yet applied
  | "result-applied" // 6. the submission is durable, generating not yet observed
  | "generating-applied" // 7. generating is durable, idle not yet observed
  | "idle-applied" // 8. idle is durable, the idle grace is running
  | "stall-applied" // 9. a stall warning or pause is durable
  | "rollover-requested"; // 10. a move to a new conversation is durable, its first command not yet sent

const spec = process.env.ORCHESTRATOR_FAULT;
const [armedPoint, hitText = "1"] = spec ? spec.split(":") : [];
let remaining = Number(hitText);

export function faultPoint(point: FaultPoint): void {
  if (point !== armedPoint) return;
  remaining -= 1;
  // A real kill -9: no finally blocks, no exit handlers, nothing flushed that was not already durable.
  if (remaining === 0) process.kill(process.pid, "SIGKILL");
}
