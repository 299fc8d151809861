// The operations contract: every operation of the host by name, in the order MCP lists them, and the types a caller
// derives from it (params, result). The host implements each entry; the extension's views call them by these names.
import { ADOPT_CONTRACTS } from "./adopt.ts";
import type { ContractOutput, ContractParams, OperationContract } from "./contract.ts";
import { MESSAGE_CONTRACTS } from "./message.ts";
import { PROVENANCE_CONTRACTS } from "./provenance.ts";
import { RUN_CONTRACTS } from "./run.ts";
import { UI_CONTRACTS } from "./ui.ts";
import { WORKER_CONTRACTS } from "./worker.ts";

export const OPERATION_CONTRACTS = [
  ...RUN_CONTRACTS,
  ...WORKER_CONTRACTS,
  ...MESSAGE_CONTRACTS,
  ...PROVENANCE_CONTRACTS,
  ...ADOPT_CONTRACTS,
  ...UI_CONTRACTS,
] as const;

type AnyContract = (typeof OPERATION_CONTRACTS)[number];
export type OperationName = AnyContract["name"];
export type ContractOf<N extends OperationName> = Extract<AnyContract, { name: N }>;
export type OperationParams<N extends OperationName> = ContractParams<ContractOf<N>>;
export type OperationOutput<N extends OperationName> = ContractOutput<ContractOf<N>>;

export const CONTRACTS_BY_NAME: ReadonlyMap<string, OperationContract> = new Map(
  OPERATION_CONTRACTS.map((c) => [c.name, c]),
);

type UsedBy<U> = Extract<AnyContract, { ui: U }>["name"];
/** Operations an extension page may call as they are (the operator's actions and reads; never a worker's reports). */
export type PageOperationName = UsedBy<"pages" | "pages-and-overlay">;
/** Operations the overlay may call, for its own tab's worker only. */
export type OverlayOperationName = UsedBy<"pages-and-overlay">;

function namesUsedBy<N extends OperationName>(uses: readonly OperationContract["ui"][]): readonly N[] {
  return OPERATION_CONTRACTS.filter((c) => uses.includes(c.ui)).map((c) => c.name as N);
}

export const PAGE_OPERATION_NAMES = namesUsedBy<PageOperationName>(["pages", "pages-and-overlay"]);
export const OVERLAY_OPERATION_NAMES = namesUsedBy<OverlayOperationName>(["pages-and-overlay"]);

export type {
  ContractInput,
  ContractOutput,
  ContractParams,
  Immutable,
  OperationContract,
  UiUse,
} from "./contract.ts";
export type { ToolAnnotations, WriteAnnotations } from "./annotations.ts";
export { READ_ONLY } from "./annotations.ts";
