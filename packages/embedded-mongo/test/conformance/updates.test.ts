import { type Document, MongoServerError, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('updates');
});

afterAll(async () => {
  await target?.close();
});

let counter = 0;
/** Inserts `doc` into a fresh collection, applies `update`, returns the document without _id. */
async function applied(doc: Document, update: Document, options: Document = {}): Promise<Document | null> {
  const c = target.db.collection(`op_${counter++}`);
  const { insertedId } = await c.insertOne(doc);
  await c.updateOne({ _id: insertedId, ...(options.filter ?? {}) }, update, options.updateOptions ?? {});
  const out = await c.findOne({ _id: insertedId }, { projection: { _id: 0 } });
  return out;
}

describe('update operators', () => {
  it('$set and $unset, including dotted paths', async () => {
    expect(await applied({ a: 1 }, { $set: { b: 2, 'c.d.e': 3 } })).toEqual({
      a: 1,
      b: 2,
      c: { d: { e: 3 } },
    });
    expect(await applied({ a: 1, n: { x: 1, y: 2 } }, { $unset: { a: '', 'n.x': '' } })).toEqual({
      n: { y: 2 },
    });
    expect(await applied({ arr: [{ v: 1 }, { v: 2 }] }, { $set: { 'arr.1.v': 20 } })).toEqual({
      arr: [{ v: 1 }, { v: 20 }],
    });
  });

  it('$inc and $mul', async () => {
    expect(await applied({ n: 1 }, { $inc: { n: 5, m: 2, 'deep.k': -1 } })).toEqual({
      n: 6,
      m: 2,
      deep: { k: -1 },
    });
    expect(await applied({ n: 1.5 }, { $inc: { n: 1 } })).toEqual({ n: 2.5 });
    expect(await applied({ n: 4 }, { $mul: { n: 2.5, z: 3 } })).toEqual({ n: 10, z: 0 });
  });

  it('$min and $max on numbers and dates', async () => {
    expect(await applied({ lo: 5, hi: 5 }, { $min: { lo: 3 }, $max: { hi: 3 } })).toEqual({ lo: 3, hi: 5 });
    expect(await applied({ lo: 5, hi: 5 }, { $min: { lo: 8 }, $max: { hi: 8 } })).toEqual({ lo: 5, hi: 8 });
    const d1 = new Date('2024-01-01T00:00:00Z');
    const d2 = new Date('2023-01-01T00:00:00Z');
    const out = await applied({ first: d1, last: d1 }, { $min: { first: d2 }, $max: { last: d2 } });
    expect((out!.first as Date).toISOString()).toBe(d2.toISOString());
    expect((out!.last as Date).toISOString()).toBe(d1.toISOString());
  });

  it('$push with and without modifiers', async () => {
    expect(await applied({ xs: [1] }, { $push: { xs: 2 } })).toEqual({ xs: [1, 2] });
    expect(await applied({}, { $push: { xs: 'first' } })).toEqual({ xs: ['first'] });
    expect(await applied({ xs: [1, 2] }, { $push: { xs: { $each: [3, 4, 5], $slice: -3 } } })).toEqual({
      xs: [3, 4, 5],
    });
    expect(await applied({ xs: [5, 1] }, { $push: { xs: { $each: [3], $sort: 1 } } })).toEqual({
      xs: [1, 3, 5],
    });
    expect(await applied({ xs: [1, 2] }, { $push: { xs: { $each: [0], $position: 0 } } })).toEqual({
      xs: [0, 1, 2],
    });
  });

  it('$addToSet', async () => {
    expect(await applied({ s: ['a'] }, { $addToSet: { s: 'a' } })).toEqual({ s: ['a'] });
    expect(await applied({ s: ['a'] }, { $addToSet: { s: 'b' } })).toEqual({ s: ['a', 'b'] });
    expect(await applied({ s: ['a'] }, { $addToSet: { s: { $each: ['b', 'a', 'c', 'b'] } } })).toEqual({
      s: ['a', 'b', 'c'],
    });
    expect(await applied({}, { $addToSet: { s: { $each: [1, 1, 2] } } })).toEqual({ s: [1, 2] });
    expect(await applied({ s: [{ k: 1 }] }, { $addToSet: { s: { k: 1 } } })).toEqual({ s: [{ k: 1 }] });
  });

  it('$pull, $pullAll and $pop', async () => {
    expect(await applied({ xs: [1, 2, 3, 2] }, { $pull: { xs: 2 } })).toEqual({ xs: [1, 3] });
    expect(await applied({ xs: [1, 5, 9] }, { $pull: { xs: { $gte: 5 } } })).toEqual({ xs: [1] });
    expect(
      await applied(
        {
          items: [
            { k: 'a', q: 1 },
            { k: 'b', q: 2 },
          ],
        },
        { $pull: { items: { k: 'a' } } },
      ),
    ).toEqual({ items: [{ k: 'b', q: 2 }] });
    expect(await applied({ xs: [1, 2, 3, 1] }, { $pullAll: { xs: [1, 3] } })).toEqual({ xs: [2] });
    expect(await applied({ xs: [1, 2, 3] }, { $pop: { xs: 1 } })).toEqual({ xs: [1, 2] });
    expect(await applied({ xs: [1, 2, 3] }, { $pop: { xs: -1 } })).toEqual({ xs: [2, 3] });
  });

  it('$rename and $currentDate', async () => {
    expect(await applied({ a: 1, keep: true }, { $rename: { a: 'b' } })).toEqual({ keep: true, b: 1 });
    const before = Date.now();
    const out = await applied({}, { $currentDate: { at: true } });
    expect(out!.at).toBeInstanceOf(Date);
    expect((out!.at as Date).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('positional $ and arrayFilters', async () => {
    expect(
      await applied({ grades: [80, 85, 90] }, { $set: { 'grades.$': 82 } }, { filter: { grades: 85 } }),
    ).toEqual({ grades: [80, 82, 90] });
    expect(await applied({ grades: [80, 85, 90] }, { $inc: { 'grades.$[]': 1 } })).toEqual({
      grades: [81, 86, 91],
    });
    expect(
      await applied(
        { items: [{ q: 1 }, { q: 5 }, { q: 7 }] },
        { $set: { 'items.$[it].big': true } },
        { updateOptions: { arrayFilters: [{ 'it.q': { $gt: 4 } }] } },
      ),
    ).toEqual({ items: [{ q: 1 }, { q: 5, big: true }, { q: 7, big: true }] });
  });

  it('type errors are reported like mongod', async () => {
    const c = target.db.collection('type_errors');
    const { insertedId } = await c.insertOne({ s: 'text', n: 1 });
    const inc = await c.updateOne({ _id: insertedId }, { $inc: { s: 1 } }).catch((e) => e);
    expect(inc).toBeInstanceOf(MongoServerError);
    expect(inc.code).toBe(14);
    const push = await c.updateOne({ _id: insertedId }, { $push: { n: 1 } } as never).catch((e) => e);
    expect(push).toBeInstanceOf(MongoServerError);
    expect(push.code).toBe(2);
    const idChange = await c
      .updateOne({ _id: insertedId }, { $set: { _id: new ObjectId() } })
      .catch((e) => e);
    expect(idChange).toBeInstanceOf(MongoServerError);
    expect(idChange.code).toBe(66);
    const conflict = await c
      .updateOne({ _id: insertedId }, { $set: { n: 1 }, $inc: { n: 1 } })
      .catch((e) => e);
    expect(conflict).toBeInstanceOf(MongoServerError);
    expect(conflict.code).toBe(40);
    expect(await c.findOne({ _id: insertedId }, { projection: { _id: 0 } })).toEqual({ s: 'text', n: 1 });
  });

  it('updates through an aggregation pipeline', async () => {
    expect(
      await applied({ a: 2, b: 3 }, [{ $set: { sum: { $add: ['$a', '$b'] } } }, { $unset: 'b' }] as never),
    ).toEqual({ a: 2, sum: 5 });
  });
});

describe('upserts', () => {
  it('updateOne with upsert inserts, reports upsertedId and applies $setOnInsert only on insert', async () => {
    const c = target.db.collection('upserts');
    const first = await c.updateOne(
      { email: 'a@x.io', tenant: 't1' },
      { $set: { name: 'A' }, $setOnInsert: { createdAt: 1 }, $inc: { visits: 1 } },
      { upsert: true },
    );
    expect(first.upsertedCount).toBe(1);
    expect(first.matchedCount).toBe(0);
    expect(first.upsertedId).toBeInstanceOf(ObjectId);
    const doc = await c.findOne({ _id: first.upsertedId! });
    expect(doc).toEqual({
      _id: first.upsertedId,
      email: 'a@x.io',
      tenant: 't1',
      name: 'A',
      createdAt: 1,
      visits: 1,
    });
    const second = await c.updateOne(
      { email: 'a@x.io', tenant: 't1' },
      { $set: { name: 'B' }, $setOnInsert: { createdAt: 2 }, $inc: { visits: 1 } },
      { upsert: true },
    );
    expect(second).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null });
    expect(await c.findOne({ email: 'a@x.io' }, { projection: { _id: 0 } })).toEqual({
      email: 'a@x.io',
      tenant: 't1',
      name: 'B',
      createdAt: 1,
      visits: 2,
    });
  });

  it('upsert takes _id and $eq values from the filter and ignores other operators', async () => {
    const c = target.db.collection('upserts2');
    const res = await c.updateOne(
      { _id: 'fixed' as never, kind: { $eq: 'k' }, score: { $gt: 5 } },
      { $set: { v: 1 } },
      { upsert: true },
    );
    expect(res.upsertedId).toBe('fixed');
    expect(await c.findOne({ _id: 'fixed' as never })).toEqual({ _id: 'fixed', kind: 'k', v: 1 });
  });

  it('replaceOne and updateMany upsert', async () => {
    const c = target.db.collection('upserts3');
    const rep = await c.replaceOne({ key: 'r' }, { key: 'r', full: true }, { upsert: true });
    expect(rep.upsertedCount).toBe(1);
    expect(await c.findOne({ key: 'r' }, { projection: { _id: 0 } })).toEqual({ key: 'r', full: true });
    const many = await c.updateMany({ key: 'm' }, { $set: { many: true } }, { upsert: true });
    expect(many.upsertedCount).toBe(1);
    expect(await c.countDocuments({ many: true })).toBe(1);
  });
});

describe('findOneAndUpdate / findOneAndReplace / findOneAndDelete', () => {
  beforeAll(async () => {
    await target.db.collection('fam').insertMany([
      { name: 'a', rank: 3, n: 0 },
      { name: 'b', rank: 1, n: 0 },
      { name: 'c', rank: 2, n: 0 },
    ]);
  });

  const fam = () => target.db.collection('fam');

  it('returns the document before or after the update', async () => {
    const before = await fam().findOneAndUpdate({ name: 'a' }, { $inc: { n: 1 } });
    expect(before).toMatchObject({ name: 'a', n: 0 });
    const after = await fam().findOneAndUpdate(
      { name: 'a' },
      { $inc: { n: 1 } },
      { returnDocument: 'after' },
    );
    expect(after).toMatchObject({ name: 'a', n: 2 });
    const missing = await fam().findOneAndUpdate({ name: 'zzz' }, { $inc: { n: 1 } });
    expect(missing).toBeNull();
  });

  it('honours sort and projection', async () => {
    const lowest = await fam().findOneAndUpdate(
      {},
      { $set: { picked: true } },
      { sort: { rank: 1 }, returnDocument: 'after', projection: { _id: 0, name: 1, picked: 1 } },
    );
    expect(lowest).toEqual({ name: 'b', picked: true });
    const highest = await fam().findOneAndUpdate({}, { $set: { top: true } }, { sort: { rank: -1 } });
    expect(highest!.name).toBe('a');
  });

  it('upserts and reports metadata when asked', async () => {
    const res = await fam().findOneAndUpdate(
      { name: 'new' },
      { $set: { rank: 9 } },
      { upsert: true, returnDocument: 'after', includeResultMetadata: true },
    );
    expect(res.ok).toBe(1);
    expect(res.value).toMatchObject({ name: 'new', rank: 9 });
    expect(res.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false });
    expect(String(res.lastErrorObject?.upserted)).toBe(String(res.value!._id));
    const before = await fam().findOneAndUpdate({ name: 'new2' }, { $set: { rank: 10 } }, { upsert: true });
    expect(before).toBeNull();
    expect(await fam().countDocuments({ name: 'new2' })).toBe(1);
  });

  it('findOneAndReplace', async () => {
    const replaced = await fam().findOneAndReplace(
      { name: 'c' },
      { name: 'c2', rank: 2 },
      { returnDocument: 'after' },
    );
    expect(replaced).toMatchObject({ name: 'c2', rank: 2 });
    expect(replaced).not.toHaveProperty('n');
  });

  it('findOneAndDelete returns the removed document', async () => {
    const removed = await fam().findOneAndDelete({ rank: { $gte: 1 } }, { sort: { rank: -1 } });
    expect(removed!.name).toBe('new2');
    expect(await fam().countDocuments({ name: 'new2' })).toBe(0);
    expect(await fam().findOneAndDelete({ name: 'nobody' })).toBeNull();
  });
});

describe('let variables', () => {
  const seeded = async (name: string) => {
    const c = target.db.collection(name);
    await c.insertMany([
      { _id: 1, status: 'new', n: 1 },
      { _id: 2, status: 'old', n: 2 },
    ] as never[]);
    return c;
  };

  it('updateOne and updateMany: in the filter and in a pipeline update', async () => {
    const c = await seeded('let_update');
    const one = await c.updateOne(
      { $expr: { $eq: ['$status', '$$wanted'] } },
      [{ $set: { status: '$$next', n: { $add: ['$n', '$$step'] } } }],
      { let: { wanted: 'new', next: 'seen', step: 10 } },
    );
    expect(one).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    const many = await c.updateMany(
      { $expr: { $gt: ['$n', '$$floor'] } },
      { $set: { big: true } },
      { let: { floor: 1 } },
    );
    expect(many).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    expect(await c.find().toArray()).toEqual([
      { _id: 1, status: 'seen', n: 11, big: true },
      { _id: 2, status: 'old', n: 2, big: true },
    ]);
  });

  it('an upsert builds its document with the variables', async () => {
    const c = await seeded('let_upsert');
    const res = await c.updateOne({ _id: 3 as never }, [{ $set: { status: '$$status' } }], {
      upsert: true,
      let: { status: 'fresh' },
    });
    expect(res.upsertedId).toBe(3);
    expect(await c.findOne({ _id: 3 as never })).toEqual({ _id: 3, status: 'fresh' });
  });

  it('replaceOne, findOneAndUpdate, findOneAndReplace and findOneAndDelete', async () => {
    const c = await seeded('let_find_and_modify');
    const byId = { $expr: { $eq: ['$_id', '$$id'] } };
    expect(await c.replaceOne(byId, { status: 'replaced' }, { let: { id: 2 } })).toMatchObject({
      modifiedCount: 1,
    });
    const updated = await c.findOneAndUpdate(byId, [{ $set: { status: '$$to' } }], {
      let: { id: 1, to: 'updated' },
      returnDocument: 'after',
    });
    expect(updated).toEqual({ _id: 1, status: 'updated', n: 1 });
    const before = await c.findOneAndReplace(byId, { status: 'again' }, { let: { id: 1 } });
    expect(before).toEqual({ _id: 1, status: 'updated', n: 1 });
    expect(await c.findOneAndDelete(byId, { let: { id: 2 } })).toEqual({ _id: 2, status: 'replaced' });
    expect(await c.find().toArray()).toEqual([{ _id: 1, status: 'again' }]);
  });

  it('a variable the command does not define fails with 17276', async () => {
    const c = await seeded('let_undefined');
    const err = await c
      .updateOne({ $expr: { $eq: ['$_id', '$$missing'] } }, { $set: { x: 1 } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(17276);
    expect(err.message).toBe('Use of undefined variable: missing');
  });
});
