// Behaviours foreign clients (pymongo, mongosh) rely on: embedded-document equality, the sort order
// of empty arrays, find projections and PCRE inline regex options, each as the manual describes.
import { BSONRegExp, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('fidelity');
});

afterAll(async () => {
  await target?.close();
});

let counter = 0;
async function collectionWith(docs: Array<{ _id: number | string } & Document>) {
  const c = target.db.collection<{ _id: number | string; [key: string]: unknown }>(`f_${counter++}`);
  await c.insertMany(docs);
  return c;
}

describe('embedded documents', () => {
  // https://www.mongodb.com/docs/manual/tutorial/query-embedded-documents/#match-an-embedded-nested-document:
  // "equality matches on the whole embedded document require an exact match ..., including the field order"
  it('equality with a whole embedded document depends on field order', async () => {
    const c = await collectionWith([{ _id: 1, size: { h: 14, w: 21 } }]);
    expect(await c.countDocuments({ size: { h: 14, w: 21 } })).toBe(1);
    expect(await c.countDocuments({ size: { w: 21, h: 14 } })).toBe(0);
    expect(await c.countDocuments({ size: { $eq: { w: 21, h: 14 } } })).toBe(0);
    expect(await c.countDocuments({ size: { $ne: { w: 21, h: 14 } } })).toBe(1);
  });
});

describe('sort order', () => {
  // https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/#arrays:
  // "an empty array is treated as less than null or a missing field"
  it('an empty array sorts before null and missing, ascending; after them, descending', async () => {
    const c = await collectionWith([
      { _id: 'one', a: 1 },
      { _id: 'null', a: null },
      { _id: 'empty', a: [] },
      { _id: 'array', a: [0, 5] },
    ]);
    const asc = (await c.find().sort({ a: 1, _id: 1 }).toArray()).map((d) => d._id);
    expect(asc).toEqual(['empty', 'null', 'array', 'one']);
    const desc = (await c.find().sort({ a: -1, _id: 1 }).toArray()).map((d) => d._id);
    expect(desc).toEqual(['array', 'one', 'null', 'empty']);
    const agg = await c.aggregate([{ $sort: { a: 1, _id: 1 } }]).toArray();
    expect(agg.map((d) => d._id)).toEqual(asc);
  });
});

describe('find projections', () => {
  // https://www.mongodb.com/docs/manual/reference/operator/projection/slice/: "{ array: { $slice: count } }
  // ... returns ... all other fields in the document" when the projection has no other field.
  it('$slice alone keeps the other fields', async () => {
    const c = await collectionWith([{ _id: 1, title: 't', tags: ['a', 'b', 'c'], n: { x: 1 } }]);
    expect(await c.findOne({ _id: 1 }, { projection: { tags: { $slice: 2 } } })).toEqual({
      _id: 1,
      title: 't',
      tags: ['a', 'b'],
      n: { x: 1 },
    });
    expect(await c.findOne({ _id: 1 }, { projection: { tags: { $slice: -1 }, title: 0 } })).toEqual({
      _id: 1,
      tags: ['c'],
      n: { x: 1 },
    });
    expect(await c.findOne({ _id: 1 }, { projection: { tags: { $slice: [1, 1] }, title: 1 } })).toEqual({
      _id: 1,
      title: 't',
      tags: ['b'],
    });
  });

  // Inclusion projections return the fields in the stored document's order, `_id` first.
  it('an inclusion projection returns _id first and the fields in document order', async () => {
    const c = await collectionWith([{ _id: 1, a: 1, b: 2, c: 3 }]);
    const doc = await c.findOne({ _id: 1 }, { projection: { c: 1, a: 1, _id: 1 } });
    expect(Object.keys(doc!)).toEqual(['_id', 'a', 'c']);
    const implicit = await c.findOne({ _id: 1 }, { projection: { b: 1 } });
    expect(Object.keys(implicit!)).toEqual(['_id', 'b']);
  });
});

describe('regular expressions', () => {
  // https://www.mongodb.com/docs/manual/reference/operator/query/regex/#pcre-vs-javascript: PCRE
  // options such as `(?i)` may start the pattern.
  it('accepts inline options at the start of the pattern', async () => {
    const c = await collectionWith([
      { _id: 1, name: 'Alice' },
      { _id: 2, name: 'alfred' },
      { _id: 3, name: 'Bob' },
    ]);
    const ids = async (filter: Document) =>
      (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ name: { $regex: '(?i)^al' } })).toEqual([1, 2]);
    expect(await ids({ name: new BSONRegExp('(?i)^AL') })).toEqual([1, 2]);
    expect(await ids({ name: { $in: [new BSONRegExp('(?i)^b')] } })).toEqual([3]);
  });
});
