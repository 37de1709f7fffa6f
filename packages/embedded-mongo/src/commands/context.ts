// Shared types and argument helpers for command handlers.
import { type Collation, effectiveCollation } from '../collation.js';
import type { Batch } from '../cursors.js';
import { CommandError, ErrorCode } from '../errors.js';
import { evaluateLet } from '../let.js';
import type { QueryRequest, QueryResult } from '../plan-executor.js';
import { type Collection, type Engine, validateCollectionName } from '../storage.js';
import { type Document, isPlainObject, typeName } from '../values.js';

export interface ConnectionInfo {
  id: number;
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
}

export interface CommandContext {
  engine: Engine;
  dbName: string;
  connection: ConnectionInfo;
  /** Bytes of the request message: no document in it is larger. */
  requestBytes?: number | undefined;
  /** `Date.now()` after which the command fails with MaxTimeMSExpired (from `maxTimeMS`). */
  deadline?: number | undefined;
  /** The command's `bypassDocumentValidation: true`: its writes skip the validators (validation.ts). */
  bypassDocumentValidation?: boolean | undefined;
  /** Set while the database's profiler is on: handlers report their plans and counts to it. */
  profile?: ProfileHook | undefined;
}

/** What handlers tell the profiler (profile.ts) about the operation they run. */
export interface ProfileHook {
  /** Starts the entry of one update or delete statement: mongod profiles each on its own. */
  statement(op: 'update' | 'remove', command: Document): void;
  /** The plan that served the current operation and what it examined. */
  plan(result: QueryResult, request: QueryRequest): void;
  /** Other fields of the current entry (nMatched, nModified, ndeleted...). */
  set(fields: Document): void;
}

export type CommandHandler = (cmd: Document, ctx: CommandContext) => Document;

function commandName(cmd: Document): string {
  return Object.keys(cmd)[0] ?? '';
}

function wrongType(cmd: Document, field: string, value: unknown, expected: string): CommandError {
  return new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field '${commandName(cmd)}.${field}' is the wrong type '${typeName(value)}', expected type '${expected}'`,
  );
}

/** The collection named by the command's first field (e.g. `{ find: "users" }`). */
export function collectionArg(cmd: Document, ctx: CommandContext): string {
  const name = commandName(cmd);
  const value = cmd[name];
  if (typeof value !== 'string') {
    throw new CommandError(ErrorCode.InvalidNamespace, `collection name has invalid type ${typeName(value)}`);
  }
  validateCollectionName(ctx.dbName, value);
  return value;
}

export function optionalDocument(cmd: Document, field: string): Document | undefined {
  const value = cmd[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw wrongType(cmd, field, value, 'object');
  return value;
}

/**
 * The collation an operation runs with (collation.ts): the `collation` of `source` (the command,
 * or one of its statements), else the collection's default; undefined for the simple one.
 */
export function operationCollation(source: Document, coll: Collection | undefined): Collation | undefined {
  return effectiveCollation(optionalDocument(source, 'collation'), coll?.defaultCollation);
}

/** The command's `let` variables, evaluated (let.ts); undefined without a `let`. */
export function letVariables(cmd: Document): Document | undefined {
  return evaluateLet(optionalDocument(cmd, 'let'));
}

export function optionalArray(cmd: Document, field: string): unknown[] | undefined {
  const value = cmd[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw wrongType(cmd, field, value, 'array');
  return value;
}

export function requiredArray(cmd: Document, field: string): unknown[] {
  const value = optionalArray(cmd, field);
  if (value === undefined) {
    throw new CommandError(
      ErrorCode.Location40414,
      `BSON field '${commandName(cmd)}.${field}' is missing but a required field`,
    );
  }
  return value;
}

export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value !== null && typeof value === 'object') {
    const tag = (value as { _bsontype?: string })._bsontype;
    if (tag === 'Long') return (value as { toNumber(): number }).toNumber();
    if (tag === 'Int32' || tag === 'Double') return (value as { valueOf(): number }).valueOf();
  }
  return undefined;
}

export function optionalInteger(cmd: Document, field: string, source: Document = cmd): number | undefined {
  const value = source[field];
  if (value === undefined || value === null) return undefined;
  const n = toNumber(value);
  if (n === undefined || Number.isNaN(n)) throw wrongType(cmd, field, value, 'long');
  return Math.trunc(n);
}

export function optionalBoolean(cmd: Document, field: string): boolean | undefined {
  const value = cmd[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  const n = toNumber(value);
  if (n !== undefined) return n !== 0;
  throw wrongType(cmd, field, value, 'bool');
}

export function nonNegative(_cmd: Document, field: string, value: number | undefined): number | undefined {
  if (value !== undefined && value < 0) {
    // mongod's IDL validator names the field without its command or parent (`cursor.batchSize`).
    throw new CommandError(
      ErrorCode.Location51024,
      `BSON field '${field.split('.').pop()}' value must be >= 0, actual value '${value}'`,
    );
  }
  return value;
}

export function cursorReply(batch: Batch, which: 'firstBatch' | 'nextBatch'): Document {
  return { cursor: { [which]: batch.batch, id: batch.id, ns: batch.ns } };
}

/** `{ batchSize }` from a `cursor: { batchSize }` sub-document (aggregate, listCollections, ...). */
export function cursorBatchSize(cmd: Document): number | undefined {
  const cursor = optionalDocument(cmd, 'cursor');
  if (!cursor) return undefined;
  return nonNegative(cmd, 'cursor.batchSize', optionalInteger(cmd, 'batchSize', cursor));
}

/** mongod's upper bound for `maxTimeMS` (a 32-bit signed int of milliseconds). */
const MAX_TIME_MS_LIMIT = 2_147_483_647;

/** The command's `maxTimeMS` validated as mongod does (BadValue); 0 or absent means no limit. */
export function maxTimeMS(cmd: Document): number | undefined {
  const value = cmd.maxTimeMS;
  if (value === undefined || value === null) return undefined;
  const n = toNumber(value);
  if (n === undefined) throw new CommandError(ErrorCode.BadValue, 'maxTimeMS must be a number');
  if (!Number.isInteger(n)) throw new CommandError(ErrorCode.BadValue, 'maxTimeMS has non-integral value');
  if (n < 0 || n > MAX_TIME_MS_LIMIT) {
    throw new CommandError(
      ErrorCode.BadValue,
      `${n} value for maxTimeMS is out of range [0, ${MAX_TIME_MS_LIMIT}]`,
    );
  }
  return n === 0 ? undefined : n;
}

/**
 * Fails the command once its `maxTimeMS` has passed. Commands run synchronously, so handlers call
 * this between their steps (after matching, after a pipeline) rather than being interrupted.
 */
export function checkDeadline(ctx: CommandContext): void {
  if (ctx.deadline !== undefined && Date.now() > ctx.deadline) {
    throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
  }
}
