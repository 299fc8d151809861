// The shape of one operation's contract: name, words, input and output schemas, MCP annotations and who in the
// extension may call it. The host implements each contract (only `run`); MCP and the extension's views read them.
import type { z } from "zod";
import type { ToolAnnotations } from "./annotations.ts";

/**
 * Who in the extension may call the operation through its background: `pages` (popup, dashboard, options),
 * `pages-and-overlay` (the in-page overlay too, for its own tab's worker only), `via-background` (views ask the
 * background, which fills in what a view may not name, e.g. the tab's URL), or `none` (MCP only: a worker's own
 * reports and the agent's tools).
 */
export type UiUse = "none" | "pages" | "pages-and-overlay" | "via-background";

/** An output is an object: MCP's structured content and its `outputSchema` are objects. */
export type OutputSchema = z.ZodType<Record<string, unknown>>;

export interface OperationContract<
  N extends string = string,
  I extends z.ZodRawShape = z.ZodRawShape,
  O extends OutputSchema = OutputSchema,
  U extends UiUse = UiUse,
> {
  /** MCP tool name: a dotted domain name with underscores (chat products allow only [A-Za-z0-9_-]). */
  readonly name: N;
  readonly title: string;
  readonly description: string;
  /** The input as an object shape; it is parsed strictly (an unknown or misspelt field is refused). */
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  readonly ui: U;
}

export function defineContract<
  const N extends string,
  I extends z.ZodRawShape,
  O extends OutputSchema,
  const U extends UiUse,
>(contract: OperationContract<N, I, O, U>): OperationContract<N, I, O, U> {
  return contract;
}

/** The input after parsing (defaults applied): what an implementation receives. */
export type ContractInput<C extends OperationContract> = z.output<z.ZodObject<C["input"]>>;
/** What a caller sends. */
export type ContractParams<C extends OperationContract> = z.input<z.ZodObject<C["input"]>>;
/** The result as a caller reads it after parsing with the output schema. */
export type ContractOutput<C extends OperationContract> = z.output<C["output"]>;

/** `T` with every array and property read-only: the host builds results from read-only domain records. */
export type Immutable<T> = T extends (infer U)[]
  ? readonly Immutable<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Immutable<T[K]> }
    : T;
