// The `$merge` stage: results written into a collection by `on`, with each whenMatched and
// whenNotMatched mode, and mongod's errors.
import type { Collection } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectTarget, rejection, type Target } from './target.js';

let target: Target;
let source: Collection<{ _id: number } & Record<string, unknown>>;
let into: Collection<{ _id: number } & Record<string, unknown>>;

beforeAll(async () => {
  target = await connectTarget('merge');
});

afterAll(async () => {
  await target?.close();
});

beforeEach(async () => {
  source = target.db.collection('source');
  into = target.db.collection('into');
  await source.drop().catch(() => {});
  await into.drop().catch(() => {});
  await source.insertMany([
    { _id: 1, sku: 'a', qty: 5 },
    { _id: 2, sku: 'b', qty: 7 },
  ]);
  await into.insertMany([
    { _id: 1, sku: 'a', qty: 1, note: 'kept' },
    { _id: 3, sku: 'c', qty: 3 },
  ]);
});

const merged = () => into.find({}, { sort: { _id: 1 } }).toArray();

describe('$merge', () => {
  it('merges by _id by default and returns an empty cursor', async () => {
    const out = await source.aggregate([{ $merge: { into: 'into' } }]).toArray();
    expect(out).toEqual([]);
    expect(await merged()).toEqual([
      { _id: 1, sku: 'a', qty: 5, note: 'kept' },
      { _id: 2, sku: 'b', qty: 7 },
      { _id: 3, sku: 'c', qty: 3 },
    ]);
  });

  it('replaces, keeps existing or discards', async () => {
    await source
      .aggregate([{ $merge: { into: 'into', whenMatched: 'replace', whenNotMatched: 'discard' } }])
      .toArray();
    expect(await merged()).toEqual([
      { _id: 1, sku: 'a', qty: 5 },
      { _id: 3, sku: 'c', qty: 3 },
    ]);
    await source
      .aggregate([{ $set: { qty: 0 } }, { $merge: { into: 'into', whenMatched: 'keepExisting' } }])
      .toArray();
    expect(await merged()).toEqual([
      { _id: 1, sku: 'a', qty: 5 },
      { _id: 2, sku: 'b', qty: 0 },
      { _id: 3, sku: 'c', qty: 3 },
    ]);
  });

  it('runs a whenMatched pipeline with $$new and let', async () => {
    await source
      .aggregate([
        { $merge: { into: 'into', whenMatched: [{ $set: { qty: { $add: ['$qty', '$$new.qty'] } } }] } },
      ])
      .toArray();
    expect((await merged())[0]).toEqual({ _id: 1, sku: 'a', qty: 6, note: 'kept' });
    await source
      .aggregate([
        {
          $merge: {
            into: 'into',
            let: { extra: '$qty' },
            whenMatched: [{ $set: { qty: { $multiply: ['$qty', '$$extra'] } } }],
            whenNotMatched: 'discard',
          },
        },
      ])
      .toArray();
    expect((await merged())[0]).toMatchObject({ _id: 1, qty: 30 });
  });

  it('matches on fields with a unique index, else fails with 51183', async () => {
    const err = await rejection(
      source.aggregate([{ $project: { _id: 0 } }, { $merge: { into: 'into', on: 'sku' } }]).toArray(),
    );
    expect(err.code).toBe(51183);
    await into.createIndex({ sku: 1 }, { unique: true });
    await source
      .aggregate([{ $project: { _id: 0, sku: 1, qty: 1 } }, { $merge: { into: 'into', on: 'sku' } }])
      .toArray();
    const docs = await merged();
    expect(docs.find((d) => d.sku === 'a')).toEqual({ _id: 1, sku: 'a', qty: 5, note: 'kept' });
    expect(docs.find((d) => d.sku === 'b')).toMatchObject({ sku: 'b', qty: 7 });
    expect(docs).toHaveLength(3);
  });

  it('fails on a match with whenMatched: fail (11000) and on no match with whenNotMatched: fail', async () => {
    const dup = await rejection(
      source.aggregate([{ $merge: { into: 'into', whenMatched: 'fail' } }]).toArray(),
    );
    expect(dup.code).toBe(11000);
    expect(dup.errorResponse.keyPattern).toEqual({ _id: 1 });
    expect(dup.errorResponse.keyValue).toEqual({ _id: 1 });
    const none = await rejection(
      source.aggregate([{ $merge: { into: 'into', whenNotMatched: 'fail' } }]).toArray(),
    );
    expect(none.code).toBe(13113);
  });

  it('writes into another database, and into a new collection', async () => {
    const other = target.client.db(`${target.db.databaseName}_other`);
    try {
      await source.aggregate([{ $merge: { into: { db: other.databaseName, coll: 'copy' } } }]).toArray();
      expect(await other.collection('copy').countDocuments()).toBe(2);
    } finally {
      await other.dropDatabase();
    }
  });

  it('must be the last stage', async () => {
    const err = await rejection(source.aggregate([{ $merge: { into: 'into' } }, { $match: {} }]).toArray());
    expect(err.code).toBe(40601);
  });

  it('works from a database aggregate with $documents', async () => {
    await target.db
      .aggregate([{ $documents: [{ _id: 9, sku: 'z' }] }, { $merge: { into: 'into' } }])
      .toArray();
    expect(await into.findOne({ _id: 9 })).toEqual({ _id: 9, sku: 'z' });
  });
});
