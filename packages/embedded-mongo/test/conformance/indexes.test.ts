import { type Document, MongoBulkWriteError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, rejection, stagesOf, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('indexes');
});

afterAll(async () => {
  await target?.close();
});

const coll = (name: string) => target.db.collection(name);

describe('index management', () => {
  it('createIndex is idempotent and listIndexes always includes _id_', async () => {
    const c = coll('idx_basic');
    expect(await c.createIndex({ email: 1 }, { unique: true })).toBe('email_1');
    expect(await c.createIndex({ email: 1 }, { unique: true })).toBe('email_1');
    expect(await c.createIndex({ a: 1, b: -1 })).toBe('a_1_b_-1');
    expect(await c.createIndex({ c: 1 }, { name: 'custom_name' })).toBe('custom_name');
    const indexes = await c.listIndexes().toArray();
    expect(indexes.map((i) => i.name).sort()).toEqual(['_id_', 'a_1_b_-1', 'custom_name', 'email_1']);
    const email = indexes.find((i) => i.name === 'email_1')!;
    expect(email.key).toEqual({ email: 1 });
    expect(email.unique).toBe(true);
    expect(indexes.find((i) => i.name === '_id_')!.key).toEqual({ _id: 1 });
    expect(await c.indexExists('email_1')).toBe(true);
    expect(await c.indexExists('nope_1')).toBe(false);
  });

  it('an index name reused for a different key is rejected', async () => {
    const c = coll('idx_conflict');
    await c.createIndex({ a: 1 }, { name: 'shared' });
    const err = await rejection(c.createIndex({ b: 1 }, { name: 'shared' }));
    expect([85, 86]).toContain(err.code);
  });

  it('dropIndex and dropIndexes', async () => {
    const c = coll('idx_drop');
    await c.createIndex({ a: 1 });
    await c.createIndex({ b: 1 });
    await c.dropIndex('a_1');
    expect((await c.listIndexes().toArray()).map((i) => i.name).sort()).toEqual(['_id_', 'b_1']);
    await c.dropIndexes();
    expect((await c.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    const err = await rejection(c.dropIndex('missing_1'));
    expect(err.code).toBe(27);
  });

  it('listIndexes on a missing collection fails with NamespaceNotFound', async () => {
    const err = await rejection(coll('idx_nothing_here').listIndexes().toArray());
    expect(err.code).toBe(26);
  });
});

describe('unique indexes', () => {
  it('insertOne violating a unique index fails with E11000', async () => {
    const c = coll('uniq_insert');
    await c.createIndex({ email: 1 }, { unique: true });
    await c.insertOne({ email: 'a@x.io' });
    const err = await rejection(c.insertOne({ email: 'a@x.io' }));
    expect(err.code).toBe(11000);
    expect(err.message).toContain('E11000 duplicate key error');
    expect(err.message).toContain('email_1');
    expect(err.keyValue).toEqual({ email: 'a@x.io' });
    expect(await c.countDocuments()).toBe(1);
  });

  it('ordered insertMany stops at the first error, unordered continues', async () => {
    const c = coll('uniq_many');
    await c.createIndex({ k: 1 }, { unique: true });
    await c.insertOne({ k: 0 });
    const ordered = await c.insertMany([{ k: 1 }, { k: 0 }, { k: 2 }]).catch((e) => e);
    expect(ordered).toBeInstanceOf(MongoBulkWriteError);
    expect(ordered.code).toBe(11000);
    expect(ordered.insertedCount).toBe(1);
    expect(ordered.writeErrors).toHaveLength(1);
    expect((await c.find({}, { sort: { k: 1 } }).toArray()).map((d) => d.k)).toEqual([0, 1]);

    const unordered = await c
      .insertMany([{ k: 3 }, { k: 0 }, { k: 4 }, { k: 1 }], { ordered: false })
      .catch((e) => e);
    expect(unordered).toBeInstanceOf(MongoBulkWriteError);
    expect(unordered.insertedCount).toBe(2);
    expect(unordered.writeErrors).toHaveLength(2);
    expect(unordered.writeErrors.map((w: { index: number }) => w.index)).toEqual([1, 3]);
    expect((await c.find({}, { sort: { k: 1 } }).toArray()).map((d) => d.k)).toEqual([0, 1, 3, 4]);
  });

  it('updates and upserts that would create duplicates fail', async () => {
    const c = coll('uniq_update');
    await c.createIndex({ slug: 1 }, { unique: true });
    await c.insertMany([{ slug: 'one' }, { slug: 'two' }]);
    const upd = await rejection(c.updateOne({ slug: 'two' }, { $set: { slug: 'one' } }));
    expect(upd.code).toBe(11000);
    const upsert = await rejection(
      c.updateOne({ slug: 'three', other: 1 }, { $set: { slug: 'one' } }, { upsert: true }),
    );
    expect(upsert.code).toBe(11000);
    const fam = await rejection(c.findOneAndUpdate({ slug: 'two' }, { $set: { slug: 'one' } }));
    expect(fam.code).toBe(11000);
    const replace = await rejection(c.replaceOne({ slug: 'two' }, { slug: 'one' }));
    expect(replace.code).toBe(11000);
    expect((await c.find({}, { sort: { slug: 1 } }).toArray()).map((d) => d.slug)).toEqual(['one', 'two']);
    // updating a document to its own value is fine
    expect((await c.updateOne({ slug: 'one' }, { $set: { slug: 'one', x: 1 } })).modifiedCount).toBe(1);
  });

  it('compound unique indexes consider the whole key', async () => {
    const c = coll('uniq_compound');
    await c.createIndex({ tenant: 1, email: 1 }, { unique: true });
    await c.insertMany([
      { tenant: 't1', email: 'a' },
      { tenant: 't1', email: 'b' },
      { tenant: 't2', email: 'a' },
    ]);
    const err = await rejection(c.insertOne({ tenant: 't1', email: 'a' }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ tenant: 't1', email: 'a' });
  });

  it('building a unique index over existing duplicates fails', async () => {
    const c = coll('uniq_build');
    await c.insertMany([{ v: 1 }, { v: 2 }, { v: 1 }]);
    const err = await rejection(c.createIndex({ v: 1 }, { unique: true }));
    expect(err.code).toBe(11000);
    expect((await c.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    await c.insertOne({ v: 2 }); // no index was left behind
  });

  it('missing fields count as null unless the index is sparse', async () => {
    const plain = coll('uniq_missing');
    await plain.createIndex({ code: 1 }, { unique: true });
    await plain.insertOne({ name: 'first' });
    const err = await rejection(plain.insertOne({ name: 'second' }));
    expect(err.code).toBe(11000);

    const sparse = coll('uniq_sparse');
    await sparse.createIndex({ code: 1 }, { unique: true, sparse: true });
    await sparse.insertMany([{ name: 'first' }, { name: 'second' }, { code: 'x' }]);
    expect((await rejection(sparse.insertOne({ code: 'x' }))).code).toBe(11000);
  });

  it('partial unique indexes only constrain matching documents', async () => {
    const c = coll('uniq_partial');
    await c.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await c.insertMany([
      { email: 'a', active: false },
      { email: 'a', active: false },
      { email: 'a', active: true },
    ]);
    expect((await rejection(c.insertOne({ email: 'a', active: true }))).code).toBe(11000);
  });

  it('an update of the partial filter alone takes a document out of the index, and back in', async () => {
    const c = coll('uniq_partial_update');
    await c.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await c.insertOne({ _id: 1 as never, email: 'a', active: true });
    await c.updateOne({ _id: 1 as never }, { $set: { active: false } });
    await c.insertOne({ _id: 2 as never, email: 'a', active: true });
    const back = await rejection(c.updateOne({ _id: 1 as never }, { $set: { active: true } }));
    expect(back.code).toBe(11000);
    // An update of a field the index does not read keeps the document's key where it was.
    await c.updateOne({ _id: 2 as never }, { $set: { note: 'kept' } });
    expect((await rejection(c.insertOne({ email: 'a', active: true }))).code).toBe(11000);
    expect(await c.find({ email: 'a', active: true }).hint('email_1').toArray()).toEqual([
      { _id: 2, email: 'a', active: true, note: 'kept' },
    ]);
  });

  it('unique indexes on array fields index each element', async () => {
    const c = coll('uniq_multikey');
    await c.createIndex({ tags: 1 }, { unique: true });
    await c.insertOne({ tags: ['x', 'y', 'x'] });
    expect((await rejection(c.insertOne({ tags: ['z', 'y'] }))).code).toBe(11000);
    await c.insertOne({ tags: ['z'] });
  });

  it('the implicit _id index is unique', async () => {
    const c = coll('uniq_id');
    await c.insertOne({ _id: 1 as never });
    const err = await rejection(c.insertOne({ _id: 1 as never }));
    expect(err.code).toBe(11000);
    expect(err.message).toContain('_id_');
  });

  it('queries on the leading field of a compound index find the same documents as without it', async () => {
    const c = coll('compound_lookup');
    const docs = [
      { _id: 1, status: 'pending', at: 3 },
      { _id: 2, status: 'done', at: 1 },
      { _id: 3, status: ['pending', 'late'], at: 2 },
      { _id: 4, at: 5 },
      { _id: 5, status: 'pending' },
      { _id: 6, status: 'pending', at: 9 },
    ];
    await c.insertMany(docs as never[]);
    const ids = async (filter: object, sort: object = { _id: 1 }) =>
      (
        await c
          .find(filter)
          .sort(sort as never)
          .toArray()
      ).map((d) => d._id);
    const before = [
      await ids({ status: 'pending' }),
      await ids({ status: { $in: ['late', 'done'] } }),
      await ids({ status: 'pending', at: { $lte: 3 } }, { at: 1 }),
    ];
    await c.createIndex({ status: 1, at: 1 });
    expect(before).toEqual([
      [1, 3, 5, 6],
      [2, 3],
      [3, 1],
    ]);
    expect(await ids({ status: 'pending' })).toEqual(before[0]);
    expect(await ids({ status: { $in: ['late', 'done'] } })).toEqual(before[1]);
    expect(await ids({ status: 'pending', at: { $lte: 3 } }, { at: 1 })).toEqual(before[2]);
    // The index follows updates and deletes.
    await c.updateOne({ _id: 1 } as never, { $set: { status: 'done' } });
    await c.deleteOne({ _id: 6 } as never);
    expect(await ids({ status: 'pending' })).toEqual([3, 5]);
    expect(await ids({ status: 'done' })).toEqual([1, 2]);
  });

  it('a partial index on documents where a field exists serves a query that says $exists: true, and finds the same', async () => {
    const c = coll('partial_exists');
    const at = (day: number) => new Date(Date.UTC(2026, 0, day));
    await c.insertMany([
      { _id: 1, due: at(1) },
      { _id: 2, due: at(5) },
      { _id: 3 },
      { _id: 4, due: null },
      { _id: 5, due: at(9) },
    ] as never[]);
    const ids = async (filter: object) => (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    const queries = [
      { due: { $exists: true, $lte: at(6) } },
      { due: at(9) },
      { due: null },
      { due: { $lte: at(6) } },
    ];
    const before = await Promise.all(queries.map(ids));
    expect(before).toEqual([[1, 2], [5], [3, 4], [1, 2]]);
    await c.createIndex({ due: 1 }, { partialFilterExpression: { due: { $exists: true } } });
    expect(await Promise.all(queries.map(ids))).toEqual(before);
    const plan = async (filter: object) =>
      stagesOf((await c.find(filter).explain('queryPlanner')).queryPlanner.winningPlan as Document).map(
        (s) => s.stage,
      );
    expect(await plan(queries[0]!)).toContain('IXSCAN');
    expect(await plan(queries[1]!)).toContain('IXSCAN');
    // Missing fields and nulls are not in the index: it cannot answer this one.
    expect(await plan(queries[2]!)).toContain('COLLSCAN');
  });

  it('queries naming every field of a compound (or partial) index find the same documents as without it', async () => {
    const c = coll('compound_exact');
    const docs = [
      { _id: 1, kind: 'event', hook: 'a', rec: 1 },
      { _id: 2, kind: 'event', hook: 'a', rec: 2 },
      { _id: 3, kind: 'other', hook: 'a', rec: 1 },
      { _id: 4, kind: 'event', hook: ['a', 'b'], rec: 1 },
      { _id: 5, kind: 'event', hook: 'b' },
    ];
    await c.insertMany(docs as never[]);
    const ids = async (filter: object) => (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    const queries = [
      { kind: 'event', hook: 'a', rec: 1 },
      { kind: 'other', hook: 'a', rec: 1 },
      { kind: 'event', hook: 'b', rec: 1 },
      { hook: 'a', rec: 1 },
      { kind: 'event', hook: 'b', rec: null },
      { kind: 'event', hook: 'a' },
      { hook: 'b' },
    ];
    const before = await Promise.all(queries.map(ids));
    expect(before).toEqual([[1, 4], [3], [4], [1, 3, 4], [5], [1, 2, 4], [4, 5]]);
    await c.createIndex({ hook: 1, rec: 1 }, { partialFilterExpression: { kind: 'event' } });
    await c.createIndex({ kind: 1, rec: 1 });
    expect(await Promise.all(queries.map(ids))).toEqual(before);
    // An upsert through the partial index inserts once, then finds its document.
    const upsert = () =>
      c.updateOne({ kind: 'event', hook: 'c', rec: 7 }, { $setOnInsert: { n: 1 } }, { upsert: true });
    expect((await upsert()).upsertedCount).toBe(1);
    expect((await upsert()).upsertedCount).toBe(0);
    expect(await ids({ kind: 'event', hook: 'c', rec: 7 })).toHaveLength(1);
  });
});
