// Namespace and index management: create, drop, dropDatabase, listCollections, listDatabases,
// renameCollection, createIndexes, listIndexes, dropIndexes, dbStats.
import { BSON } from 'bson';
import { parseCollation } from '../collation.js';
import { CommandError, ErrorCode, namespaceNotFound } from '../errors.js';
import { compileFilter } from '../filter.js';
import { defaultIndexName, ID_INDEX_NAME } from '../indexes.js';
import {
  type Collection,
  indexCollationRefused,
  validateCollectionName,
  validateDbName,
  viewNotCollection,
} from '../storage.js';
import { applyValidationOptions, validationOptions } from '../validation.js';
import { type Document, isPlainObject } from '../values.js';
import { checkViewChain, pipelineWithoutViewOn, viewDefinition, viewInfo } from '../views.js';
import {
  type CommandHandler,
  collectionArg,
  cursorBatchSize,
  cursorReply,
  optionalBoolean,
  optionalDocument,
  requiredArray,
} from './context.js';
import { GENERIC_ARGUMENTS } from './fields.js';

/** `create`'s options a view or the validation settings own, handled apart from the rest. */
const VIEW_AND_VALIDATION_OPTIONS = new Set([
  'viewOn',
  'pipeline',
  'validator',
  'validationLevel',
  'validationAction',
]);

const create: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  if (cmd.viewOn !== undefined) {
    const definition = viewDefinition(cmd, 'create');
    checkViewChain(ctx.engine, ctx.dbName, name, definition.viewOn as string);
    ctx.engine.db(ctx.dbName).createCollection(name, definition);
    return {};
  }
  if (cmd.pipeline !== undefined) throw pipelineWithoutViewOn();
  const collationDoc = optionalDocument(cmd, 'collation');
  // The default collation is kept as mongod lists it, every field filled in; a simple one is none.
  const collation =
    collationDoc && Object.keys(collationDoc).length > 0 ? parseCollation(collationDoc) : undefined;
  const options: Document = {};
  for (const [key, value] of Object.entries(cmd)) {
    if (key === 'create' || GENERIC_ARGUMENTS.has(key) || VIEW_AND_VALIDATION_OPTIONS.has(key)) continue;
    if (key === 'collation') {
      if (collation) options.collation = { ...collation.spec };
    } else options[key] = value;
  }
  applyValidationOptions(options, validationOptions(cmd, 'create'));
  ctx.engine.db(ctx.dbName).createCollection(name, options);
  return {};
};

const drop: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const db = ctx.engine.existingDb(ctx.dbName);
  const dropped = db?.dropCollection(name);
  if (dropped?.isView) return {};
  return dropped ? { nIndexesWas: dropped.indexes.size, ns: dropped.ns } : {};
};

const dropDatabase: CommandHandler = (_cmd, ctx) => {
  ctx.engine.dropDatabase(ctx.dbName);
  return { dropped: ctx.dbName };
};

function collectionInfo(coll: Collection): Document {
  if (coll.isView) return viewInfo(coll);
  return {
    name: coll.name,
    type: 'collection',
    options: { ...coll.options },
    info: { readOnly: false, uuid: coll.uuid },
    idIndex: { v: 2, key: { _id: 1 }, name: ID_INDEX_NAME },
  };
}

const listCollections: CommandHandler = (cmd, ctx) => {
  const filter = optionalDocument(cmd, 'filter');
  const nameOnly = optionalBoolean(cmd, 'nameOnly') ?? false;
  const matcher = compileFilter(filter);
  const db = ctx.engine.existingDb(ctx.dbName);
  const infos: Document[] = [];
  for (const coll of db?.collections.values() ?? []) {
    const info = collectionInfo(coll);
    if (!matcher.test(info)) continue;
    infos.push(nameOnly ? { name: info.name, type: info.type } : info);
  }
  const batch = ctx.engine.cursors.open(`${ctx.dbName}.$cmd.listCollections`, infos, {
    batchSize: cursorBatchSize(cmd),
  });
  return cursorReply(batch, 'firstBatch');
};

function collectionSize(coll: Collection): number {
  let size = 0;
  for (const doc of coll.docs.values()) size += BSON.calculateObjectSize(doc);
  return size;
}

const listDatabases: CommandHandler = (cmd, ctx) => {
  const nameOnly = optionalBoolean(cmd, 'nameOnly') ?? false;
  const matcher = compileFilter(optionalDocument(cmd, 'filter'));
  const databases: Document[] = [];
  let totalSize = 0;
  for (const db of ctx.engine.databases.values()) {
    if (db.collections.size === 0) continue;
    let sizeOnDisk = 0;
    for (const coll of db.collections.values()) sizeOnDisk += collectionSize(coll);
    const entry: Document = { name: db.name, sizeOnDisk, empty: sizeOnDisk === 0 };
    if (!matcher.test(entry)) continue;
    totalSize += sizeOnDisk;
    databases.push(nameOnly ? { name: db.name } : entry);
  }
  return nameOnly ? { databases } : { databases, totalSize, totalSizeMb: Math.floor(totalSize / 1048576) };
};

function splitNamespace(ns: unknown, field: string): { db: string; coll: string } {
  if (typeof ns !== 'string' || !ns.includes('.')) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `Invalid namespace specified for ${field}: '${String(ns)}'`,
    );
  }
  const dot = ns.indexOf('.');
  const db = ns.slice(0, dot);
  const coll = ns.slice(dot + 1);
  validateDbName(db);
  validateCollectionName(db, coll);
  return { db, coll };
}

const renameCollection: CommandHandler = (cmd, ctx) => {
  const from = splitNamespace(cmd.renameCollection, 'renameCollection');
  const to = splitNamespace(cmd.to, 'to');
  const dropTarget = optionalBoolean(cmd, 'dropTarget') ?? false;
  const source = ctx.engine.collection(from.db, from.coll);
  if (!source) throw namespaceNotFound(`Source collection ${from.db}.${from.coll} does not exist`);
  if (source.isView) throw viewNotCollection(source.ns);
  if (from.db === to.db && from.coll === to.coll) return {};
  const targetDb = ctx.engine.db(to.db);
  if (targetDb.collection(to.coll)) {
    if (!dropTarget) throw new CommandError(ErrorCode.NamespaceExists, 'target namespace exists');
    targetDb.dropCollection(to.coll);
  }
  const moved = source.renamed(to.db, to.coll);
  ctx.engine.existingDb(from.db)?.dropCollection(from.coll);
  targetDb.collections.set(to.coll, moved);
  return {};
};

const createIndexes: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const specs = requiredArray(cmd, 'indexes');
  if (specs.length === 0)
    throw new CommandError(ErrorCode.BadValue, 'Must specify at least one index to create');
  // An index named without a collation takes the collection's default, as on mongod.
  const inherited = ctx.engine.collection(ctx.dbName, name)?.defaultCollation;
  for (const spec of specs) {
    if (inherited && isPlainObject(spec) && spec.collation === undefined) {
      const indexName =
        typeof spec.name === 'string' ? spec.name : isPlainObject(spec.key) ? defaultIndexName(spec.key) : '';
      throw indexCollationRefused(indexName, inherited, "the collection's default collation");
    }
  }
  const { collection, created } = ctx.engine.db(ctx.dbName).ensureCollection(name);
  const before = collection.indexes.size;
  const createdNow: string[] = [];
  try {
    for (const spec of specs) {
      if (!isPlainObject(spec))
        throw new CommandError(ErrorCode.TypeMismatch, 'index specification must be an object');
      if (spec.key === undefined) {
        throw new CommandError(
          ErrorCode.FailedToParse,
          "The 'key' field is a required property of an index specification",
        );
      }
      const result = collection.createIndex(spec);
      if (result.created) createdNow.push(result.name);
    }
  } catch (err) {
    for (const indexName of createdNow) collection.indexes.delete(indexName);
    throw err;
  }
  const reply: Document = {
    numIndexesBefore: before,
    numIndexesAfter: collection.indexes.size,
    createdCollectionAutomatically: created,
  };
  if (createdNow.length === 0) reply.note = 'all indexes already exist';
  return reply;
};

const listIndexes: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const coll = ctx.engine.collection(ctx.dbName, name);
  if (!coll) throw namespaceNotFound(`ns does not exist: ${ctx.dbName}.${name}`);
  if (coll.isView) throw viewNotCollection(coll.ns);
  const specs = coll.indexSpecs().map((spec) => ({ ...spec }));
  const batch = ctx.engine.cursors.open(`${ctx.dbName}.$cmd.listIndexes.${name}`, specs, {
    batchSize: cursorBatchSize(cmd),
  });
  return cursorReply(batch, 'firstBatch');
};

const dropIndexes: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const coll = ctx.engine.collection(ctx.dbName, name);
  if (!coll) throw namespaceNotFound(`ns not found ${ctx.dbName}.${name}`);
  if (coll.isView) throw viewNotCollection(coll.ns);
  const nIndexesWas = coll.indexes.size;
  const index = cmd.index;
  if (index === '*') {
    for (const indexName of [...coll.indexes.keys()])
      if (indexName !== ID_INDEX_NAME) coll.dropIndex(indexName);
  } else if (typeof index === 'string') {
    coll.dropIndex(index);
  } else if (Array.isArray(index)) {
    for (const indexName of index) {
      if (typeof indexName !== 'string')
        throw new CommandError(ErrorCode.TypeMismatch, 'index names must be strings');
      if (!coll.indexes.has(indexName)) {
        throw new CommandError(ErrorCode.IndexNotFound, `index not found with name [${indexName}]`);
      }
    }
    for (const indexName of index as string[]) coll.dropIndex(indexName);
  } else if (isPlainObject(index)) {
    const found = coll.findIndex(index);
    if (!found) {
      throw new CommandError(ErrorCode.IndexNotFound, `can't find index with key: ${JSON.stringify(index)}`);
    }
    coll.dropIndex(found.name);
  } else {
    throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'dropIndexes.index' is the wrong type");
  }
  return { nIndexesWas };
};

const dbStats: CommandHandler = (_cmd, ctx) => {
  const db = ctx.engine.existingDb(ctx.dbName);
  let objects = 0;
  let dataSize = 0;
  let indexes = 0;
  let views = 0;
  for (const coll of db?.collections.values() ?? []) {
    if (coll.isView) {
      views++;
      continue;
    }
    objects += coll.count;
    dataSize += collectionSize(coll);
    indexes += coll.indexes.size;
  }
  return {
    db: ctx.dbName,
    collections: (db?.collections.size ?? 0) - views,
    views,
    objects,
    avgObjSize: objects > 0 ? dataSize / objects : 0,
    dataSize,
    storageSize: dataSize,
    indexes,
    indexSize: 0,
    scaleFactor: 1,
  };
};

export const adminCommands: Record<string, CommandHandler> = {
  create,
  drop,
  dropDatabase,
  listCollections,
  listDatabases,
  renameCollection,
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
  dbStats,
};
