// Write commands: insert, update, delete, findAndModify; and the update and delete statements
// (runUpdate, runDelete) that bulkWrite's ops run too (bulk-write.ts).
import { BSON, ObjectId } from 'bson';
import { effectiveCollation } from '../collation.js';
import { CommandError, ErrorCode, failedToParse, toCommandError } from '../errors.js';
import { type Match, type QueryRequest, runQuery } from '../plan-executor.js';
import { compileProjection } from '../query.js';
import { type Collection, viewNotCollection } from '../storage.js';
import { applyUpdate, buildUpsertDocument, parseUpdate, validateStoredDocument } from '../update.js';
import { validateWrite } from '../validation.js';
import { type Document, idFirst, isPlainObject } from '../values.js';
import { MAX_BSON_OBJECT_SIZE } from '../wire.js';
import {
  type CommandContext,
  type CommandHandler,
  collectionArg,
  letVariables,
  operationCollation,
  optionalArray,
  optionalBoolean,
  optionalDocument,
  optionalInteger,
  requiredArray,
} from './context.js';

/**
 * A document about to be stored: valid for storage and within 16 MiB, else refused with mongod's
 * BSONObjectTooLarge before anything is written (a larger document could never be read back).
 */
// The _id the engine adds to a document sent without one, and then some.
const ID_ALLOWANCE = 64;

/** `requestBytes`: the size of the message `doc` came in, when it came as it is. */
function storable(doc: Document, what: 'insert' | 'update', requestBytes?: number): Document {
  validateStoredDocument(doc);
  // A document from a message well under the limit is under it too: no need to measure it.
  if (requestBytes !== undefined && requestBytes + ID_ALLOWANCE < MAX_BSON_OBJECT_SIZE) return doc;
  const size = BSON.calculateObjectSize(doc);
  if (size > MAX_BSON_OBJECT_SIZE) {
    throw new CommandError(
      ErrorCode.BSONObjectTooLarge,
      what === 'insert'
        ? `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`
        : `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`,
    );
  }
  return doc;
}

export function prepareInsert(raw: unknown, ctx: CommandContext): Document {
  if (!isPlainObject(raw))
    throw new CommandError(ErrorCode.TypeMismatch, 'document to insert must be an object');
  // The document was decoded for this command alone: it is stored as it is, not copied.
  const doc = raw._id === undefined ? { _id: new ObjectId(), ...raw } : idFirst(raw);
  return storable(doc, 'insert', ctx.requestBytes);
}

/** Stores a new document in `coll` once its validator accepts it (insert, upsert, `$merge`). */
export function insertDocument(ctx: CommandContext, coll: Collection, doc: Document): void {
  validateWrite(coll, doc, undefined, ctx.bypassDocumentValidation);
  coll.insert(doc);
}

/** Replaces the document of `match` in `coll` once its validator accepts the new one. */
export function replaceDocument(ctx: CommandContext, coll: Collection, match: Match, doc: Document): void {
  validateWrite(coll, doc, match.doc, ctx.bypassDocumentValidation);
  coll.replace(match.seq, doc);
}

/** The collection a statement updates or deletes in: refused on a view, as on mongod. */
function writableCollection(ctx: CommandContext, ns: Namespace): Collection | undefined {
  const coll = ctx.engine.collection(ns.db, ns.coll);
  if (coll?.isView) throw viewNotCollection(coll.ns);
  return coll;
}

const insert: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const documents = requiredArray(cmd, 'documents');
  const ordered = optionalBoolean(cmd, 'ordered') ?? true;
  const { collection } = ctx.engine.db(ctx.dbName).ensureCollection(name);
  const writeErrors: Document[] = [];
  let n = 0;
  for (let i = 0; i < documents.length; i++) {
    try {
      insertDocument(ctx, collection, prepareInsert(documents[i], ctx));
      n++;
    } catch (err) {
      writeErrors.push(toCommandError(err).toWriteError(i));
      if (ordered) break;
    }
  }
  return writeErrors.length > 0 ? { n, writeErrors } : { n };
};

/** The statement's matches (the first in `sort` order when limited to one), reported to the profiler. */
function matching(ctx: CommandContext, coll: Collection | undefined, request: QueryRequest): Match[] {
  const result = runQuery(coll, request);
  ctx.profile?.plan(result, request);
  return result.matches;
}

export function arrayFiltersOf(stmt: Document): Document[] | undefined {
  const filters = stmt.arrayFilters;
  if (filters === undefined || filters === null) return undefined;
  if (!Array.isArray(filters) || !filters.every(isPlainObject)) {
    throw new CommandError(ErrorCode.TypeMismatch, 'arrayFilters must be an array of objects');
  }
  return filters as Document[];
}

/** Where a statement writes: the command's own collection, or one of bulkWrite's namespaces. */
export interface Namespace {
  db: string;
  coll: string;
}

/** An update statement: one of update's `updates`, or a bulkWrite update op. */
export interface UpdateStatement {
  filter: Document;
  /** The update as sent: operators, a replacement document or a pipeline. */
  update: unknown;
  multi: boolean;
  upsert: boolean;
  sort?: Document | undefined;
  arrayFilters?: Document[] | undefined;
  hint?: unknown;
  collation?: Document | undefined;
  /** The command's `let` variables. */
  variables?: Document | undefined;
  /** The statement's own variables (update's `c`, bulkWrite's `constants`), over `variables`. */
  constants?: Document | undefined;
}

export interface UpdateResult {
  /** Documents matched, or 1 when the statement upserted. */
  n: number;
  nModified: number;
  /** The `_id` of the document an upsert inserted. */
  upsertedId?: unknown;
}

/**
 * Runs one update statement; a failing statement throws (its command reports a write error), the
 * documents a multi-update changed before the failure staying changed, as on mongod.
 */
export function runUpdate(ctx: CommandContext, ns: Namespace, stmt: UpdateStatement): UpdateResult {
  const { filter, multi, upsert, arrayFilters } = stmt;
  const parsed = parseUpdate(stmt.update);
  if (multi && parsed.kind === 'replacement') {
    throw failedToParse('multi update is not supported for replacement-style update');
  }
  if (multi && stmt.sort) throw failedToParse('Cannot specify sort with multi=true');
  if (stmt.constants && parsed.kind !== 'pipeline') {
    throw new CommandError(51198, 'Constant values may only be specified for pipeline updates');
  }
  const variables = stmt.constants ? { ...stmt.variables, ...stmt.constants } : stmt.variables;
  const extras = variables ? { variables } : {};
  const coll = writableCollection(ctx, ns);
  const collation = effectiveCollation(stmt.collation, coll?.defaultCollation);
  ctx.profile?.statement('update', { q: filter, u: stmt.update, multi, upsert });
  const request: QueryRequest = multi
    ? { filter, hint: stmt.hint, extras, collation }
    : { filter, sort: stmt.sort, limit: 1, hint: stmt.hint, extras, collation };
  const matches = matching(ctx, coll, request);
  if (matches.length === 0) {
    if (!upsert) return { n: 0, nModified: 0 };
    const doc = storable(buildUpsertDocument(filter, parsed, { arrayFilters, variables }), 'update');
    insertDocument(ctx, ctx.engine.db(ns.db).ensureCollection(ns.coll).collection, doc);
    ctx.profile?.set({ nMatched: 0, nModified: 0, nUpserted: 1 });
    return { n: 1, nModified: 0, upsertedId: doc._id };
  }
  let nModified = 0;
  for (const match of matches) {
    const { doc, changed } = applyUpdate(match.doc, parsed, { arrayFilters, query: filter, variables });
    if (changed) {
      storable(doc, 'update');
      replaceDocument(ctx, coll!, match, doc);
      nModified++;
    }
  }
  ctx.profile?.set({ nMatched: matches.length, nModified });
  return { n: matches.length, nModified };
}

const update: CommandHandler = (cmd, ctx) => {
  const ns = { db: ctx.dbName, coll: collectionArg(cmd, ctx) };
  const updates = requiredArray(cmd, 'updates');
  const ordered = optionalBoolean(cmd, 'ordered') ?? true;
  const variables = letVariables(cmd);
  const writeErrors: Document[] = [];
  const upserted: Document[] = [];
  let n = 0;
  let nModified = 0;
  for (let i = 0; i < updates.length; i++) {
    try {
      const stmt = updates[i];
      if (!isPlainObject(stmt))
        throw new CommandError(ErrorCode.TypeMismatch, 'update statement must be an object');
      const result = runUpdate(ctx, ns, {
        filter: optionalDocument(stmt, 'q') ?? {},
        update: stmt.u,
        multi: optionalBoolean(stmt, 'multi') ?? false,
        upsert: optionalBoolean(stmt, 'upsert') ?? false,
        sort: optionalDocument(stmt, 'sort'),
        arrayFilters: arrayFiltersOf(stmt),
        hint: stmt.hint,
        collation: optionalDocument(stmt, 'collation'),
        variables,
        constants: optionalDocument(stmt, 'c'),
      });
      n += result.n;
      nModified += result.nModified;
      if (result.upsertedId !== undefined) upserted.push({ index: i, _id: result.upsertedId });
    } catch (err) {
      writeErrors.push(toCommandError(err).toWriteError(i));
      if (ordered) break;
    }
  }
  const reply: Document = { n, nModified };
  if (upserted.length > 0) reply.upserted = upserted;
  if (writeErrors.length > 0) reply.writeErrors = writeErrors;
  return reply;
};

/** A delete statement: one of delete's `deletes`, or a bulkWrite delete op. */
export interface DeleteStatement {
  filter: Document;
  /** Every match (delete's `limit: 0`, bulkWrite's `multi: true`), else the first. */
  multi: boolean;
  hint?: unknown;
  collation?: Document | undefined;
  /** The command's `let` variables. */
  variables?: Document | undefined;
}

/** Runs one delete statement; returns how many documents it deleted. */
export function runDelete(ctx: CommandContext, ns: Namespace, stmt: DeleteStatement): number {
  const coll = writableCollection(ctx, ns);
  ctx.profile?.statement('remove', { q: stmt.filter, limit: stmt.multi ? 0 : 1 });
  const matches = matching(ctx, coll, {
    filter: stmt.filter,
    limit: stmt.multi ? undefined : 1,
    hint: stmt.hint,
    extras: stmt.variables ? { variables: stmt.variables } : {},
    collation: effectiveCollation(stmt.collation, coll?.defaultCollation),
  });
  for (const match of matches) coll!.delete(match.seq);
  ctx.profile?.set({ ndeleted: matches.length });
  return matches.length;
}

const remove: CommandHandler = (cmd, ctx) => {
  const ns = { db: ctx.dbName, coll: collectionArg(cmd, ctx) };
  const deletes = requiredArray(cmd, 'deletes');
  const ordered = optionalBoolean(cmd, 'ordered') ?? true;
  const variables = letVariables(cmd);
  const writeErrors: Document[] = [];
  let n = 0;
  for (let i = 0; i < deletes.length; i++) {
    try {
      const stmt = deletes[i];
      if (!isPlainObject(stmt))
        throw new CommandError(ErrorCode.TypeMismatch, 'delete statement must be an object');
      const limit = optionalInteger(stmt, 'limit') ?? 0;
      if (limit !== 0 && limit !== 1) {
        throw failedToParse(`The limit field in delete objects must be 0 or 1. Got ${limit}`);
      }
      n += runDelete(ctx, ns, {
        filter: optionalDocument(stmt, 'q') ?? {},
        multi: limit === 0,
        hint: stmt.hint,
        collation: optionalDocument(stmt, 'collation'),
        variables,
      });
    } catch (err) {
      writeErrors.push(toCommandError(err).toWriteError(i));
      if (ordered) break;
    }
  }
  return writeErrors.length > 0 ? { n, writeErrors } : { n };
};

const findAndModify: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const query = optionalDocument(cmd, 'query') ?? {};
  const sort = optionalDocument(cmd, 'sort');
  const fields = optionalDocument(cmd, 'fields');
  const removeDoc = optionalBoolean(cmd, 'remove') ?? false;
  const returnNew = optionalBoolean(cmd, 'new') ?? false;
  const upsert = optionalBoolean(cmd, 'upsert') ?? false;
  const arrayFilters = optionalArray(cmd, 'arrayFilters') as Document[] | undefined;
  const variables = letVariables(cmd);
  const extras = variables ? { variables } : {};
  const hasUpdate = cmd.update !== undefined && cmd.update !== null;
  if (removeDoc && hasUpdate) throw failedToParse('Cannot specify both an update and remove=true');
  if (!removeDoc && !hasUpdate) throw failedToParse('Either an update or remove=true must be specified');
  if (removeDoc && upsert) throw failedToParse('Cannot specify both upsert=true and remove=true');
  if (removeDoc && returnNew) {
    throw failedToParse(
      "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
    );
  }
  const project = compileProjection(fields, query, extras);
  const shape = (doc: Document | null): Document | null => (doc && project ? project(doc) : doc);
  const db = ctx.engine.db(ctx.dbName);
  const coll = writableCollection(ctx, { db: ctx.dbName, coll: name });
  const collation = operationCollation(cmd, coll);
  const target = matching(ctx, coll, { filter: query, sort, limit: 1, extras, collation })[0];

  if (removeDoc) {
    if (!target) return { lastErrorObject: { n: 0 }, value: null };
    coll!.delete(target.seq);
    return { lastErrorObject: { n: 1 }, value: shape(target.doc) };
  }

  const parsed = parseUpdate(cmd.update);
  if (target) {
    const { doc, changed } = applyUpdate(target.doc, parsed, { arrayFilters, query, variables });
    if (changed) {
      storable(doc, 'update');
      replaceDocument(ctx, coll!, target, doc);
    }
    return {
      lastErrorObject: { n: 1, updatedExisting: true },
      value: shape(returnNew ? doc : target.doc),
    };
  }
  if (!upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null };
  const doc = storable(buildUpsertDocument(query, parsed, { arrayFilters, variables }), 'update');
  insertDocument(ctx, db.ensureCollection(name).collection, doc);
  return {
    lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id },
    value: returnNew ? shape(doc) : null,
  };
};

export const writeCommands: Record<string, CommandHandler> = {
  insert,
  update,
  delete: remove,
  findAndModify,
  findandmodify: findAndModify,
};
