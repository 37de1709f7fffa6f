import { Binary, Decimal128, Double, Int32, Long, MongoServerError, ObjectId, UUID } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('crud');
});

afterAll(async () => {
  await target?.close();
});

const coll = (name: string) => target.db.collection(name);

describe('insert and find', () => {
  it('insertOne assigns an ObjectId and findOne returns the document', async () => {
    const c = coll('insert_one');
    const res = await c.insertOne({ name: 'ada', tags: ['a', 'b'], nested: { x: 1 } });
    expect(res.acknowledged).toBe(true);
    expect(res.insertedId).toBeInstanceOf(ObjectId);
    const found = await c.findOne({ _id: res.insertedId });
    expect(found).toEqual({ _id: res.insertedId, name: 'ada', tags: ['a', 'b'], nested: { x: 1 } });
    expect(Object.keys(found!)[0]).toBe('_id');
  });

  it('keeps caller-provided _id values of any scalar type and rejects duplicates', async () => {
    const c = coll('custom_ids');
    await c.insertOne({ _id: 'str' as never, v: 1 });
    await c.insertOne({ _id: 7 as never, v: 2 });
    await c.insertOne({ _id: { a: 1 } as never, v: 3 });
    expect(await c.findOne({ _id: 'str' as never })).toEqual({ _id: 'str', v: 1 });
    expect(await c.findOne({ _id: 7 as never })).toEqual({ _id: 7, v: 2 });
    expect(await c.findOne({ _id: { a: 1 } as never })).toEqual({ _id: { a: 1 }, v: 3 });
    const err = await c.insertOne({ _id: 'str' as never }).catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(11000);
  });

  it('insertMany returns ids and preserves natural order', async () => {
    const c = coll('insert_many');
    const docs = Array.from({ length: 10 }, (_, i) => ({ i, parity: i % 2 === 0 ? 'even' : 'odd' }));
    const res = await c.insertMany(docs);
    expect(res.insertedCount).toBe(10);
    expect(Object.keys(res.insertedIds)).toHaveLength(10);
    const all = await c.find().toArray();
    expect(all.map((d) => d.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const odd = await c.find({ parity: 'odd' }).toArray();
    expect(odd.map((d) => d.i)).toEqual([1, 3, 5, 7, 9]);
  });

  it('does not share object references with the caller', async () => {
    const c = coll('no_sharing');
    const doc = { _id: 1 as never, list: [1, 2], sub: { k: 'v' } };
    await c.insertOne(doc);
    doc.list.push(3);
    doc.sub.k = 'changed';
    const first = await c.findOne({ _id: 1 as never });
    expect(first).toEqual({ _id: 1, list: [1, 2], sub: { k: 'v' } });
    first!.list.push(99);
    expect(await c.findOne({ _id: 1 as never })).toEqual({ _id: 1, list: [1, 2], sub: { k: 'v' } });
  });

  it('find on a missing collection returns nothing', async () => {
    expect(await coll('does_not_exist').find({}).toArray()).toEqual([]);
    expect(await coll('does_not_exist').findOne({})).toBeNull();
    expect(await coll('does_not_exist').countDocuments()).toBe(0);
    expect(await coll('does_not_exist').estimatedDocumentCount()).toBe(0);
  });
});

describe('query operators', () => {
  beforeAll(async () => {
    await coll('q').insertMany([
      { n: 1, name: 'apple', tags: ['red', 'fruit'], dims: { w: 10, h: 2 }, items: [{ k: 'a', q: 1 }] },
      { n: 2, name: 'banana', tags: ['yellow', 'fruit'], dims: { w: 20, h: 3 }, items: [{ k: 'b', q: 5 }] },
      { n: 3, name: 'carrot', tags: ['orange', 'veg'], dims: { w: 5, h: 30 }, items: [] },
      { n: 4, name: 'date', tags: [], opt: null },
      { n: 5, name: 'Eggplant', tags: ['purple', 'veg'], opt: 'x' },
    ]);
  });

  const names = async (filter: object) =>
    (await coll('q').find(filter).toArray()).map((d) => d.name as string).sort();

  it('comparison and logical operators', async () => {
    expect(await names({ n: { $gt: 3 } })).toEqual(['Eggplant', 'date']);
    expect(await names({ n: { $gte: 2, $lt: 4 } })).toEqual(['banana', 'carrot']);
    expect(await names({ n: { $ne: 1 } })).toHaveLength(4);
    expect(await names({ n: { $nin: [1, 2, 3] } })).toEqual(['Eggplant', 'date']);
    expect(await names({ $or: [{ n: 1 }, { name: 'date' }] })).toEqual(['apple', 'date']);
    expect(await names({ $and: [{ n: { $gt: 1 } }, { n: { $lt: 3 } }] })).toEqual(['banana']);
    expect(await names({ n: { $not: { $gt: 1 } } })).toEqual(['apple']);
    expect(await names({ $nor: [{ n: { $lt: 5 } }] })).toEqual(['Eggplant']);
  });

  it('arrays, nested fields and element operators', async () => {
    expect(await names({ tags: 'fruit' })).toEqual(['apple', 'banana']);
    expect(await names({ tags: { $all: ['veg', 'purple'] } })).toEqual(['Eggplant']);
    expect(await names({ tags: { $size: 0 } })).toEqual(['date']);
    expect(await names({ 'dims.w': { $gte: 10 } })).toEqual(['apple', 'banana']);
    expect(await names({ 'items.k': 'b' })).toEqual(['banana']);
    expect(await names({ items: { $elemMatch: { q: { $gt: 2 } } } })).toEqual(['banana']);
    expect(await names({ opt: { $exists: true } })).toEqual(['Eggplant', 'date']);
    expect(await names({ opt: null })).toEqual(['apple', 'banana', 'carrot', 'date']);
    expect(await names({ opt: { $type: 'string' } })).toEqual(['Eggplant']);
  });

  it('regular expressions', async () => {
    expect(await names({ name: /^ba/ })).toEqual(['banana']);
    expect(await names({ name: { $regex: '^e', $options: 'i' } })).toEqual(['Eggplant']);
    expect(await names({ name: { $in: [/^a/, 'date'] } })).toEqual(['apple', 'date']);
  });

  it('$comment in a filter is ignored', async () => {
    expect(await names({ n: 1, $comment: 'why' })).toEqual(['apple']);
  });

  it('$expr compares fields of the same document', async () => {
    expect(await names({ $expr: { $gt: ['$dims.h', '$dims.w'] } })).toEqual(['carrot']);
  });
});

describe('update, replace, delete', () => {
  it('updateOne / updateMany report matched and modified counts', async () => {
    const c = coll('upd');
    await c.insertMany([
      { k: 1, v: 0 },
      { k: 1, v: 0 },
      { k: 2, v: 0 },
    ]);
    const one = await c.updateOne({ k: 1 }, { $set: { v: 1 } });
    expect(one).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null });
    const many = await c.updateMany({ k: 1 }, { $set: { v: 1 } });
    expect(many).toMatchObject({ matchedCount: 2, modifiedCount: 1 });
    const noop = await c.updateMany({ k: 1 }, { $set: { v: 1 } });
    expect(noop).toMatchObject({ matchedCount: 2, modifiedCount: 0 });
    const none = await c.updateOne({ k: 42 }, { $set: { v: 1 } });
    expect(none).toMatchObject({ matchedCount: 0, modifiedCount: 0 });
  });

  it('replaceOne keeps _id and refuses to change it', async () => {
    const c = coll('replace');
    const { insertedId } = await c.insertOne({ a: 1, b: 2 });
    const res = await c.replaceOne({ _id: insertedId }, { c: 3 });
    expect(res).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await c.findOne({ _id: insertedId })).toEqual({ _id: insertedId, c: 3 });
    const err = await c.replaceOne({ _id: insertedId }, { _id: new ObjectId(), c: 4 }).catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(66);
  });

  it('deleteOne / deleteMany', async () => {
    const c = coll('del');
    await c.insertMany([{ g: 'a' }, { g: 'a' }, { g: 'a' }, { g: 'b' }]);
    expect((await c.deleteOne({ g: 'a' })).deletedCount).toBe(1);
    expect((await c.deleteMany({ g: 'a' })).deletedCount).toBe(2);
    expect((await c.deleteMany({ g: 'zzz' })).deletedCount).toBe(0);
    expect(await c.countDocuments()).toBe(1);
    expect((await c.deleteMany({})).deletedCount).toBe(1);
    expect(await c.countDocuments()).toBe(0);
  });
});

describe('counting and distinct', () => {
  beforeAll(async () => {
    await coll('cnt').insertMany(
      Array.from({ length: 30 }, (_, i) => ({
        i,
        color: ['red', 'green', 'blue'][i % 3],
        tags: [`t${i % 4}`, 'all'],
      })),
    );
  });

  it('countDocuments and estimatedDocumentCount', async () => {
    const c = coll('cnt');
    expect(await c.countDocuments()).toBe(30);
    expect(await c.estimatedDocumentCount()).toBe(30);
    expect(await c.countDocuments({ color: 'red' })).toBe(10);
    expect(await c.countDocuments({ i: { $gte: 10 } }, { skip: 5, limit: 10 })).toBe(10);
    expect(await c.countDocuments({ i: { $gte: 25 } }, { skip: 3 })).toBe(2);
  });

  it('distinct flattens arrays and honours the filter', async () => {
    const c = coll('cnt');
    expect((await c.distinct('color')).sort()).toEqual(['blue', 'green', 'red']);
    expect((await c.distinct('tags')).sort()).toEqual(['all', 't0', 't1', 't2', 't3']);
    expect((await c.distinct('color', { i: { $lt: 2 } })).sort()).toEqual(['green', 'red']);
    expect(await c.distinct('missing_field')).toEqual([]);
  });
});

describe('projection', () => {
  beforeAll(async () => {
    await coll('proj').insertOne({
      _id: 1 as never,
      a: 1,
      b: { c: 2, d: 3 },
      arr: [1, 2, 3, 4, 5],
      people: [
        { name: 'x', age: 1 },
        { name: 'y', age: 2 },
      ],
    });
  });

  const project = (projection: object) => coll('proj').findOne({ _id: 1 as never }, { projection });

  it('inclusion, exclusion and _id handling', async () => {
    expect(await project({ a: 1 })).toEqual({ _id: 1, a: 1 });
    expect(await project({ a: 1, _id: 0 })).toEqual({ a: 1 });
    expect(await project({ b: 0, arr: 0, people: 0 })).toEqual({ _id: 1, a: 1 });
    expect(await project({ _id: 0, arr: 0, people: 0 })).toEqual({ a: 1, b: { c: 2, d: 3 } });
    expect(await project({ people: true, b: 1.0 })).toEqual({
      _id: 1,
      b: { c: 2, d: 3 },
      people: [
        { name: 'x', age: 1 },
        { name: 'y', age: 2 },
      ],
    });
    expect(await project({ missing: 1, _id: 0 })).toEqual({});
    // Inclusion and exclusion together (but for _id) is refused, as mongod does.
    await expect(project({ a: 1, b: 0 })).rejects.toThrow(/exclusion|inclusion/i);
  });

  it('nested fields', async () => {
    expect(await project({ 'b.c': 1 })).toEqual({ _id: 1, b: { c: 2 } });
    expect(await project({ 'b.d': 0, arr: 0, people: 0, a: 0 })).toEqual({ _id: 1, b: { c: 2 } });
    expect(await project({ 'people.name': 1, _id: 0 })).toEqual({ people: [{ name: 'x' }, { name: 'y' }] });
    // exclusion of nested paths must not alter the stored document
    expect(await coll('proj').findOne({ _id: 1 as never })).toMatchObject({ b: { c: 2, d: 3 } });
  });

  it('positional projection returns the first matching element', async () => {
    const doc = await coll('proj').findOne(
      { _id: 1 as never, 'people.age': 2 },
      { projection: { 'people.$': 1 } },
    );
    expect(doc).toEqual({ _id: 1, people: [{ name: 'y', age: 2 }] });
  });

  it('$slice and $elemMatch projections', async () => {
    expect(await project({ arr: { $slice: 2 }, _id: 0, a: 1 })).toEqual({ a: 1, arr: [1, 2] });
    expect(await project({ people: { $elemMatch: { age: 2 } } })).toEqual({
      _id: 1,
      people: [{ name: 'y', age: 2 }],
    });
  });
});

describe('BSON types round trip', () => {
  it('Date, Long, Int32, Double, Decimal128, Binary, UUID', async () => {
    const c = coll('types');
    const when = new Date('2024-02-29T12:34:56.789Z');
    const big = Long.fromString('9007199254740993');
    const uuid = new UUID();
    const { insertedId } = await c.insertOne({
      when,
      big,
      small: Long.fromNumber(42),
      int: new Int32(7),
      dbl: new Double(1.5),
      dec: Decimal128.fromString('12.345'),
      bin: new Binary(Buffer.from([1, 2, 3])),
      uuid,
      neg: -0.25,
      nil: null,
      bool: false,
    });
    const doc = await c.findOne({ _id: insertedId });
    expect(doc!.when).toBeInstanceOf(Date);
    expect((doc!.when as Date).getTime()).toBe(when.getTime());
    expect(Long.isLong(doc!.big)).toBe(true);
    expect((doc!.big as Long).toString()).toBe('9007199254740993');
    expect(doc!.small).toBe(42);
    expect(doc!.int).toBe(7);
    expect(doc!.dbl).toBe(1.5);
    expect(String(doc!.dec)).toBe('12.345');
    expect(Buffer.from((doc!.bin as Binary).buffer)).toEqual(Buffer.from([1, 2, 3]));
    expect((doc!.uuid as Binary).toUUID().toHexString()).toBe(uuid.toHexString());
    expect(doc!.neg).toBe(-0.25);
    expect(doc!.nil).toBeNull();
    expect(doc!.bool).toBe(false);
  });

  it('queries by Date and Long compare by value', async () => {
    const c = coll('types_query');
    await c.insertMany([
      { at: new Date('2024-01-01T00:00:00Z'), n: Long.fromNumber(10) },
      { at: new Date('2024-06-01T00:00:00Z'), n: Long.fromNumber(20) },
      { at: new Date('2025-01-01T00:00:00Z'), n: Long.fromNumber(30) },
    ]);
    expect(await c.countDocuments({ at: { $gte: new Date('2024-03-01T00:00:00Z') } })).toBe(2);
    expect(await c.countDocuments({ at: new Date('2024-06-01T00:00:00Z') })).toBe(1);
    expect(await c.countDocuments({ n: 20 })).toBe(1);
    expect(await c.countDocuments({ n: { $gt: Long.fromNumber(15) } })).toBe(2);
    const latest = await c.find().sort({ at: -1 }).limit(1).toArray();
    expect((latest[0]!.at as Date).toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });
});

describe('let variables in find and delete', () => {
  it('find filters with $$ variables', async () => {
    const c = coll('let_find');
    await c.insertMany([{ i: 1 }, { i: 2 }, { i: 3 }]);
    const found = await c
      .find({ $expr: { $gte: ['$i', '$$from'] } }, { let: { from: 2 }, projection: { _id: 0 } })
      .toArray();
    expect(found).toEqual([{ i: 2 }, { i: 3 }]);
  });

  it('deleteOne and deleteMany', async () => {
    const c = coll('let_delete');
    await c.insertMany([{ g: 'a' }, { g: 'a' }, { g: 'b' }]);
    const byGroup = { $expr: { $eq: ['$g', '$$group'] } };
    expect((await c.deleteOne(byGroup, { let: { group: 'a' } })).deletedCount).toBe(1);
    expect((await c.deleteMany(byGroup, { let: { group: 'a' } })).deletedCount).toBe(1);
    expect(await c.find({}, { projection: { _id: 0 } }).toArray()).toEqual([{ g: 'b' }]);
  });
});
