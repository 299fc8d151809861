// The one operations layer behind MCP tools and the extension's ui.request: each operation is its contract
// (shared/operations/) plus `run`; validation and dispatch live here.
import { z } from "zod";
import type {
  ContractInput,
  ContractOutput,
  Immutable,
  OperationContract,
} from "../../../shared/operations/index.ts";
import type { Input } from "../core/inputs.ts";
import { fail, ok, type OperationResult, type OperationsContext } from "./context.ts";

export { READ_ONLY, type ToolAnnotations, type WriteAnnotations } from "../../../shared/operations/index.ts";

/** What `run` answers: the contract's output (read-only, as the host builds it from read-only records), or a refusal. */
export type OperationAnswer<C extends OperationContract> = OperationResult<Immutable<ContractOutput<C>>>;

/** An operation: its contract, and `run`, which must answer the contract's output type. */
export type OperationDef<C extends OperationContract = OperationContract> = C & {
  run(ctx: OperationsContext, input: ContractInput<C>): Promise<OperationAnswer<C>>;
};

/** Implements a contract: the host supplies only `run`; name, words, schemas and annotations come from the contract. */
export function defineOperation<C extends OperationContract>(
  contract: C,
  run: (ctx: OperationsContext, input: ContractInput<C>) => Promise<OperationAnswer<C>>,
): OperationDef<C> {
  return { ...contract, run };
}

/** Building a zod object compiles a new parser; doing it per call cost ~300 µs, so keep one per operation. */
const schemas = new WeakMap<OperationDef, z.ZodType<Record<string, unknown>>>();

function schemaOf(op: OperationDef): z.ZodType<Record<string, unknown>> {
  let schema = schemas.get(op);
  if (!schema) {
    schema = z.object(op.input).strict();
    schemas.set(op, schema);
  }
  return schema;
}

/** Validates raw parameters (from MCP or the extension) and runs the operation; bad input is a result, not a throw. */
export async function invoke(
  ops: ReadonlyMap<string, OperationDef>,
  name: string,
  params: unknown,
  ctx: OperationsContext,
): Promise<OperationResult> {
  const op = ops.get(name);
  if (!op) return fail("NOT_FOUND", `unknown operation '${name}'`);
  const parsed = schemaOf(op).safeParse(params ?? {});
  if (!parsed.success) return fail("INVALID_INPUT", `${name}: ${z.prettifyError(parsed.error)}`);
  const result = await op.run(ctx, parsed.data);
  // What the operation read may include another call's write still being synced: answer once that is durable too.
  await ctx.durable();
  return result;
}

/** Applies a domain input and turns a refusal into a result; `view` builds the success value. */
export async function applyInput<T>(
  ctx: OperationsContext,
  input: Input,
  view: () => T,
): Promise<OperationResult<T>> {
  const result = await ctx.apply(input);
  if (result.error) return fail(result.error.code, result.error.message);
  return ok(view());
}

/**
 * The same for an input whose handler replies (an untyped record in the core): the reply is read with `reply`, and a
 * reply of another shape is a bug, so it throws (INTERNAL) rather than answer something the contract does not say.
 */
export async function applyInputWith<R extends z.ZodType, T>(
  ctx: OperationsContext,
  input: Input,
  reply: R,
  view: (said: z.output<R>) => T,
): Promise<OperationResult<T>> {
  const result = await ctx.apply(input);
  if (result.error) return fail(result.error.code, result.error.message);
  return ok(view(reply.parse(result.reply ?? {})));
}

export function operationMap(ops: readonly OperationDef[]): ReadonlyMap<string, OperationDef> {
  return new Map(ops.map((op) => [op.name, op]));
}
