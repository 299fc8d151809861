// The one operations layer behind MCP tools and the extension's ui.request: definitions, validation, dispatch.
import { z } from "zod";
import type { Input } from "../core/inputs.ts";
import { fail, ok, type OperationResult, type OperationsContext } from "./context.ts";

/**
 * MCP tool annotations, every hint explicit (a missing one fails to compile). ChatGPT treats a tool without
 * `readOnlyHint` as a write that needs confirmation, and its app review rejects tools that leave `destructiveHint` or
 * `openWorldHint` unset, whatever the MCP defaults say. No tool reaches beyond this local orchestrator, so
 * `openWorldHint` is false throughout; a tool that does must change this type on purpose.
 */
export type ToolAnnotations = typeof READ_ONLY | WriteAnnotations;

/** A read: it changes nothing, so it is never destructive and repeating it adds nothing. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export interface WriteAnnotations {
  readonly readOnlyHint: false;
  /** Ends something for good (a worker or run cannot be reopened). */
  readonly destructiveHint: boolean;
  /** Repeating the same call changes nothing more (it coalesces, is deduplicated, or is refused as already done). */
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

export interface OperationDef<S extends z.ZodRawShape = z.ZodRawShape> {
  /** MCP tool name: the spec's dotted name with underscores (chat products allow only [A-Za-z0-9_-]). */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: S;
  readonly annotations: ToolAnnotations;
  run(ctx: OperationsContext, input: z.infer<z.ZodObject<S>>): Promise<OperationResult>;
}

export function defineOperation<S extends z.ZodRawShape>(def: OperationDef<S>): OperationDef<S> {
  return def;
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
export async function applyInput(
  ctx: OperationsContext,
  input: Input,
  view: (reply: Readonly<Record<string, unknown>> | undefined) => Readonly<Record<string, unknown>>,
): Promise<OperationResult> {
  const result = await ctx.apply(input);
  if (result.error) return fail(result.error.code, result.error.message);
  return ok(view(result.reply));
}

export function operationMap(ops: readonly OperationDef[]): ReadonlyMap<string, OperationDef> {
  return new Map(ops.map((op) => [op.name, op]));
}
