// Every operation of the host, in the order tools are listed to MCP clients (the contract's order).
import { ADOPT_OPERATIONS } from "./adopt-operations.ts";
import { MESSAGE_OPERATIONS } from "./message-operations.ts";
import { PROVENANCE_OPERATIONS } from "./provenance-operations.ts";
import { type OperationDef, operationMap } from "./registry.ts";
import { RUN_OPERATIONS } from "./run-operations.ts";
import { UI_OPERATIONS } from "./ui-operations.ts";
import { WORKER_OPERATIONS } from "./worker-operations.ts";

export const ALL_OPERATIONS: readonly OperationDef[] = [
  ...RUN_OPERATIONS,
  ...WORKER_OPERATIONS,
  ...MESSAGE_OPERATIONS,
  ...PROVENANCE_OPERATIONS,
  ...ADOPT_OPERATIONS,
  ...UI_OPERATIONS,
];

export const OPERATIONS = operationMap(ALL_OPERATIONS);
