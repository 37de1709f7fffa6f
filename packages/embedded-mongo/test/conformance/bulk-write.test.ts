// The bulkWrite command (MongoDB 8.0), as the driver's `MongoClient.bulkWrite` uses it and as its
// reply reads when sent as a command: counts, per-op results, errors and where they stop.
import {
  type ClientBulkWriteModel,
  type ClientBulkWriteOptions,
  type Document,
  MongoClientBulkWriteError,
  MongoServerError,
  ObjectId,
} from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, rejection, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('bulk_write');
});

afterAll(async () => {
  await target?.close();
});

/** Documents of any shape, with the `_id` types these tests use. */
type Row = { _id: number | string | ObjectId; [field: string]: unknown };
type Model = ClientBulkWriteModel<Record<string, Row>>;

const bulkWrite = (models: Model[], options?: ClientBulkWriteOptions) =>
  target.client.bulkWrite<Record<string, Row>>(models, options);

let counter = 0;
/** A fresh collection's namespace, with `docs` in it. */
async function namespace(docs: Document[] = []): Promise<string> {
  const name = `bw_${counter++}`;
  if (docs.length > 0) await target.db.collection(name).insertMany(docs);
  return `${target.db.databaseName}.${name}`;
}

const contents = (ns: string) =>
  target.db
    .collection(ns.slice(ns.indexOf('.') + 1))
    .find({}, { sort: { _id: 1 } })
    .toArray();

/** The bulkWrite command as sent by hand, on admin: its reply as the server wrote it. */
const bulkWriteCommand = (command: Document) =>
  target.client.db('admin').command({ bulkWrite: 1, ...command });

/** The error a client bulk write fails with. */
async function bulkWriteError(
  models: Model[],
  options: ClientBulkWriteOptions = {},
): Promise<MongoClientBulkWriteError> {
  const err = await bulkWrite(models, options).then(
    () => {
      throw new Error('expected the bulk write to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MongoClientBulkWriteError);
  return err as MongoClientBulkWriteError;
}

describe('client bulkWrite', () => {
  it('inserts, updates, replaces and deletes across collections, with per-op results', async () => {
    const a = await namespace([
      { _id: 1, x: 1 },
      { _id: 2, x: 2 },
      { _id: 3, x: 3 },
    ]);
    const b = await namespace([{ _id: 'k', tags: ['a'] }]);
    const result = await bulkWrite(
      [
        { name: 'insertOne', namespace: a, document: { _id: 4, x: 4 } },
        { name: 'updateOne', namespace: a, filter: { _id: 1 }, update: { $inc: { x: 10 } } as never },
        {
          name: 'updateMany',
          namespace: a,
          filter: { x: { $gte: 2, $lt: 10 } },
          update: { $set: { big: true } },
        },
        { name: 'updateOne', namespace: a, filter: { _id: 2 }, update: { $set: { big: true } } },
        { name: 'replaceOne', namespace: b, filter: { _id: 'k' }, replacement: { tags: ['b'] } },
        { name: 'deleteOne', namespace: a, filter: { _id: 3 } },
        { name: 'deleteMany', namespace: a, filter: { x: { $lt: 0 } } },
      ],
      { verboseResults: true },
    );
    expect(result).toMatchObject({
      acknowledged: true,
      insertedCount: 1,
      matchedCount: 6,
      modifiedCount: 5,
      upsertedCount: 0,
      deletedCount: 1,
    });
    expect(result.insertResults?.get(0)).toEqual({ insertedId: 4 });
    expect(result.updateResults?.get(1)).toEqual({ matchedCount: 1, modifiedCount: 1, didUpsert: false });
    expect(result.updateResults?.get(2)).toEqual({ matchedCount: 3, modifiedCount: 3, didUpsert: false });
    // Already big: matched, not modified.
    expect(result.updateResults?.get(3)).toEqual({ matchedCount: 1, modifiedCount: 0, didUpsert: false });
    expect(result.deleteResults?.get(5)).toEqual({ deletedCount: 1 });
    expect(result.deleteResults?.get(6)).toEqual({ deletedCount: 0 });
    expect(await contents(a)).toEqual([
      { _id: 1, x: 11 },
      { _id: 2, x: 2, big: true },
      { _id: 4, x: 4, big: true },
    ]);
    expect(await contents(b)).toEqual([{ _id: 'k', tags: ['b'] }]);
  });

  it('upserts report the new _id, taken from the filter or generated', async () => {
    const ns = await namespace();
    const result = await bulkWrite(
      [
        {
          name: 'updateOne',
          namespace: ns,
          filter: { _id: 'given' },
          update: { $set: { a: 1 } },
          upsert: true,
        },
        { name: 'updateOne', namespace: ns, filter: { code: 7 }, update: { $set: { a: 2 } }, upsert: true },
        {
          name: 'replaceOne',
          namespace: ns,
          filter: { code: 7 },
          replacement: { code: 7, a: 3 },
          upsert: true,
        },
      ],
      { verboseResults: true },
    );
    expect(result).toMatchObject({ upsertedCount: 2, matchedCount: 1, modifiedCount: 1 });
    expect(result.updateResults?.get(0)).toEqual({
      matchedCount: 1,
      modifiedCount: 0,
      didUpsert: true,
      upsertedId: 'given',
    });
    const generated = result.updateResults?.get(1)?.upsertedId;
    expect(generated).toBeInstanceOf(ObjectId);
    expect(result.updateResults?.get(2)).toEqual({ matchedCount: 1, modifiedCount: 1, didUpsert: false });
    // In BSON order: strings before ObjectIds.
    expect(await contents(ns)).toEqual([
      { _id: 'given', a: 1 },
      { _id: generated, code: 7, a: 3 },
    ]);
  });

  it('updateOne and replaceOne take the first document in sort order', async () => {
    const ns = await namespace([
      { _id: 1, rank: 2 },
      { _id: 2, rank: 3 },
      { _id: 3, rank: 1 },
    ]);
    await bulkWrite([
      { name: 'updateOne', namespace: ns, filter: {}, update: { $set: { top: true } }, sort: { rank: -1 } },
      { name: 'replaceOne', namespace: ns, filter: {}, replacement: { rank: 0 }, sort: { rank: 1 } },
    ]);
    expect(await contents(ns)).toEqual([
      { _id: 1, rank: 2 },
      { _id: 2, rank: 3, top: true },
      { _id: 3, rank: 0 },
    ]);
  });

  it('arrayFilters and pipeline updates', async () => {
    const ns = await namespace([
      { _id: 1, grades: [90, 40, 95], a: 1, b: 2 },
      { _id: 2, grades: [30], a: 5, b: 5 },
    ]);
    await bulkWrite([
      {
        name: 'updateOne',
        namespace: ns,
        filter: { _id: 1 },
        update: { $set: { 'grades.$[low]': 50 } },
        arrayFilters: [{ low: { $lt: 50 } }],
      },
      { name: 'updateMany', namespace: ns, filter: {}, update: [{ $set: { sum: { $add: ['$a', '$b'] } } }] },
    ]);
    expect(await contents(ns)).toEqual([
      { _id: 1, grades: [90, 50, 95], a: 1, b: 2, sum: 3 },
      { _id: 2, grades: [30], a: 5, b: 5, sum: 10 },
    ]);
  });

  it('let variables reach filters and pipeline updates', async () => {
    const ns = await namespace([
      { _id: 1, status: 'new' },
      { _id: 2, status: 'old' },
    ]);
    const result = await bulkWrite(
      [
        {
          name: 'updateMany',
          namespace: ns,
          filter: { $expr: { $eq: ['$status', '$$wanted'] } },
          update: [{ $set: { status: '$$next' } }],
        },
        { name: 'deleteOne', namespace: ns, filter: { $expr: { $eq: ['$_id', '$$gone'] } } },
      ],
      { let: { wanted: 'new', next: 'seen', gone: 2 } },
    );
    expect(result).toMatchObject({ matchedCount: 1, modifiedCount: 1, deletedCount: 1 });
    expect(await contents(ns)).toEqual([{ _id: 1, status: 'seen' }]);
  });
});

describe('errors', () => {
  const duplicateInMiddle = (ns: string): Model[] => [
    { name: 'insertOne', namespace: ns, document: { _id: 1 } },
    { name: 'insertOne', namespace: ns, document: { _id: 1 } },
    { name: 'insertOne', namespace: ns, document: { _id: 2 } },
  ];

  it('ordered (the default) stops at the first failing op', async () => {
    const ns = await namespace();
    const err = await bulkWriteError(duplicateInMiddle(ns));
    expect([...err.writeErrors.keys()]).toEqual([1]);
    expect(err.writeErrors.get(1)?.code).toBe(11000);
    expect(err.writeErrors.get(1)?.message).toMatch(/^E11000 duplicate key error/);
    expect(err.partialResult?.insertedCount).toBe(1);
    expect(await contents(ns)).toEqual([{ _id: 1 }]);
  });

  it('unordered goes on after a failing op', async () => {
    const ns = await namespace();
    const err = await bulkWriteError(duplicateInMiddle(ns), { ordered: false });
    expect([...err.writeErrors.keys()]).toEqual([1]);
    expect(err.writeErrors.get(1)?.code).toBe(11000);
    expect(err.partialResult?.insertedCount).toBe(2);
    expect(await contents(ns)).toEqual([{ _id: 1 }, { _id: 2 }]);
  });

  it('each op fails with its own code: an undefined variable, an immutable _id', async () => {
    const ns = await namespace([{ _id: 1, a: 1 }]);
    const err = await bulkWriteError(
      [
        { name: 'deleteOne', namespace: ns, filter: { $expr: { $eq: ['$_id', '$$nowhere'] } } },
        { name: 'replaceOne', namespace: ns, filter: { _id: 1 }, replacement: { _id: 2 } },
        { name: 'updateOne', namespace: ns, filter: { _id: 1 }, update: { $inc: { a: 1 } } as never },
      ],
      { ordered: false, verboseResults: true },
    );
    expect(err.writeErrors.get(0)?.code).toBe(17276);
    expect(err.writeErrors.get(0)?.message).toBe('Use of undefined variable: nowhere');
    expect(err.writeErrors.get(1)?.code).toBe(66);
    expect(err.partialResult?.updateResults?.get(2)).toEqual({
      matchedCount: 1,
      modifiedCount: 1,
      didUpsert: false,
    });
  });
});

describe('the bulkWrite command', () => {
  it("replies with mongod's totals and a cursor of per-op results", async () => {
    const ns = await namespace([{ _id: 1, v: 0 }]);
    const reply = await bulkWriteCommand({
      ops: [
        { insert: 0, document: { _id: 2 } },
        { update: 0, filter: { _id: 1 }, updateMods: { $set: { v: 1 } } },
        { update: 0, filter: { _id: 9 }, updateMods: { $set: { v: 9 } }, upsert: true },
        { delete: 0, filter: { _id: 2 }, multi: false },
        { insert: 0, document: { _id: 1 } },
      ],
      nsInfo: [{ ns }],
    });
    expect(reply).toMatchObject({
      ok: 1,
      nErrors: 1,
      nInserted: 1,
      nMatched: 1,
      nModified: 1,
      nUpserted: 1,
      nDeleted: 1,
    });
    expect(Number(reply.cursor.id)).toBe(0);
    expect(reply.cursor.ns).toBe('admin.$cmd.bulkWrite');
    expect(reply.cursor.firstBatch).toEqual([
      { ok: 1, idx: 0, n: 1 },
      { ok: 1, idx: 1, n: 1, nModified: 1 },
      { ok: 1, idx: 2, n: 1, nModified: 0, upserted: { _id: 9 } },
      { ok: 1, idx: 3, n: 1 },
      {
        ok: 0,
        idx: 4,
        code: 11000,
        errmsg: expect.stringMatching(
          /^E11000 duplicate key error collection: .* index: _id_ dup key: \{ _id: 1 \}/,
        ),
        keyPattern: { _id: 1 },
        keyValue: { _id: 1 },
        n: 0,
      },
    ]);
  });

  it('errorsOnly lists only the failures; a failed update carries nModified: 0', async () => {
    const ns = await namespace([{ _id: 1, s: 'text' }]);
    const reply = await bulkWriteCommand({
      ops: [
        { insert: 0, document: { _id: 2 } },
        { update: 0, filter: { _id: 1 }, updateMods: { $inc: { s: 1 } } },
        { delete: 0, filter: {}, multi: true },
      ],
      nsInfo: [{ ns }],
      errorsOnly: true,
      ordered: false,
    });
    expect(reply).toMatchObject({ nErrors: 1, nInserted: 1, nDeleted: 2, nMatched: 0, nModified: 0 });
    expect(reply.cursor.firstBatch).toEqual([
      { ok: 0, idx: 1, code: 14, errmsg: expect.stringContaining('Cannot apply $inc'), n: 0, nModified: 0 },
    ]);
  });

  it('a small cursor batch leaves the rest of the results to getMore', async () => {
    const ns = await namespace();
    const reply = await bulkWriteCommand({
      ops: [1, 2, 3].map((i) => ({ insert: 0, document: { _id: i } })),
      nsInfo: [{ ns }],
      cursor: { batchSize: 1 },
    });
    expect(reply.cursor.firstBatch).toEqual([{ ok: 1, idx: 0, n: 1 }]);
    const more = await target.client
      .db('admin')
      .command({ getMore: reply.cursor.id, collection: '$cmd.bulkWrite' });
    expect(more.cursor.nextBatch).toEqual([
      { ok: 1, idx: 1, n: 1 },
      { ok: 1, idx: 2, n: 1 },
    ]);
    expect(Number(more.cursor.id)).toBe(0);
  });

  it('runs on the admin database only', async () => {
    const ns = await namespace();
    const err = await rejection(
      target.db.command({ bulkWrite: 1, ops: [{ insert: 0, document: {} }], nsInfo: [{ ns }] }),
    );
    expect(err.code).toBe(13);
    expect(err.message).toBe('bulkWrite may only be run against the admin database.');
    expect(await contents(ns)).toEqual([]);
  });

  it('refuses a malformed command before writing anything', async () => {
    const ns = await namespace();
    const refused = (command: Document) =>
      bulkWriteCommand(command).then(
        () => undefined,
        (e: unknown) => e as MongoServerError,
      );
    const badIndex = await refused({
      ops: [
        { insert: 0, document: { _id: 1 } },
        { insert: 1, document: { _id: 2 } },
      ],
      nsInfo: [{ ns }],
    });
    expect(badIndex).toBeInstanceOf(MongoServerError);
    expect(badIndex?.code).toBe(2);
    expect(badIndex?.message).toMatch(/has an invalid nsInfo index/);
    expect((await refused({ ops: [], nsInfo: [{ ns }] }))?.code).toBe(16);
    const unknown = await refused({ ops: [{ insert: 0, document: {}, upsert: true }], nsInfo: [{ ns }] });
    expect(unknown?.code).toBe(40415);
    expect(await contents(ns)).toEqual([]);
  });
});
