// Write commands: insert, update, delete, findAndModify.
import { BSON, ObjectId } from 'bson';
import { CommandError, ErrorCode, failedToParse, toCommandError } from '../errors.js';
import { type Match, type QueryRequest, runQuery } from '../plan-executor.js';
import { compileProjection } from '../query.js';
import type { Collection } from '../storage.js';
import { applyUpdate, buildUpsertDocument, parseUpdate, validateStoredDocument } from '../update.js';
import { type Document, idFirst, isPlainObject } from '../values.js';
import { MAX_BSON_OBJECT_SIZE } from '../wire.js';
import {
  type CommandContext,
  type CommandHandler,
  collectionArg,
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

function prepareInsert(raw: unknown, ctx: CommandContext): Document {
  if (!isPlainObject(raw))
    throw new CommandError(ErrorCode.TypeMismatch, 'document to insert must be an object');
  // The document was decoded for this command alone: it is stored as it is, not copied.
  const doc = raw._id === undefined ? { _id: new ObjectId(), ...raw } : idFirst(raw);
  return storable(doc, 'insert', ctx.requestBytes);
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
      collection.insert(prepareInsert(documents[i], ctx));
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

function arrayFiltersOf(stmt: Document): Document[] | undefined {
  const filters = stmt.arrayFilters;
  if (filters === undefined || filters === null) return undefined;
  if (!Array.isArray(filters) || !filters.every(isPlainObject)) {
    throw new CommandError(ErrorCode.TypeMismatch, 'arrayFilters must be an array of objects');
  }
  return filters as Document[];
}

const update: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const updates = requiredArray(cmd, 'updates');
  const ordered = optionalBoolean(cmd, 'ordered') ?? true;
  const db = ctx.engine.db(ctx.dbName);
  const writeErrors: Document[] = [];
  const upserted: Document[] = [];
  let n = 0;
  let nModified = 0;
  for (let i = 0; i < updates.length; i++) {
    try {
      const stmt = updates[i];
      if (!isPlainObject(stmt))
        throw new CommandError(ErrorCode.TypeMismatch, 'update statement must be an object');
      const q = optionalDocument(stmt, 'q') ?? {};
      const multi = optionalBoolean(stmt, 'multi') ?? false;
      const upsert = optionalBoolean(stmt, 'upsert') ?? false;
      const sort = optionalDocument(stmt, 'sort');
      const arrayFilters = arrayFiltersOf(stmt);
      const parsed = parseUpdate(stmt.u);
      if (multi && parsed.kind === 'replacement') {
        throw failedToParse('multi update is not supported for replacement-style update');
      }
      const coll = db.collection(name);
      ctx.profile?.statement('update', { q, u: stmt.u, multi, upsert });
      const matches = matching(ctx, coll, multi ? { filter: q } : { filter: q, sort, limit: 1 });
      if (matches.length === 0) {
        if (upsert) {
          const doc = storable(buildUpsertDocument(q, parsed, arrayFilters), 'update');
          db.ensureCollection(name).collection.insert(doc);
          n++;
          upserted.push({ index: i, _id: doc._id });
          ctx.profile?.set({ nMatched: 0, nModified: 0, nUpserted: 1 });
        }
        continue;
      }
      let modified = 0;
      for (const match of matches) {
        const { doc, changed } = applyUpdate(match.doc, parsed, { arrayFilters, query: q });
        n++;
        if (changed) {
          storable(doc, 'update');
          coll!.replace(match.seq, doc);
          modified++;
        }
      }
      nModified += modified;
      ctx.profile?.set({ nMatched: matches.length, nModified: modified });
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

const remove: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const deletes = requiredArray(cmd, 'deletes');
  const ordered = optionalBoolean(cmd, 'ordered') ?? true;
  const coll = ctx.engine.collection(ctx.dbName, name);
  const writeErrors: Document[] = [];
  let n = 0;
  for (let i = 0; i < deletes.length; i++) {
    try {
      const stmt = deletes[i];
      if (!isPlainObject(stmt))
        throw new CommandError(ErrorCode.TypeMismatch, 'delete statement must be an object');
      const q = optionalDocument(stmt, 'q') ?? {};
      const limit = optionalInteger(stmt, 'limit') ?? 0;
      if (limit !== 0 && limit !== 1) {
        throw failedToParse(`The limit field in delete objects must be 0 or 1. Got ${limit}`);
      }
      ctx.profile?.statement('remove', { q, limit });
      const matches = matching(ctx, coll, { filter: q, limit: limit === 1 ? 1 : undefined });
      for (const match of matches) {
        coll!.delete(match.seq);
        n++;
      }
      ctx.profile?.set({ ndeleted: matches.length });
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
  const hasUpdate = cmd.update !== undefined && cmd.update !== null;
  if (removeDoc && hasUpdate) throw failedToParse('Cannot specify both an update and remove=true');
  if (!removeDoc && !hasUpdate) throw failedToParse('Either an update or remove=true must be specified');
  if (removeDoc && upsert) throw failedToParse('Cannot specify both upsert=true and remove=true');
  if (removeDoc && returnNew) {
    throw failedToParse(
      "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
    );
  }
  const project = compileProjection(fields, query);
  const shape = (doc: Document | null): Document | null => (doc && project ? project(doc) : doc);
  const db = ctx.engine.db(ctx.dbName);
  const coll = db.collection(name);
  const target = matching(ctx, coll, { filter: query, sort, limit: 1 })[0];

  if (removeDoc) {
    if (!target) return { lastErrorObject: { n: 0 }, value: null };
    coll!.delete(target.seq);
    return { lastErrorObject: { n: 1 }, value: shape(target.doc) };
  }

  const parsed = parseUpdate(cmd.update);
  if (target) {
    const { doc, changed } = applyUpdate(target.doc, parsed, { arrayFilters, query });
    if (changed) {
      storable(doc, 'update');
      coll!.replace(target.seq, doc);
    }
    return {
      lastErrorObject: { n: 1, updatedExisting: true },
      value: shape(returnNew ? doc : target.doc),
    };
  }
  if (!upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null };
  const doc = storable(buildUpsertDocument(query, parsed, arrayFilters), 'update');
  db.ensureCollection(name).collection.insert(doc);
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
