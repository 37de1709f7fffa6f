// Views: created with viewOn and pipeline, listed as views, read through their pipeline by every
// read command, refused for writes (166), modified by collMod, dropped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, rejection, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('views');
  await target.db.collection<{ _id: number } & Record<string, unknown>>('people').insertMany([
    { _id: 1, name: 'Ada', age: 36, team: 'x' },
    { _id: 2, name: 'Bob', age: 17, team: 'y' },
    { _id: 3, name: 'Cy', age: 52, team: 'x' },
  ]);
  await target.db.createCollection('adults', {
    viewOn: 'people',
    pipeline: [{ $match: { age: { $gte: 18 } } }, { $project: { team: 0 } }],
  });
});

afterAll(async () => {
  await target?.close();
});

describe('views', () => {
  it('are listed with type view and their options', async () => {
    const [info] = await target.db.listCollections({ name: 'adults' }).toArray();
    expect(info).toMatchObject({
      name: 'adults',
      type: 'view',
      options: { viewOn: 'people', pipeline: [{ $match: { age: { $gte: 18 } } }, { $project: { team: 0 } }] },
      info: { readOnly: true },
    });
  });

  it('answer find with filter, sort, skip, limit and projection', async () => {
    const adults = target.db.collection<{ _id: number } & Record<string, unknown>>('adults');
    expect(await adults.find({}, { sort: { age: -1 } }).toArray()).toEqual([
      { _id: 3, name: 'Cy', age: 52 },
      { _id: 1, name: 'Ada', age: 36 },
    ]);
    expect(await adults.find({ age: { $lt: 40 } }, { projection: { name: 1, _id: 0 } }).toArray()).toEqual([
      { name: 'Ada' },
    ]);
    expect(await adults.find({}, { sort: { _id: 1 }, skip: 1, limit: 1 }).toArray()).toEqual([
      { _id: 3, name: 'Cy', age: 52 },
    ]);
  });

  it('answer aggregate, count, countDocuments, estimatedDocumentCount and distinct', async () => {
    const adults = target.db.collection<{ _id: number } & Record<string, unknown>>('adults');
    expect(await adults.aggregate([{ $group: { _id: null, total: { $sum: '$age' } } }]).toArray()).toEqual([
      { _id: null, total: 88 },
    ]);
    expect(await adults.countDocuments({ age: { $gt: 40 } })).toBe(1);
    expect(await adults.estimatedDocumentCount()).toBe(2);
    expect(await adults.distinct('name')).toEqual(['Ada', 'Cy']);
  });

  it('can be a view on a view, or on a missing collection', async () => {
    await target.db.createCollection('names', { viewOn: 'adults', pipeline: [{ $project: { name: 1 } }] });
    expect(await target.db.collection('names').find().toArray()).toEqual([
      { _id: 1, name: 'Ada' },
      { _id: 3, name: 'Cy' },
    ]);
    await target.db.createCollection('ghost', { viewOn: 'nothing_here', pipeline: [] });
    expect(await target.db.collection('ghost').find().toArray()).toEqual([]);
  });

  it('refuse writes and indexes with CommandNotSupportedOnView (166)', async () => {
    const adults = target.db.collection<{ _id: number } & Record<string, unknown>>('adults');
    for (const write of [
      () => adults.insertOne({ _id: 4, name: 'Di' }),
      () => adults.updateOne({ _id: 1 }, { $set: { age: 1 } }),
      () => adults.deleteMany({}),
      () => adults.findOneAndUpdate({ _id: 1 }, { $set: { age: 1 } }),
      () => adults.createIndex({ name: 1 }),
    ]) {
      const err = await rejection(write());
      expect(err.code).toBe(166);
    }
  });

  it('collMod changes viewOn and pipeline; drop removes a view', async () => {
    await target.db.createCollection('teamX', { viewOn: 'people', pipeline: [{ $match: { team: 'x' } }] });
    await target.db.command({ collMod: 'teamX', viewOn: 'people', pipeline: [{ $match: { team: 'y' } }] });
    expect(await target.db.collection('teamX').find().toArray()).toEqual([
      { _id: 2, name: 'Bob', age: 17, team: 'y' },
    ]);
    expect(await target.db.collection('teamX').drop()).toBe(true);
    expect(await target.db.listCollections({ name: 'teamX' }).toArray()).toEqual([]);
    expect(
      await target.db.collection<{ _id: number } & Record<string, unknown>>('people').countDocuments(),
    ).toBe(3);
  });

  it('reads through a view in $lookup', async () => {
    const joined = await target.db
      .collection('people')
      .aggregate([
        { $match: { _id: 1 } },
        { $lookup: { from: 'adults', localField: 'team', foreignField: 'name', as: 'none' } },
        { $lookup: { from: 'adults', localField: '_id', foreignField: '_id', as: 'self' } },
        { $project: { self: 1 } },
      ])
      .toArray();
    expect(joined).toEqual([{ _id: 1, self: [{ _id: 1, name: 'Ada', age: 36 }] }]);
  });
});
