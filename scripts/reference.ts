// Renders the two generated references (docs/reference/): the native-message protocol from the shared zod schemas
// and the MCP tool list from the operations contract (shared/operations/). `npm run docs:reference` writes them; a test fails when the
// committed files differ from what the code renders, so a new tool or message cannot ship undocumented.
import { readFileSync } from "node:fs";
import path from "node:path";
import * as prettier from "prettier";
import { z } from "zod";
import { ERROR_CODES } from "../shared/error-codes.ts";
import {
  extensionMessageSchema,
  hostMessageSchema,
  MAX_HOST_MESSAGE_BYTES,
  PROTOCOL_VERSION,
} from "../shared/native-messages.ts";
import { OPERATION_CONTRACTS, type OperationContract } from "../shared/operations/index.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
export const PROTOCOL_REFERENCE = path.join(ROOT, "docs/reference/protocol.md");
export const TOOL_REFERENCE = path.join(ROOT, "docs/reference/mcp-tools.md");

/** One sentence per message kind: what it is for. A kind missing here stops the generator (see the test). */
const MESSAGE_PURPOSE: Readonly<Record<string, string>> = {
  hello:
    "First message on every (re)connected port: the executor's identity, the bindings it verified and the journal phase of every command it has not finished (a crash may have left it half done).",
  "command.ack": "The executor accepted a command into its durable journal.",
  "command.result":
    "A command ended: `submitted` (the user turn is in the conversation) or `failed` with an error code; `AMBIGUOUS_SUBMISSION` when delivery is unknown.",
  "conversation.state":
    "A coalesced observation of a managed conversation (one report per real transition), with a per-worker sequence number.",
  binding:
    "A worker's tab binding changed: bound, unavailable (cannot be recovered) or closed (tab removed).",
  "ui.request": "A popup, dashboard or overlay call of one operation of the shared operations layer.",
  "executor.settings":
    "The browser's settings changed: `maxGenerating`, the tabs it may have generating at once; the host queues commands beyond it.",
  welcome:
    "The host's answer to `hello`: its version and the executor id it registered; carries an error when protocol versions differ.",
  command: "Submit a turn: create a conversation, send a follow-up/continuation, or steer a generating turn.",
  "command.cancel":
    "Withdraw a command the executor has not started submitting (e.g. the worker was paused).",
  "binding.release":
    "The host does not know this worker (its data directory was replaced, say): the browser forgets its binding.",
  "ui.response": "The result of a `ui.request`, or its `{code, message}` error.",
  "ui.changed":
    "Push: new durable events exist up to `eventSeq`, or a worker's place in the tab-slot queue or the browser connection changed, so open views refresh.",
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
};

function toJson(schema: z.ZodType, io: "input" | "output" = "input"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
}

/** The closed list of error codes is listed once, at the end of the protocol reference, not in every table. */
function isErrorCodeList(values: readonly unknown[]): boolean {
  return values.length === ERROR_CODES.length && ERROR_CODES.every((c) => values.includes(c));
}

function limits(s: JsonSchema): string {
  const parts: string[] = [];
  if (s.minLength !== undefined && s.minLength > 0) parts.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) parts.push(`max length ${s.maxLength}`);
  // zod's int() adds the safe-integer bounds; they say nothing to a reader.
  if (s.minimum !== undefined && s.minimum !== Number.MIN_SAFE_INTEGER) parts.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined && s.maximum !== Number.MAX_SAFE_INTEGER) parts.push(`≤ ${s.maximum}`);
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems} items`);
  if (s.pattern !== undefined) parts.push(`pattern \`${s.pattern}\``);
  // An error code's default is what a reader makes of a code it does not know (see Error codes), not a default.
  if (s.enum && isErrorCodeList(s.enum)) parts.push("a code this side does not know reads as `INTERNAL`");
  else if (s.default !== undefined) parts.push(`default \`${JSON.stringify(s.default)}\``);
  return parts.join(", ");
}

function typeName(s: JsonSchema): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum && isErrorCodeList(s.enum)) return "error code";
  if (s.enum) return s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(" \\| ");
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.map(typeName).join(" \\| ");
  if (s.type === "array") return `${s.items ? typeName(s.items) : "any"}[]`;
  if (Array.isArray(s.type)) return s.type.join(" \\| ");
  return s.type ?? "any";
}

/** Flattens an object schema into rows; nested objects (and arrays of objects) become dotted paths. */
function rows(s: JsonSchema, prefix = ""): string[] {
  const out: string[] = [];
  const required = new Set(s.required ?? []);
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const field = `${prefix}${name}`;
    const notes = [prop.description, limits(prop)].filter((x) => x !== undefined && x !== "").join("; ");
    out.push(
      `| \`${field}\` | ${typeName(prop)} | ${required.has(name) ? "yes" : "no"} | ${notes.replaceAll("|", "\\|")} |`,
    );
    if (prop.type === "object") out.push(...rows(prop, `${field}.`));
    if (prop.type === "array" && prop.items?.type === "object") out.push(...rows(prop.items, `${field}[].`));
  }
  return out;
}

function fieldTable(s: JsonSchema): string {
  const body = rows(s);
  if (body.length === 0) return "No parameters.";
  return ["| field | type | required | notes |", "| --- | --- | --- | --- |", ...body].join("\n");
}

function kindOf(member: z.ZodType): string {
  const kind = (toJson(member).properties?.kind?.const ?? "") as string;
  if (!kind) throw new Error("a native message schema has no literal `kind`");
  return kind;
}

function messageSection(member: z.ZodType, example: unknown): string {
  const kind = kindOf(member);
  const purpose = MESSAGE_PURPOSE[kind];
  if (purpose === undefined)
    throw new Error(`native message '${kind}' has no purpose line in scripts/reference.ts (MESSAGE_PURPOSE)`);
  const parts = [`### \`${kind}\``, purpose, fieldTable(toJson(member))];
  if (example !== undefined)
    parts.push(
      "Example (from `shared/fixtures/native-messages.json`):",
      "```json",
      JSON.stringify(example),
      "```",
    );
  return parts.join("\n\n");
}

async function format(markdown: string, file: string): Promise<string> {
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(markdown, { ...options, filepath: file });
}

export async function renderProtocolReference(): Promise<string> {
  const fixtures = JSON.parse(
    readFileSync(path.join(ROOT, "shared/fixtures/native-messages.json"), "utf8"),
  ) as {
    extension: Record<string, unknown>;
    host: Record<string, unknown>;
  };
  const section = (members: readonly z.ZodType[], examples: Record<string, unknown>) =>
    members.map((m) => messageSection(m, examples[kindOf(m)])).join("\n\n");
  const markdown = `<!-- Generated by \`npm run docs:reference\` from shared/native-messages.ts. Do not edit by hand. -->

# Native-message protocol reference

Protocol version **${PROTOCOL_VERSION}**. The extension's background talks to the native host over the browser's
native-messaging port: each message is one JSON object (4-byte little-endian length, then UTF-8 JSON). Both sides
validate every message against the zod schemas of \`shared/native-messages.ts\` (unknown fields are refused).
Messages from the host stay under ${MAX_HOST_MESSAGE_BYTES} bytes (the browsers' limit is 1 MiB); long
\`ui.response\` results are paged with \`nextCursor\`. How the pieces fit: [host.md](../host.md),
[extension.md](../extension.md).

## Extension → host

${section(extensionMessageSchema.options, fixtures.extension)}

## Host → extension

${section(hostMessageSchema.options, fixtures.host)}

## Error codes

Errors cross the boundary as \`{ "code": "…", "message": "…" }\` with a code from this closed list
(\`shared/error-codes.ts\`); a reader maps a code it does not know (from a newer peer) to \`INTERNAL\` and keeps the
message. \`errorCode\` fields (what a page showed, why a command failed) use codes of the same list but stay plain
strings on the wire, so a page code a newer extension adds reaches the host as it is (shown as a page error). Codes:
${ERROR_CODES.map((c) => `\`${c}\``).join(", ")}.
`;
  return format(markdown, PROTOCOL_REFERENCE);
}

/** All four hints, in the order of the MCP spec, with their values (every tool sets each one explicitly). */
function hints(a: OperationContract["annotations"]): string {
  const order = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
  return order.map((k) => `\`${k}: ${a[k]}\``).join(", ");
}

/** The answer's top-level fields (nested records are described where they are defined: shared/operations/). */
function answerTable(s: JsonSchema): string {
  const required = new Set(s.required ?? []);
  const body = Object.entries(s.properties ?? {}).map(
    ([name, prop]) =>
      `| \`${name}\` | ${typeName(prop)} | ${required.has(name) ? "yes" : "no"} | ${(prop.description ?? "").replaceAll("|", "\\|")} |`,
  );
  return ["| field | type | always | notes |", "| --- | --- | --- | --- |", ...body].join("\n");
}

const UI_USE: Readonly<Record<OperationContract["ui"], string>> = {
  none: "MCP only.",
  pages: "Also called by the extension's pages (popup, dashboard, settings).",
  "pages-and-overlay":
    "Also called by the extension's pages and by the in-page overlay (for its own tab's worker).",
  "via-background":
    "Also called by the extension's pages and overlay through the background, which names the tab's conversation.",
};

export async function renderToolReference(): Promise<string> {
  const tools = OPERATION_CONTRACTS.map((op) =>
    [
      `### \`${op.name}\` — ${op.title}`,
      op.description,
      `Annotations: ${hints(op.annotations)}. ${UI_USE[op.ui]}`,
      fieldTable(toJson(z.object(op.input).strict())),
      "Answer:",
      answerTable(toJson(op.output, "output")),
    ].join("\n\n"),
  ).join("\n\n");
  const markdown = `<!-- Generated by \`npm run docs:reference\` from shared/operations/. Do not edit by hand. -->

# MCP tool reference

${OPERATION_CONTRACTS.length} tools, served over Streamable HTTP on 127.0.0.1 (\`/mcp\` with a bearer token, or
\`/mcp/<token>\` for ChatGPT connectors) and over stdio by \`orchestrator mcp\`; see [mcp.md](../mcp.md). The popup
and dashboard call the same operations through the extension. Every tool validates its input; a bad call answers
an \`isError\` result with a \`{code, message}\` and changes nothing.

Every tool sets all four MCP annotations explicitly. Tools with \`readOnlyHint: true\` only read; ChatGPT asks the
user to confirm every call of the others (see [getting-started.md](../getting-started.md) for how to approve them).
\`destructiveHint: true\` marks the calls that end a worker or run for good, \`idempotentHint: true\` those that
change nothing more when repeated with the same arguments, and \`openWorldHint\` is false throughout: no tool
reaches beyond this local orchestrator.

${tools}
`;
  return format(markdown, TOOL_REFERENCE);
}
