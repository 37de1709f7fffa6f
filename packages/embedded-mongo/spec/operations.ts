/**
 * The operation table: for each unified operation name, the driver call it stands for, with the
 * format's arguments mapped onto the driver's parameters and its results turned into the
 * documents the format describes (model objects to documents, cursors fully iterated).
 */
import {
  type AnyBulkWriteOperation,
  type BulkWriteResult,
  type ClientBulkWriteModel,
  type ClientBulkWriteResult,
  Collection,
  Db,
  type Document,
  MongoBulkWriteError,
  MongoClient,
  MongoClientBulkWriteError,
  MongoServerError,
} from 'mongodb';
import { Mismatch } from './matcher.js';

type Operation = (object: unknown, args: Document) => Promise<unknown>;

/** Runs `run` on the operation's object after checking it is of `type`. */
function on<T>(
  type: abstract new (...args: never[]) => T,
  run: (entity: T, args: Document) => Promise<unknown>,
): Operation {
  return (object, args) => {
    if (!(object instanceof type)) throw new Error(`the operation's object is not a ${type.name}`);
    return run(object, args);
  };
}

/** Entity operations, by the format's name. Unlisted arguments go to the driver as options. */
export const OPERATIONS: Record<string, Operation> = {
  // MongoClient
  clientBulkWrite: on(MongoClient, async (client, { models, ...options }) =>
    clientBulkWriteDocument(await client.bulkWrite((models as Document[]).map(clientWriteModel), options)),
  ),
  listDatabases: on(
    MongoClient,
    async (client, options) => (await client.db().admin().listDatabases(options)).databases,
  ),

  // Db
  createCollection: on(Db, async (db, { collection, ...options }) => {
    await db.createCollection(collection, options);
  }),
  dropCollection: on(Db, (db, { collection, ...options }) => db.dropCollection(collection, options)),
  listCollections: on(Db, (db, { filter, ...options }) => db.listCollections(filter, options).toArray()),
  modifyCollection: on(Db, (db, { collection, ...options }) =>
    db.command({ collMod: collection, ...options }),
  ),
  runCommand: on(Db, (db, { command, commandName: _, ...options }) => db.command(command, options)),

  // Db or Collection
  aggregate: (object, { pipeline, ...options }) => {
    if (object instanceof Db) return object.aggregate(pipeline, options).toArray();
    if (object instanceof Collection) return object.aggregate(pipeline, options).toArray();
    throw new Error("the operation's object is neither a Db nor a Collection");
  },

  // Collection
  bulkWrite: on(Collection, async (c, { requests, ...options }) =>
    bulkWriteDocument(await c.bulkWrite(requests as AnyBulkWriteOperation[], options)),
  ),
  count: on(Collection, (c, { filter, ...options }) => c.count(filter, options)),
  countDocuments: on(Collection, (c, { filter, ...options }) => c.countDocuments(filter, options)),
  createIndex: on(Collection, (c, { keys, ...options }) => c.createIndex(keys, options)),
  deleteMany: on(Collection, (c, { filter, ...options }) => c.deleteMany(filter, options)),
  deleteOne: on(Collection, (c, { filter, ...options }) => c.deleteOne(filter, options)),
  distinct: on(Collection, (c, { fieldName, filter, ...options }) => c.distinct(fieldName, filter, options)),
  dropIndex: on(Collection, (c, { name, ...options }) => c.dropIndex(name, options)),
  dropIndexes: on(Collection, (c, options) => c.dropIndexes(options)),
  estimatedDocumentCount: on(Collection, (c, options) => c.estimatedDocumentCount(options)),
  find: on(Collection, (c, { filter, ...options }) => c.find(filter, options).toArray()),
  findOne: on(Collection, (c, { filter, ...options }) => c.findOne(filter, options)),
  findOneAndDelete: on(Collection, (c, { filter, ...options }) => c.findOneAndDelete(filter, options)),
  findOneAndReplace: on(Collection, (c, { filter, replacement, ...options }) =>
    c.findOneAndReplace(filter, replacement, withReturnDocument(options)),
  ),
  findOneAndUpdate: on(Collection, (c, { filter, update, ...options }) =>
    c.findOneAndUpdate(filter, update, withReturnDocument(options)),
  ),
  insertMany: on(Collection, (c, { documents, ...options }) => c.insertMany(documents, options)),
  insertOne: on(Collection, (c, { document, ...options }) => c.insertOne(document, options)),
  listIndexes: on(Collection, (c, options) => c.listIndexes(options).toArray()),
  rename: on(Collection, async (c, { to, ...options }) => {
    await c.rename(to, options);
  }),
  replaceOne: on(Collection, (c, { filter, replacement, ...options }) =>
    c.replaceOne(filter, replacement, options),
  ),
  updateMany: on(Collection, (c, { filter, update, ...options }) => c.updateMany(filter, update, options)),
  updateOne: on(Collection, (c, { filter, update, ...options }) => c.updateOne(filter, update, options)),
};

/** Operations whose result is a cursor's documents, each matched as a root document. */
export const CURSOR_OPERATIONS = new Set([
  'aggregate',
  'find',
  'listCollections',
  'listDatabases',
  'listIndexes',
]);

/** The format writes returnDocument as the CRUD spec's enum, "Before" or "After". */
function withReturnDocument({ returnDocument, ...options }: Document): Document {
  if (returnDocument === undefined) return options;
  const value = String(returnDocument).toLowerCase();
  if (value !== 'before' && value !== 'after')
    throw new Error(`returnDocument ${returnDocument} is not Before or After`);
  return { ...options, returnDocument: value };
}

/** `{ insertOne: { namespace, document } }` in the format is `{ name: 'insertOne', namespace, document }` for the driver. */
function clientWriteModel(model: Document): ClientBulkWriteModel {
  const [[name, fields]] = Object.entries(model) as [[string, Document]];
  return { name, ...fields } as ClientBulkWriteModel;
}

/** The fields of a BulkWriteResult the format's expectations name (the class has more). */
const BULK_WRITE_FIELDS = [
  'insertedCount',
  'matchedCount',
  'modifiedCount',
  'deletedCount',
  'upsertedCount',
  'upsertedIds',
  'insertedIds',
] as const;

function bulkWriteDocument(result: BulkWriteResult): Document {
  return Object.fromEntries(BULK_WRITE_FIELDS.map((field) => [field, result[field]]));
}

/** Verbose results come as maps keyed by the model's index; the format writes them as documents. */
function clientBulkWriteDocument(result: ClientBulkWriteResult): Document {
  const { insertResults, updateResults, deleteResults, ...counts } = result;
  return {
    ...counts,
    ...(insertResults && { insertResults: Object.fromEntries(insertResults) }),
    // The CRUD spec's UpdateResult has no didUpsert (a driver addition), which nested matching would refuse.
    ...(updateResults && {
      updateResults: Object.fromEntries(
        [...updateResults].map(([index, { didUpsert: _, ...update }]) => [index, update]),
      ),
    }),
    ...(deleteResults && { deleteResults: Object.fromEntries(deleteResults) }),
  };
}

/** The partial result a bulk write error carries, as a document (expectError.expectResult). */
export function partialResultOf(error: unknown): Document | undefined {
  if (error instanceof MongoBulkWriteError) return bulkWriteDocument(error.result);
  if (error instanceof MongoClientBulkWriteError && error.partialResult) {
    return clientBulkWriteDocument(error.partialResult);
  }
  return undefined;
}

/** Asserts that a name is (or is not) among those `list` finds for the operation's arguments. */
function assertListed(
  list: (internal: MongoClient, args: Document) => Promise<string[]>,
  nameArgument: 'collectionName' | 'indexName',
  listed: boolean,
) {
  return async (args: Document, internal: MongoClient) => {
    if ((await list(internal, args)).includes(args[nameArgument]) === listed) return;
    const { databaseName, collectionName, indexName } = args;
    const what = nameArgument === 'indexName' ? `index ${indexName} on ` : '';
    throw new Mismatch(
      nameArgument,
      `${what}${databaseName}.${collectionName} ${listed ? 'missing' : 'exists'}`,
    );
  };
}

/** The runner's own operations (`object: testRunner`), run with its internal client. */
export const RUNNER_OPERATIONS: Record<string, (args: Document, internal: MongoClient) => Promise<void>> = {
  assertCollectionExists: assertListed(collectionNames, 'collectionName', true),
  assertCollectionNotExists: assertListed(collectionNames, 'collectionName', false),
  assertIndexExists: assertListed(indexNames, 'indexName', true),
  assertIndexNotExists: assertListed(indexNames, 'indexName', false),
};

async function collectionNames(internal: MongoClient, { databaseName }: Document): Promise<string[]> {
  const collections = await internal.db(databaseName).listCollections({}, { nameOnly: true }).toArray();
  return collections.map(({ name }) => name);
}

async function indexNames(
  internal: MongoClient,
  { databaseName, collectionName }: Document,
): Promise<string[]> {
  try {
    const indexes = await internal.db(databaseName).collection(collectionName).listIndexes().toArray();
    return indexes.map(({ name }) => String(name));
  } catch (error) {
    // A collection that does not exist has no indexes (NamespaceNotFound).
    if (error instanceof MongoServerError && error.code === 26) return [];
    throw error;
  }
}
