// JSON payloads of journal records ({seq, stmts}) and archive records ({rows}); blobs travel as {"$b64": ...}.
// Parameters are validated here, before a statement runs, so that whatever executes can be replayed bit for bit.
import { StoreError } from "./store-error.ts";
import type { Row, SqlParams, SqlValue } from "./store-types.ts";

/** A blob inside JSON. Only positional parameters and row values may be blobs, so an object there is always one. */
interface JsonBlob {
  $b64: string;
}
/** A REAL that JSON cannot spell (SQLite can hold ±Infinity); only archived rows carry these. */
interface JsonFloat {
  $f: string;
}
type JsonValue = string | number | null | JsonBlob | JsonFloat;
export type JsonParams = JsonValue[] | Record<string, string | number | null>;

/** One statement of a transaction as journalled: [sql, params] or, if it raised an error the caller caught, [sql, params, 1]. */
export type JsonStatement = [string, JsonParams | null] | [string, JsonParams | null, 1];

export interface DecodedStatement {
  sql: string;
  params: SqlParams | undefined;
  /** The statement raised an error when it first ran; replay must see it fail the same way. */
  failed: boolean;
}

export interface DecodedRecord {
  seq: number;
  stmts: DecodedStatement[];
}

export const TX_PAYLOAD_PREFIX = Buffer.from('{"seq":', "latin1");
export const ARCHIVE_PAYLOAD_PREFIX = Buffer.from('{"rows":', "latin1");

/** Checks parameters and converts them to their journalled form; throws STORE_MISUSE for anything that cannot replay. */
export function encodeParams(sql: string, params: SqlParams | undefined): JsonParams | null {
  if (params === undefined) return null;
  if (isPositional(params)) return params.map((v, i) => encodeValue(v, sql, `parameter ${i + 1}`));
  if (params === null || typeof params !== "object") throw badParam(sql, "parameters", params);
  return Object.fromEntries(
    Object.entries(params).map(([name, v]) => {
      if (!isScalar(v)) throw badParam(sql, `parameter ${name}`, v);
      return [name, v];
    }),
  );
}

/** The JSON text of a journal record (frame it with frameText). */
export function encodeTxRecord(seq: number, stmts: readonly JsonStatement[]): string {
  return JSON.stringify({ seq, stmts });
}

/**
 * A statement's part of a journal record, encoded as it is run (so a params array the caller reuses afterwards
 * cannot change what was journalled). `text(failed)` is the JSON of [sql, params] or [sql, params, 1]: the same
 * bytes encodeTxRecord writes for it, without building the intermediate arrays on the commit path.
 */
export class StatementText {
  private readonly head: string;

  /** Validates the parameters (throws STORE_MISUSE like encodeParams). */
  constructor(sql: string, params: SqlParams | undefined) {
    this.head = `[${quotedSql(sql)},${paramsJson(sql, params)}`;
  }

  text(failed: boolean): string {
    return failed ? `${this.head},1]` : `${this.head}]`;
  }
}

/** The JSON text of a journal record from its statements' texts (equal to encodeTxRecord's output). */
export function txRecordText(seq: number, statements: readonly string[]): string {
  return `{"seq":${seq},"stmts":[${statements.join(",")}]}`;
}

const quoted = new Map<string, string>();
const MAX_QUOTED = 1024;

/** JSON.stringify(sql), cached: callers reuse a handful of statement texts. */
function quotedSql(sql: string): string {
  let q = quoted.get(sql);
  if (q === undefined) {
    q = JSON.stringify(sql);
    if (quoted.size >= MAX_QUOTED) quoted.clear();
    quoted.set(sql, q);
  }
  return q;
}

function paramsJson(sql: string, params: SqlParams | undefined): string {
  if (params === undefined) return "null";
  if (isPositional(params)) {
    // Most parameter lists hold only strings and numbers: check them and stringify as they are.
    let plain = true;
    for (let i = 0; i < params.length; i++) {
      const v = params[i];
      if (v instanceof Uint8Array) plain = false;
      else if (!isScalar(v)) throw badParam(sql, `parameter ${i + 1}`, v);
    }
    return JSON.stringify(plain ? params : encodeParams(sql, params));
  }
  return JSON.stringify(encodeParams(sql, params));
}

export function decodeTxRecord(payload: Buffer): DecodedRecord {
  const parsed: unknown = JSON.parse(payload.toString("utf8"));
  if (!isObject(parsed)) throw new Error("record is not an object");
  const { seq, stmts } = parsed;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1)
    throw new Error(`bad seq ${String(seq)}`);
  if (!Array.isArray(stmts)) throw new Error("stmts is not an array");
  return { seq, stmts: stmts.map(decodeStatement) };
}

/** The JSON text of an archive record (frame it with frameText). */
export function encodeRows(rows: readonly Row[]): string {
  // Most rows are plain JSON already; only rows with a blob or an infinite REAL are copied.
  // fromEntries, not assignment: a column may be called "__proto__" (assigning it would set the prototype).
  const json = rows.map((row) =>
    Object.values(row).every(isPlainJson)
      ? row
      : Object.fromEntries(Object.entries(row).map(([k, v]) => [k, encodeRowValue(v)])),
  );
  return JSON.stringify({ rows: json });
}

function isPlainJson(v: SqlValue): boolean {
  return typeof v === "number" ? Number.isFinite(v) : !(v instanceof Uint8Array);
}

export function decodeRows(payload: Buffer): Row[] {
  const parsed: unknown = JSON.parse(payload.toString("utf8"));
  if (!isObject(parsed) || !Array.isArray(parsed.rows)) throw new Error("archive record has no rows array");
  return parsed.rows.map((r: unknown) => {
    if (!isObject(r)) throw new Error("archive row is not an object");
    return Object.fromEntries(Object.entries(r).map(([k, v]): [string, SqlValue] => [k, decodeValue(v)]));
  });
}

function encodeRowValue(v: SqlValue): JsonValue {
  if (v instanceof Uint8Array) return toBlob(v);
  if (typeof v === "number" && !Number.isFinite(v)) return { $f: String(v) };
  return v;
}

function decodeStatement(s: unknown): DecodedStatement {
  if (!Array.isArray(s) || typeof s[0] !== "string") throw new Error("statement is not [sql, params]");
  const raw: unknown = s[1];
  let params: SqlParams | undefined;
  if (raw === null || raw === undefined) params = undefined;
  else if (Array.isArray(raw)) params = raw.map(decodeValue);
  else if (isObject(raw)) params = raw as Record<string, string | number | null>;
  else throw new Error("statement params are neither array, object nor null");
  return { sql: s[0], params, failed: s[2] === 1 };
}

function decodeValue(v: unknown): SqlValue {
  if (v === null || typeof v === "string" || typeof v === "number") return v;
  if (isObject(v) && typeof v.$b64 === "string") {
    const b = Buffer.from(v.$b64, "base64");
    return new Uint8Array(b.buffer, b.byteOffset, b.length);
  }
  if (isObject(v) && typeof v.$f === "string") return Number(v.$f);
  throw new Error(`unexpected value ${JSON.stringify(v)}`);
}

function encodeValue(v: unknown, sql: string, what: string): JsonValue {
  if (v instanceof Uint8Array) return toBlob(v);
  if (!isScalar(v)) throw badParam(sql, what, v);
  return v;
}

function toBlob(v: Uint8Array): JsonBlob {
  return { $b64: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64") };
}

function isScalar(v: unknown): v is string | number | null {
  // Non-finite numbers would come back from JSON as null: a different value on replay.
  return v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

function isPositional(p: SqlParams): p is readonly SqlValue[] {
  return Array.isArray(p);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function badParam(sql: string, what: string, v: unknown): StoreError {
  const shown = typeof v === "bigint" ? `${v}n` : typeof v === "number" ? String(v) : typeof v;
  return new StoreError(
    "STORE_MISUSE",
    `${what} of "${sql.slice(0, 80)}" is ${shown}; only strings, finite numbers, null and (positional) Uint8Array can be journalled`,
  );
}
