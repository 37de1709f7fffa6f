import { MongoBulkWriteError, MongoServerError, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('admin');
});

afterAll(async () => {
  await target?.close();
});

const names = async () =>
  (await target.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();

describe('server commands', () => {
  it('ping and buildInfo', async () => {
    expect(await target.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
    const info = await target.db.admin().buildInfo();
    expect(typeof info.version).toBe('string');
    expect(Array.isArray(info.versionArray)).toBe(true);
  });

  it('hello reports a writable primary', async () => {
    const hello = await target.db.admin().command({ hello: 1 });
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(hello.maxBsonObjectSize).toBe(16 * 1024 * 1024);
  });

  it('an unknown command fails with CommandNotFound (59)', async () => {
    const err = await target.db.command({ definitelyNotACommand: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(59);
    expect(err.codeName).toBe('CommandNotFound');
  });
});

describe('collections and databases', () => {
  it('collections appear on first insert or explicit creation', async () => {
    await target.db.collection('implicit').insertOne({ x: 1 });
    await target.db.createCollection('explicit');
    expect(await names()).toEqual(expect.arrayContaining(['explicit', 'implicit']));
    const full = await target.db.listCollections({ name: 'implicit' }).toArray();
    expect(full).toHaveLength(1);
    expect(full[0]).toMatchObject({ name: 'implicit', type: 'collection' });
    expect(await target.db.listCollections({ name: 'nope' }).toArray()).toEqual([]);
  });

  it('drop removes a collection and its indexes', async () => {
    const c = target.db.collection('to_drop');
    await c.insertOne({ a: 1 });
    await c.createIndex({ a: 1 }, { unique: true });
    expect(await c.drop()).toBe(true);
    expect(await names()).not.toContain('to_drop');
    expect(await c.countDocuments()).toBe(0);
    await c.insertOne({ a: 1 });
    await c.insertOne({ a: 1 }); // the unique index went away with the collection
    expect(await c.countDocuments()).toBe(2);
  });

  it('renameCollection moves documents and indexes', async () => {
    const c = target.db.collection('old_name');
    await c.insertMany([{ k: 1 }, { k: 2 }]);
    await c.createIndex({ k: 1 }, { unique: true });
    const renamed = await c.rename('new_name');
    expect(renamed.collectionName).toBe('new_name');
    expect(await renamed.countDocuments()).toBe(2);
    expect((await renamed.listIndexes().toArray()).map((i) => i.name).sort()).toEqual(['_id_', 'k_1']);
    const err = await renamed.insertOne({ k: 1 }).catch((e) => e);
    expect(err.code).toBe(11000);
    expect(await names()).not.toContain('old_name');
  });

  it('dropDatabase removes every collection', async () => {
    const other = target.client.db(`${target.db.databaseName}_x`);
    await other.collection('a').insertOne({ a: 1 });
    await other.collection('b').insertOne({ b: 1 });
    const before = await target.client.db('admin').admin().listDatabases({ nameOnly: true });
    expect(before.databases.map((d) => d.name)).toContain(other.databaseName);
    expect(await other.dropDatabase()).toBe(true);
    expect(await other.listCollections().toArray()).toEqual([]);
    expect(await other.collection('a').countDocuments()).toBe(0);
    const after = await target.client.db('admin').admin().listDatabases({ nameOnly: true });
    expect(after.databases.map((d) => d.name)).not.toContain(other.databaseName);
  });
});

describe('bulkWrite', () => {
  it('runs mixed operations in order and reports counts', async () => {
    const c = target.db.collection('bulk');
    await c.insertMany([
      { _id: 1 as never, v: 1 },
      { _id: 2 as never, v: 2 },
      { _id: 3 as never, v: 3 },
    ]);
    const res = await c.bulkWrite([
      { insertOne: { document: { _id: 4 as never, v: 4 } } },
      { updateOne: { filter: { _id: 1 as never }, update: { $set: { v: 10 } } } },
      { updateMany: { filter: { v: { $gte: 3 } }, update: { $inc: { v: 100 } } } },
      { replaceOne: { filter: { _id: 2 as never }, replacement: { v: 'two' } } },
      { deleteOne: { filter: { _id: 3 as never } } },
      { updateOne: { filter: { _id: 9 as never }, update: { $set: { v: 9 } }, upsert: true } },
      { deleteMany: { filter: { v: { $gt: 1000 } } } },
    ]);
    expect(res.insertedCount).toBe(1);
    expect(res.matchedCount).toBe(5);
    expect(res.modifiedCount).toBe(5);
    expect(res.deletedCount).toBe(1);
    expect(res.upsertedCount).toBe(1);
    expect(res.upsertedIds).toEqual({ 5: 9 });
    const docs = await c.find({}, { sort: { _id: 1 } }).toArray();
    expect(docs).toEqual([
      { _id: 1, v: 110 },
      { _id: 2, v: 'two' },
      { _id: 4, v: 104 },
      { _id: 9, v: 9 },
    ]);
  });

  it('unordered bulkWrite reports write errors and keeps going', async () => {
    const c = target.db.collection('bulk_errors');
    await c.insertOne({ _id: 1 as never });
    const err = await c
      .bulkWrite(
        [
          { insertOne: { document: { _id: 1 as never } } },
          { insertOne: { document: { _id: 2 as never } } },
          { updateOne: { filter: { _id: 2 as never }, update: { $set: { ok: true } } } },
        ],
        { ordered: false },
      )
      .catch((e) => e);
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    expect(err.writeErrors).toHaveLength(1);
    expect(err.writeErrors[0].code).toBe(11000);
    expect(await c.findOne({ _id: 2 as never })).toEqual({ _id: 2, ok: true });
  });

  it('w:0 writes are applied without acknowledgement', async () => {
    const c = target.db.collection('unacked');
    const id = new ObjectId();
    const res = await c.insertOne({ _id: id, fire: 'forget' }, { writeConcern: { w: 0 } });
    expect(res.acknowledged).toBe(false);
    for (let i = 0; i < 50 && !(await c.findOne({ _id: id })); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await c.findOne({ _id: id })).toEqual({ _id: id, fire: 'forget' });
  });
});
