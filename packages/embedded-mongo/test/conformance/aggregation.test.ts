import { MongoServerError, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;
const authorIds = [new ObjectId(), new ObjectId(), new ObjectId()];

beforeAll(async () => {
  target = await connectTarget('aggregation');
  await target.db.collection('authors').insertMany([
    { _id: authorIds[0]!, name: 'Ann' },
    { _id: authorIds[1]!, name: 'Bob' },
    { _id: authorIds[2]!, name: 'Cid' },
  ]);
  await target.db.collection('posts').insertMany([
    { title: 'p1', author: authorIds[0]!, likes: 5, tags: ['db', 'js'], at: new Date('2024-01-03') },
    { title: 'p2', author: authorIds[0]!, likes: 3, tags: ['js'], at: new Date('2024-01-01') },
    { title: 'p3', author: authorIds[1]!, likes: 10, tags: [], at: new Date('2024-01-02') },
    { title: 'p4', author: authorIds[1]!, likes: 1, tags: ['db'], at: new Date('2024-01-05') },
    { title: 'p5', author: authorIds[0]!, likes: 7, tags: ['ops', 'db'], at: new Date('2024-01-04') },
  ]);
});

afterAll(async () => {
  await target?.close();
});

const posts = () => target.db.collection('posts');

describe('aggregation pipelines', () => {
  it('$match, $group ($sum, $push, $first), $sort', async () => {
    const rows = await posts()
      .aggregate([
        { $match: { likes: { $gte: 2 } } },
        { $sort: { at: 1 } },
        {
          $group: {
            _id: '$author',
            total: { $sum: '$likes' },
            count: { $sum: 1 },
            titles: { $push: '$title' },
            first: { $first: '$title' },
          },
        },
        { $sort: { total: -1 } },
      ])
      .toArray();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      _id: authorIds[0],
      total: 15,
      count: 3,
      titles: ['p2', 'p1', 'p5'],
      first: 'p2',
    });
    expect(rows[1]).toEqual({ _id: authorIds[1], total: 10, count: 1, titles: ['p3'], first: 'p3' });
  });

  it('$project with computed fields, $skip and $limit', async () => {
    const rows = await posts()
      .aggregate([
        { $sort: { likes: -1 } },
        { $skip: 1 },
        { $limit: 2 },
        { $project: { _id: 0, title: 1, double: { $multiply: ['$likes', 2] }, nTags: { $size: '$tags' } } },
      ])
      .toArray();
    expect(rows).toEqual([
      { title: 'p5', double: 14, nTags: 2 },
      { title: 'p1', double: 10, nTags: 2 },
    ]);
  });

  it('$lookup from another collection and $unwind', async () => {
    const rows = await posts()
      .aggregate([
        { $match: { title: { $in: ['p1', 'p3'] } } },
        { $lookup: { from: 'authors', localField: 'author', foreignField: '_id', as: 'writer' } },
        { $unwind: '$writer' },
        { $project: { _id: 0, title: 1, writer: '$writer.name' } },
        { $sort: { title: 1 } },
      ])
      .toArray();
    expect(rows).toEqual([
      { title: 'p1', writer: 'Ann' },
      { title: 'p3', writer: 'Bob' },
    ]);
  });

  it('$lookup keeps authors without posts and $unwind drops empty arrays', async () => {
    const rows = await target.db
      .collection('authors')
      .aggregate([
        { $lookup: { from: 'posts', localField: '_id', foreignField: 'author', as: 'posts' } },
        { $project: { _id: 0, name: 1, n: { $size: '$posts' } } },
        { $sort: { name: 1 } },
      ])
      .toArray();
    expect(rows).toEqual([
      { name: 'Ann', n: 3 },
      { name: 'Bob', n: 2 },
      { name: 'Cid', n: 0 },
    ]);
    const tags = await posts()
      .aggregate([
        { $unwind: '$tags' },
        { $group: { _id: '$tags', n: { $sum: 1 } } },
        { $sort: { n: -1, _id: 1 } },
      ])
      .toArray();
    expect(tags).toEqual([
      { _id: 'db', n: 3 },
      { _id: 'js', n: 2 },
      { _id: 'ops', n: 1 },
    ]);
  });

  it('$count and countDocuments', async () => {
    expect(
      await posts()
        .aggregate([{ $match: { tags: 'db' } }, { $count: 'n' }])
        .toArray(),
    ).toEqual([{ n: 3 }]);
    expect(
      await posts()
        .aggregate([{ $match: { likes: 999 } }, { $count: 'n' }])
        .toArray(),
    ).toEqual([]);
    expect(await posts().countDocuments({ tags: 'db' })).toBe(3);
  });

  it('pipeline stages do not modify stored documents', async () => {
    await posts()
      .aggregate([
        { $unwind: { path: '$tags', includeArrayIndex: 'idx' } },
        { $addFields: { 'extra.x': 1 } },
        { $lookup: { from: 'authors', localField: 'author', foreignField: '_id', as: 'a' } },
        { $unwind: '$a' },
        { $set: { 'a.touched': true } },
      ])
      .toArray();
    const p1 = await posts().findOne({ title: 'p1' }, { projection: { _id: 0, author: 0, at: 0 } });
    expect(p1).toEqual({ title: 'p1', likes: 5, tags: ['db', 'js'] });
    expect(await target.db.collection('authors').countDocuments({ touched: true })).toBe(0);
  });

  it('$group by date parts and $addFields', async () => {
    const rows = await posts()
      .aggregate([
        { $addFields: { day: { $dayOfMonth: '$at' } } },
        { $match: { day: { $lte: 2 } } },
        { $group: { _id: null, days: { $push: '$day' }, avg: { $avg: '$likes' } } },
      ])
      .toArray();
    expect(rows).toHaveLength(1);
    expect((rows[0]!.days as number[]).sort()).toEqual([1, 2]);
    expect(rows[0]!.avg).toBe(6.5);
  });

  it('$out writes results into a collection', async () => {
    await posts()
      .aggregate([{ $match: { likes: { $gt: 4 } } }, { $project: { title: 1 } }, { $out: 'popular' }])
      .toArray();
    const titles = (await target.db.collection('popular').find().toArray()).map((d) => d.title).sort();
    expect(titles).toEqual(['p1', 'p3', 'p5']);
  });

  it('let values are expressions, evaluated once before the pipeline runs', async () => {
    const out = await posts()
      .aggregate(
        [
          { $sort: { _id: 1 } },
          { $limit: 3 },
          { $project: { _id: 0, literal: '$$literal', sum: '$$sum', random: '$$random' } },
        ],
        { let: { literal: { $literal: '$title' }, sum: { $add: [1, 2] }, random: { $rand: {} } } },
      )
      .toArray();
    expect(out).toHaveLength(3);
    expect(out.map((d) => [d.literal, d.sum])).toEqual([
      ['$title', 3],
      ['$title', 3],
      ['$title', 3],
    ]);
    // One value for the whole command, not one per document.
    expect(new Set(out.map((d) => d.random)).size).toBe(1);
    expect(out[0]!.random).toBeGreaterThanOrEqual(0);
    expect(out[0]!.random).toBeLessThan(1);
  });

  it('an unknown stage is rejected', async () => {
    const err = await posts()
      .aggregate([{ $notAStage: {} }])
      .toArray()
      .catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(40324);
  });
});
