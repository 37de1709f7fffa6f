// The bulkWrite command (MongoDB 8.0; what the driver's `MongoClient.bulkWrite` sends): inserts,
// updates and deletes on collections of any database in one command, run on `admin`. The whole
// command is parsed first, as mongod's IDL does, so a malformed op fails it before anything is
// written; each op then runs as the insert, update and delete commands run their statements
// (write.ts), and a failing op is reported in its place (`ordered`, the default, stops there).
// The reply counts what was done and lists each op's result, or with `errorsOnly` its errors only,
// in a cursor. Like every command, its writes are committed together once it ends (server.ts).
import { CommandError, ErrorCode, failedToParse, toCommandError } from '../errors.js';
import { validateDbName } from '../storage.js';
import { type Document, formatValue, isPlainObject, typeName } from '../values.js';
import {
  type CommandContext,
  type CommandHandler,
  cursorBatchSize,
  cursorReply,
  letVariables,
  nonNegative,
  optionalBoolean,
  optionalDocument,
  optionalInteger,
  requiredArray,
} from './context.js';
import { MAX_WRITE_BATCH_SIZE } from './handshake.js';
import {
  arrayFiltersOf,
  type DeleteStatement,
  insertDocument,
  type Namespace,
  prepareInsert,
  runDelete,
  runUpdate,
  type UpdateStatement,
} from './write.js';

/** The namespace of the reply's cursor, where a getMore for the rest of the results goes. */
const CURSOR_NS = 'admin.$cmd.bulkWrite';

type Op =
  | { kind: 'insert'; ns: Namespace; document: Document }
  | { kind: 'update'; ns: Namespace; statement: UpdateStatement }
  | { kind: 'delete'; ns: Namespace; statement: DeleteStatement };

/** The reply's totals. */
interface Summary {
  nErrors: number;
  nInserted: number;
  nMatched: number;
  nModified: number;
  nUpserted: number;
  nDeleted: number;
}

function missing(field: string): CommandError {
  return new CommandError(
    ErrorCode.Location40414,
    `BSON field 'bulkWrite.${field}' is missing but a required field`,
  );
}

function wrongType(field: string, value: unknown): CommandError {
  return new CommandError(
    ErrorCode.TypeMismatch,
    `BSON field 'bulkWrite.${field}' is the wrong type '${typeName(value)}', expected type 'object'`,
  );
}

/** `nsInfo`: the namespaces ops name by their position in it. */
function parseNamespaces(cmd: Document): Namespace[] {
  return requiredArray(cmd, 'nsInfo').map((entry) => {
    if (!isPlainObject(entry)) throw wrongType('nsInfo', entry);
    const ns = entry.ns;
    if (ns === undefined) throw missing('nsInfo.ns');
    if (typeof ns !== 'string') {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field 'bulkWrite.nsInfo.ns' is the wrong type '${typeName(ns)}', expected type 'string'`,
      );
    }
    const dot = ns.indexOf('.');
    const namespace = { db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
    const invalid = new CommandError(
      ErrorCode.InvalidNamespace,
      `Invalid namespace specified for bulkWrite: '${ns}'`,
    );
    if (dot < 0 || namespace.coll === '') throw invalid;
    try {
      validateDbName(namespace.db);
    } catch {
      throw invalid;
    }
    return namespace;
  });
}

/** One of `ops`: `{ insert: <nsInfo index>, ... }`, `{ update: ... }` or `{ delete: ... }`. */
function parseOp(raw: unknown, namespaces: Namespace[], variables: Document | undefined): Op {
  if (!isPlainObject(raw)) throw wrongType('ops', raw);
  const kind = Object.keys(raw)[0];
  if (kind !== 'insert' && kind !== 'update' && kind !== 'delete') {
    throw failedToParse(`Unrecognized bulkWrite op: ${formatValue(raw)}; expected insert, update or delete`);
  }
  const index = nonNegative(raw, kind, optionalInteger(raw, kind)) ?? 0;
  const ns = namespaces[index];
  if (!ns) {
    throw new CommandError(
      ErrorCode.BadValue,
      `BulkWrite ops entry ${formatValue(raw)} has an invalid nsInfo index.`,
    );
  }
  if (kind === 'insert') {
    const document = optionalDocument(raw, 'document');
    if (!document) throw missing('ops.document');
    return { kind, ns, document };
  }
  const filter = optionalDocument(raw, 'filter');
  if (!filter) throw missing('ops.filter');
  const multi = optionalBoolean(raw, 'multi') ?? false;
  const collation = optionalDocument(raw, 'collation');
  if (kind === 'delete')
    return { kind, ns, statement: { filter, multi, hint: raw.hint, collation, variables } };
  if (raw.updateMods === undefined) throw missing('ops.updateMods');
  const statement: UpdateStatement = {
    filter,
    update: raw.updateMods,
    multi,
    upsert: optionalBoolean(raw, 'upsert') ?? false,
    sort: optionalDocument(raw, 'sort'),
    arrayFilters: arrayFiltersOf(raw),
    hint: raw.hint,
    collation,
    variables,
    constants: optionalDocument(raw, 'constants'),
  };
  return { kind, ns, statement };
}

/** Runs one op: the counts of its reply, which are added to `summary`. */
function execute(ctx: CommandContext, op: Op, summary: Summary): Document {
  switch (op.kind) {
    case 'insert': {
      const doc = prepareInsert(op.document, ctx);
      insertDocument(ctx, ctx.engine.db(op.ns.db).ensureCollection(op.ns.coll).collection, doc);
      summary.nInserted++;
      return { n: 1 };
    }
    case 'update': {
      const { n, nModified, upsertedId } = runUpdate(ctx, op.ns, op.statement);
      summary.nModified += nModified;
      if (upsertedId === undefined) {
        summary.nMatched += n;
        return { n, nModified };
      }
      summary.nUpserted++;
      return { n, nModified, upserted: { _id: upsertedId } };
    }
    case 'delete': {
      const n = runDelete(ctx, op.ns, op.statement);
      summary.nDeleted += n;
      return { n };
    }
  }
}

/** A failed op's reply: mongod's code and message (and details: a duplicate's keyPattern...). */
function errorReply(idx: number, op: Op, err: unknown): Document {
  const error = toCommandError(err);
  const reply: Document = { ok: 0, idx, code: error.code, errmsg: error.message, ...error.extra, n: 0 };
  if (op.kind === 'update') reply.nModified = 0;
  return reply;
}

const bulkWrite: CommandHandler = (cmd, ctx) => {
  if (ctx.dbName !== 'admin') {
    throw new CommandError(ErrorCode.Unauthorized, 'bulkWrite may only be run against the admin database.');
  }
  const rawOps = requiredArray(cmd, 'ops');
  if (rawOps.length === 0 || rawOps.length > MAX_WRITE_BATCH_SIZE) {
    throw new CommandError(
      ErrorCode.InvalidLength,
      `Write batch sizes must be between 1 and ${MAX_WRITE_BATCH_SIZE}. Got ${rawOps.length} operations.`,
    );
  }
  const namespaces = parseNamespaces(cmd);
  const variables = letVariables(cmd);
  const ops = rawOps.map((raw) => parseOp(raw, namespaces, variables));
  const ordered = optionalBoolean(cmd, 'ordered') ?? true;
  const errorsOnly = optionalBoolean(cmd, 'errorsOnly') ?? false;
  // mongod answers every op in the first batch unless the client asks for a smaller one.
  const batchSize = cursorBatchSize(cmd) ?? Number.POSITIVE_INFINITY;
  const summary: Summary = { nErrors: 0, nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0 };
  const replies: Document[] = [];
  for (const [idx, op] of ops.entries()) {
    let reply: Document;
    try {
      reply = { ok: 1, idx, ...execute(ctx, op, summary) };
    } catch (err) {
      reply = errorReply(idx, op, err);
      summary.nErrors++;
    }
    if (reply.ok === 0 || !errorsOnly) replies.push(reply);
    if (reply.ok === 0 && ordered) break;
  }
  const batch = ctx.engine.cursors.open(CURSOR_NS, replies, { batchSize });
  return { ...cursorReply(batch, 'firstBatch'), ...summary };
};

export const bulkWriteCommands: Record<string, CommandHandler> = { bulkWrite };
