import { MongoServerError, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('cursors');
  await target.db.collection('many').insertMany(
    Array.from({ length: 250 }, (_, i) => ({
      i,
      group: i % 5,
      day: new Date(Date.UTC(2024, 0, 1 + (i % 40))),
      label: `item-${String(i).padStart(3, '0')}`,
    })),
  );
});

afterAll(async () => {
  await target?.close();
});

const many = () => target.db.collection('many');

describe('batching', () => {
  it('iterates 250 documents in batches of 20 with for await', async () => {
    const seen: number[] = [];
    for await (const doc of many().find({}, { batchSize: 20 })) seen.push(doc.i as number);
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => i));
  });

  it('toArray drains every batch', async () => {
    const docs = await many().find({}, { batchSize: 7 }).toArray();
    expect(docs).toHaveLength(250);
    expect(new Set(docs.map((d) => String(d._id))).size).toBe(250);
  });

  it('the default first batch holds 101 documents', async () => {
    const cursor = many().find({});
    await cursor.next();
    expect(cursor.bufferedCount()).toBe(100);
    expect(cursor.id?.isZero()).toBe(false);
    await cursor.close();
  });

  it('limit is honoured across batches', async () => {
    const docs = await many().find({}, { batchSize: 20, limit: 45 }).toArray();
    expect(docs.map((d) => d.i)).toEqual(Array.from({ length: 45 }, (_, i) => i));
  });

  it('a fully consumed first batch returns cursor id 0', async () => {
    const cursor = many().find({ i: { $lt: 5 } });
    await cursor.next();
    expect(cursor.id?.isZero()).toBe(true);
    await cursor.close();
  });

  it('aggregate cursors use batchSize too', async () => {
    const docs = await many()
      .aggregate([{ $match: { group: { $in: [0, 1] } } }, { $sort: { i: -1 } }], { batchSize: 13 })
      .toArray();
    expect(docs).toHaveLength(100);
    expect(docs[0]!.i).toBe(246);
  });
});

describe('closing cursors', () => {
  it('cursor.close() kills the server cursor', async () => {
    const cursor = many().find({}, { batchSize: 10 });
    for (let k = 0; k < 5; k++) await cursor.next();
    const id = cursor.id!;
    expect(id.isZero()).toBe(false);
    await cursor.close();
    expect(cursor.killed).toBe(true);
    const err = await target.db.command({ getMore: id, collection: 'many' }).catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(43);
  });

  it('breaking out of for await closes the cursor', async () => {
    const cursor = many().find({}, { batchSize: 10 });
    let count = 0;
    for await (const _ of cursor) {
      if (++count === 15) break;
    }
    expect(cursor.killed).toBe(true);
  });
});

describe('sort, skip and limit', () => {
  it('sorts ascending and descending on one key', async () => {
    const asc = await many()
      .find({}, { sort: { label: 1 }, limit: 3 })
      .toArray();
    expect(asc.map((d) => d.label)).toEqual(['item-000', 'item-001', 'item-002']);
    const desc = await many()
      .find({}, { sort: { i: -1 }, limit: 3 })
      .toArray();
    expect(desc.map((d) => d.i)).toEqual([249, 248, 247]);
  });

  it('compound sort', async () => {
    const docs = await many()
      .find({ i: { $lt: 20 } })
      .sort({ group: -1, i: 1 })
      .toArray();
    expect(docs.slice(0, 5).map((d) => [d.group, d.i])).toEqual([
      [4, 4],
      [4, 9],
      [4, 14],
      [4, 19],
      [3, 3],
    ]);
  });

  it('sorts on dates', async () => {
    const docs = await many()
      .find({}, { sort: { day: -1, i: 1 }, limit: 4 })
      .toArray();
    expect((docs[0]!.day as Date).toISOString()).toBe('2024-02-09T00:00:00.000Z');
    expect(docs.map((d) => d.i)).toEqual([39, 79, 119, 159]);
  });

  it('skip and limit combine with sort', async () => {
    const docs = await many().find({}).sort({ i: -1 }).skip(10).limit(5).toArray();
    expect(docs.map((d) => d.i)).toEqual([239, 238, 237, 236, 235]);
    const tail = await many().find({}).sort({ i: 1 }).skip(245).limit(100).toArray();
    expect(tail.map((d) => d.i)).toEqual([245, 246, 247, 248, 249]);
    const none = await many().find({}).skip(1000).toArray();
    expect(none).toEqual([]);
  });

  it('a hint naming a missing index is rejected', async () => {
    const err = await many()
      .find({})
      .hint('no_such_index')
      .toArray()
      .catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(2);
    expect(await many().find({ i: 1 }).hint({ _id: 1 }).toArray()).toHaveLength(1);
  });

  it('skip and limit without sort follow natural order', async () => {
    const docs = await many().find({ group: 2 }).skip(2).limit(3).toArray();
    expect(docs.map((d) => d.i)).toEqual([12, 17, 22]);
  });

  it('missing fields sort before present ones', async () => {
    const c = target.db.collection('sort_missing');
    await c.insertMany([
      { k: 3, v: 'c' },
      { v: 'none' },
      { k: 1, v: 'a' },
      { k: null, v: 'null' },
      { k: 2, v: 'b' },
    ]);
    const asc = await c.find({}, { sort: { k: 1, v: 1 }, projection: { _id: 0, v: 1 } }).toArray();
    expect(asc.map((d) => d.v)).toEqual(['none', 'null', 'a', 'b', 'c']);
    const desc = await c.find({}, { sort: { k: -1 }, limit: 1 }).toArray();
    expect(desc[0]!.v).toBe('c');
  });

  it('arrays sort by their smallest (asc) or largest (desc) element', async () => {
    const c = target.db.collection('sort_arrays');
    await c.insertMany([
      { name: 'a', xs: [5, 1] },
      { name: 'b', xs: [3] },
      { name: 'c', xs: [2, 9] },
    ]);
    const asc = await c.find({}, { sort: { xs: 1 } }).toArray();
    expect(asc.map((d) => d.name)).toEqual(['a', 'c', 'b']);
    const desc = await c.find({}, { sort: { xs: -1 } }).toArray();
    expect(desc.map((d) => d.name)).toEqual(['c', 'a', 'b']);
  });
});

describe('$in over many keys', () => {
  it('matches 1000 ObjectIds on _id', async () => {
    const c = target.db.collection('in_ids');
    const docs = Array.from({ length: 2000 }, (_, i) => ({ _id: new ObjectId(), i }));
    await c.insertMany(docs);
    const wanted = docs.filter((d) => d.i % 2 === 0).map((d) => d._id);
    expect(wanted).toHaveLength(1000);
    const found = await c.find({ _id: { $in: wanted } }).toArray();
    expect(found).toHaveLength(1000);
    expect(found.every((d) => (d.i as number) % 2 === 0)).toBe(true);
    // fresh ObjectId instances with equal bytes must match as well
    const copies = wanted.slice(0, 10).map((id) => new ObjectId(id.toHexString()));
    expect(await c.countDocuments({ _id: { $in: copies } })).toBe(10);
    expect(await c.countDocuments({ _id: copies[0] })).toBe(1);
  });

  it('matches 1000 numbers and ObjectIds on non-_id fields, with and without an index', async () => {
    const c = target.db.collection('in_fields');
    const refs = Array.from({ length: 1500 }, () => new ObjectId());
    await c.insertMany(refs.map((ref, i) => ({ n: i, ref, other: i % 7 })));
    const nums = Array.from({ length: 1000 }, (_, k) => k * 3);
    expect(await c.countDocuments({ n: { $in: nums } })).toBe(500);
    expect(await c.countDocuments({ ref: { $in: refs.slice(0, 1000) } })).toBe(1000);
    expect(await c.countDocuments({ ref: { $in: refs.slice(0, 1000) }, other: 0 })).toBe(143);
    await c.createIndex({ ref: 1 });
    await c.createIndex({ n: 1 });
    expect(await c.countDocuments({ n: { $in: nums } })).toBe(500);
    expect(await c.countDocuments({ ref: { $in: refs.slice(0, 1000) } })).toBe(1000);
    expect(await c.countDocuments({ ref: { $in: refs.slice(0, 1000) }, other: 0 })).toBe(143);
    expect(await c.countDocuments({ n: { $nin: nums } })).toBe(1000);
  });
});
