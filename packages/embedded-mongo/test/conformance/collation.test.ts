// Collation: strings compared by a locale's rules (case, accents, numbers) in queries, sorts,
// groupings and writes, a collection's default collation, the planner's rule for indexes, and
// mongod's errors for collations it cannot take. Every expectation is mongod's behaviour.
import type { CollationOptions, Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, rejection, stagesOf, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('collation');
});

afterAll(async () => {
  await target?.close();
});

/** The documents here: numbered, with fields of any type. */
interface Row {
  _id: number;
  [field: string]: unknown;
}

const coll = (name: string) => target.db.collection<Row>(name);

/** Case-insensitive, accent-sensitive English. */
const CASE_INSENSITIVE: CollationOptions = { locale: 'en', strength: 2 };
/** Case- and accent-insensitive English. */
const BASE_LETTERS: CollationOptions = { locale: 'en', strength: 1 };

const FRUIT = ['apple', 'Banana', 'APPLE', 'cherry', 'banana', 'Apple'];

async function fruit(name: string) {
  const c = coll(name);
  await c.insertMany(FRUIT.map((name, i) => ({ _id: i, name })));
  return c;
}

const names = (docs: Document[]) => docs.map((d) => d.name);

describe('queries under a collation', () => {
  it('strength 2 matches regardless of case, and sorts letters before case', async () => {
    const c = await fruit('ci_find');
    const apples = await c.find({ name: 'apple' }, { collation: CASE_INSENSITIVE }).toArray();
    expect(names(apples).sort()).toEqual(['APPLE', 'Apple', 'apple']);
    expect(await c.countDocuments({ name: 'apple' })).toBe(1);

    const sorted = await c.find({}, { collation: CASE_INSENSITIVE }).sort({ name: 1, _id: 1 }).toArray();
    expect(names(sorted)).toEqual(['apple', 'APPLE', 'Apple', 'Banana', 'banana', 'cherry']);
    const binary = await c.find({}).sort({ name: 1, _id: 1 }).toArray();
    expect(names(binary)).toEqual(['APPLE', 'Apple', 'Banana', 'apple', 'banana', 'cherry']);
  });

  it('strength 1 ignores accents too; strength 2 does not', async () => {
    const c = coll('accents');
    await c.insertMany([
      { _id: 1, w: 'cafe' },
      { _id: 2, w: 'café' },
      { _id: 3, w: 'CAFÉ' },
      { _id: 4, w: 'cafes' },
    ]);
    const base = await c.find({ w: 'cafe' }, { collation: BASE_LETTERS }).toArray();
    expect(base.map((d) => d._id).sort()).toEqual([1, 2, 3]);
    const accents = await c.find({ w: 'cafe' }, { collation: CASE_INSENSITIVE }).toArray();
    expect(accents.map((d) => d._id)).toEqual([1]);
    const accented = await c.find({ w: 'Café' }, { collation: CASE_INSENSITIVE }).toArray();
    expect(accented.map((d) => d._id).sort()).toEqual([2, 3]);
  });

  it('numericOrdering sorts digits by their value ("2" before "10")', async () => {
    const c = coll('numeric');
    await c.insertMany(['10', '2', '1', '20', '3b', '3a'].map((v, i) => ({ _id: i, v })));
    const numeric = await c
      .find({}, { collation: { locale: 'en', numericOrdering: true } })
      .sort({ v: 1 })
      .toArray();
    expect(numeric.map((d) => d.v)).toEqual(['1', '2', '3a', '3b', '10', '20']);
    const binary = await c.find({}).sort({ v: 1 }).toArray();
    expect(binary.map((d) => d.v)).toEqual(['1', '10', '2', '20', '3a', '3b']);
    const above = await c
      .find({ v: { $gt: '3' } }, { collation: { locale: 'en', numericOrdering: true } })
      .toArray();
    expect(above.map((d) => d.v).sort()).toEqual(['10', '20', '3a', '3b']);
  });

  it('caseFirst orders upper case before lower case', async () => {
    const c = coll('case_first');
    await c.insertMany(['b', 'a', 'B', 'A'].map((v, i) => ({ _id: i, v })));
    const upper = await c
      .find({}, { collation: { locale: 'en', caseFirst: 'upper' } })
      .sort({ v: 1 })
      .toArray();
    expect(upper.map((d) => d.v)).toEqual(['A', 'a', 'B', 'b']);
    const lower = await c
      .find({}, { collation: { locale: 'en' } })
      .sort({ v: 1 })
      .toArray();
    expect(lower.map((d) => d.v)).toEqual(['a', 'A', 'b', 'B']);
  });

  it('alternate "shifted" ignores spaces and punctuation', async () => {
    const c = coll('shifted');
    await c.insertMany(['ab', 'a-b', 'a b', 'a.c'].map((v, i) => ({ _id: i, v })));
    const shifted = await c
      .find({ v: 'ab' }, { collation: { locale: 'en', alternate: 'shifted' } })
      .toArray();
    expect(shifted.map((d) => d.v).sort()).toEqual(['a b', 'a-b', 'ab']);
    expect(await c.countDocuments({ v: 'ab' }, { collation: { locale: 'en' } })).toBe(1);
  });

  it('ranges, $in, $ne and $nin compare by the collation; regular expressions do not', async () => {
    const c = await fruit('ci_operators');
    const opts = { collation: CASE_INSENSITIVE };
    const b = await c.find({ name: { $gte: 'b', $lt: 'c' } }, opts).toArray();
    expect(names(b).sort()).toEqual(['Banana', 'banana']);
    const binaryB = await c.find({ name: { $gte: 'b', $lt: 'c' } }).toArray();
    expect(names(binaryB)).toEqual(['banana']);
    const listed = await c.find({ name: { $in: ['APPLE', 'CHERRY'] } }, opts).toArray();
    expect(names(listed).sort()).toEqual(['APPLE', 'Apple', 'apple', 'cherry']);
    expect(await c.countDocuments({ name: { $nin: ['APPLE', 'CHERRY'] } }, opts)).toBe(2);
    expect(await c.countDocuments({ name: { $ne: 'BANANA' } }, opts)).toBe(4);
    const regex = await c.find({ name: /^apple$/ }, opts).toArray();
    expect(names(regex)).toEqual(['apple']);
    const expr = await c.find({ $expr: { $eq: ['$name', 'CHERRY'] } }, opts).toArray();
    expect(names(expr)).toEqual(['cherry']);
  });

  it('strings inside arrays and embedded documents compare by it; other types keep their order', async () => {
    const c = coll('nested');
    await c.insertMany([
      { _id: 1, tags: ['Red', 'green'], meta: { colour: 'Blue' }, n: 10 },
      { _id: 2, tags: ['blue'], meta: { colour: 'red' }, n: 9 },
      { _id: 3, tags: 'GREEN', meta: { colour: 'BLUE' }, n: '9' },
    ]);
    const opts = { collation: CASE_INSENSITIVE };
    expect((await c.find({ tags: 'GREEN' }, opts).toArray()).map((d) => d._id).sort()).toEqual([1, 3]);
    expect((await c.find({ meta: { colour: 'blue' } }, opts).toArray()).map((d) => d._id).sort()).toEqual([
      1, 3,
    ]);
    expect((await c.find({ tags: ['RED', 'Green'] }, opts).toArray()).map((d) => d._id)).toEqual([1]);
    // Numbers before strings, by value: 9 < 10 < "9".
    const byN = await c.find({}, opts).sort({ n: 1 }).toArray();
    expect(byN.map((d) => d._id)).toEqual([2, 1, 3]);
    expect((await c.find({ n: { $gt: 5 } }, opts).toArray()).map((d) => d._id).sort()).toEqual([1, 2]);
  });

  it('a collation of { locale: "simple" } compares code points', async () => {
    const c = await fruit('simple');
    const simple = await c.find({ name: 'apple' }, { collation: { locale: 'simple' } }).toArray();
    expect(names(simple)).toEqual(['apple']);
  });
});

describe('aggregation under a collation', () => {
  it('$match, $sort, $group keys, $min/$max and $lookup compare by it', async () => {
    const c = await fruit('agg_fruit');
    const opts = { collation: CASE_INSENSITIVE };
    const matched = await c
      .aggregate([{ $match: { name: 'BANANA' } }, { $sort: { _id: 1 } }], opts)
      .toArray();
    expect(names(matched)).toEqual(['Banana', 'banana']);

    const groups = await c
      .aggregate([{ $group: { _id: '$name', n: { $sum: 1 } } }, { $sort: { _id: 1 } }], opts)
      .toArray();
    expect(groups.map((g) => [String(g._id).toLowerCase(), g.n])).toEqual([
      ['apple', 3],
      ['banana', 2],
      ['cherry', 1],
    ]);
    const binaryGroups = await c.aggregate([{ $group: { _id: '$name' } }]).toArray();
    expect(binaryGroups).toHaveLength(6);

    // In English order "Banana" comes after "apple"; in code points before it.
    const extremes = { $group: { _id: null, max: { $max: '$name' }, min: { $min: '$name' } } };
    const [collated] = await c
      .aggregate([{ $match: { name: { $in: ['apple', 'Banana'] } } }, extremes], opts)
      .toArray();
    expect([collated?.min, collated?.max]).toEqual(['apple', 'Banana']);
    const [binary] = await c
      .aggregate([{ $match: { name: { $in: ['apple', 'Banana'] } } }, extremes])
      .toArray();
    expect([binary?.min, binary?.max]).toEqual(['Banana', 'apple']);

    const orders = coll('agg_orders');
    await orders.insertMany([
      { _id: 1, item: 'APPLE' },
      { _id: 2, item: 'cherry' },
    ]);
    const joined = await orders
      .aggregate(
        [
          { $lookup: { from: 'agg_fruit', localField: 'item', foreignField: 'name', as: 'fruit' } },
          { $project: { ids: '$fruit._id' } },
          { $sort: { _id: 1 } },
        ],
        opts,
      )
      .toArray();
    expect(joined.map((o) => [o._id, [...(o.ids as number[])].sort()])).toEqual([
      [1, [0, 2, 5]],
      [2, [3]],
    ]);
  });
});

describe('distinct and count under a collation', () => {
  it('distinct gives one value per class of equal strings; count counts them all', async () => {
    const c = await fruit('ci_distinct');
    const values = await c.distinct('name', {}, { collation: CASE_INSENSITIVE });
    expect(values.map((v) => String(v).toLowerCase())).toEqual(['apple', 'banana', 'cherry']);
    expect(await c.distinct('name')).toHaveLength(6);
    const bananas = await c.distinct('name', { name: 'BANANA' }, { collation: CASE_INSENSITIVE });
    expect(bananas).toHaveLength(1);
    expect(await c.countDocuments({ name: 'APPLE' }, { collation: CASE_INSENSITIVE })).toBe(3);
    expect(await c.countDocuments({ name: 'APPLE' })).toBe(1);
  });
});

describe('writes under a collation', () => {
  it('update, replace and delete match by it', async () => {
    const c = await fruit('ci_writes');
    const opts = { collation: CASE_INSENSITIVE };
    const many = await c.updateMany({ name: 'apple' }, { $set: { fruit: 'apple' } }, opts);
    expect([many.matchedCount, many.modifiedCount]).toEqual([3, 3]);
    const one = await c.updateOne({ name: 'BANANA' }, { $set: { fruit: 'banana' } }, opts);
    expect(one.matchedCount).toBe(1);
    const replaced = await c.replaceOne({ name: 'CHERRY' }, { name: 'cherry', ripe: true }, opts);
    expect(replaced.modifiedCount).toBe(1);
    expect(await c.countDocuments({ ripe: true })).toBe(1);

    const none = await c.deleteMany({ name: 'APPLE' });
    expect(none.deletedCount).toBe(1);
    const deleted = await c.deleteMany({ name: 'apple' }, opts);
    expect(deleted.deletedCount).toBe(2);
    expect((await c.deleteOne({ name: 'banana' }, opts)).deletedCount).toBe(1);
    expect(await c.countDocuments({})).toBe(2);
  });

  it('findOneAndUpdate and findOneAndDelete find and sort by it', async () => {
    const c = await fruit('ci_find_and_modify');
    const opts = { collation: CASE_INSENSITIVE };
    const updated = await c.findOneAndUpdate(
      { name: 'BANANA' },
      { $set: { picked: true } },
      { ...opts, sort: { _id: -1 }, returnDocument: 'after' },
    );
    expect(updated).toMatchObject({ _id: 4, name: 'banana', picked: true });
    const first = await c.findOneAndDelete({ name: { $gt: 'b' } }, { ...opts, sort: { name: 1, _id: 1 } });
    expect(first).toMatchObject({ _id: 1, name: 'Banana' });
  });

  it('bulkWrite statements each take their own collation', async () => {
    const c = await fruit('ci_bulk');
    const result = await c.bulkWrite([
      {
        updateMany: { filter: { name: 'apple' }, update: { $set: { seen: 1 } }, collation: CASE_INSENSITIVE },
      },
      { updateMany: { filter: { name: 'apple' }, update: { $set: { exact: 1 } } } },
      { deleteMany: { filter: { name: 'BANANA' }, collation: CASE_INSENSITIVE } },
    ]);
    expect([result.matchedCount, result.deletedCount]).toEqual([4, 2]);
    expect(await c.countDocuments({ seen: 1 })).toBe(3);
  });
});

describe("a collection's default collation", () => {
  it('applies to every operation naming none, is listed in full, and gives way to a given one', async () => {
    const c = await target.db.createCollection<Row>('default_ci', {
      collation: { locale: 'en', strength: 2 },
    });
    await c.insertMany(FRUIT.map((name, i) => ({ _id: i, name })));
    const [info] = await target.db.listCollections({ name: 'default_ci' }, { nameOnly: false }).toArray();
    expect(info?.options?.collation).toEqual({
      locale: 'en',
      caseLevel: false,
      caseFirst: 'off',
      strength: 2,
      numericOrdering: false,
      alternate: 'non-ignorable',
      maxVariable: 'punct',
      normalization: false,
      backwards: false,
      version: '57.1',
    });
    expect(await c.countDocuments({ name: 'APPLE' })).toBe(3);
    expect((await c.distinct('name')).map((v) => String(v).toLowerCase())).toEqual([
      'apple',
      'banana',
      'cherry',
    ]);
    expect(names(await c.find({ name: 'APPLE' }, { collation: { locale: 'simple' } }).toArray())).toEqual([
      'APPLE',
    ]);
    expect((await c.updateMany({ name: 'BANANA' }, { $set: { b: 1 } })).modifiedCount).toBe(2);
  });

  it('a simple collation at creation is no default collation', async () => {
    await target.db.createCollection('default_simple', { collation: { locale: 'simple' } });
    const [info] = await target.db.listCollections({ name: 'default_simple' }, { nameOnly: false }).toArray();
    expect(info?.options?.collation).toBeUndefined();
  });
});

describe('indexes and collation', () => {
  it('an index without the query collation bounds no string, gives no order, and results stay right', async () => {
    const c = await fruit('ci_index');
    await c.insertMany([{ _id: 10, name: 5 }]);
    await c.createIndex({ name: 1 });
    const stages = async (filter: Document, options: Document = {}, sort?: Document) => {
      const cursor = c.find(filter, options);
      if (sort) cursor.sort(sort);
      const explained = await cursor.explain('queryPlanner');
      return stagesOf(explained.queryPlanner.winningPlan as Document).map((s) => s.stage);
    };
    expect(await stages({ name: 'apple' })).toContain('IXSCAN');
    expect(await stages({ name: 'apple' }, { collation: CASE_INSENSITIVE })).toContain('COLLSCAN');
    expect(await stages({ name: 'apple' }, { collation: CASE_INSENSITIVE })).not.toContain('IXSCAN');
    // A number is compared alike by every collation: the index still serves it.
    expect(await stages({ name: 5 }, { collation: CASE_INSENSITIVE })).toContain('IXSCAN');
    expect(await stages({}, { collation: CASE_INSENSITIVE }, { name: 1 })).toContain('SORT');
    const apples = await c.find({ name: 'apple' }, { collation: CASE_INSENSITIVE }).toArray();
    expect(apples).toHaveLength(3);
    const sorted = await c.find({}, { collation: CASE_INSENSITIVE }).sort({ name: 1, _id: 1 }).toArray();
    expect(names(sorted)).toEqual([5, 'apple', 'APPLE', 'Apple', 'Banana', 'banana', 'cherry']);
  });

  it('a case-insensitive unique index: mongod enforces it; the engine refuses to build it', async () => {
    const c = coll('ci_unique');
    const created = c.createIndex({ email: 1 }, { unique: true, collation: CASE_INSENSITIVE });
    if (target.embedded) {
      const err = await rejection(created);
      expect(err.code).toBe(238);
      expect(err.message).toContain('collation');
      const listed = await c.listIndexes().toArray();
      expect(listed.map((i) => i.name)).toEqual(['_id_']);
      return;
    }
    await created;
    await c.insertOne({ _id: 1, email: 'Ada@example.org' });
    const dup = await rejection(c.insertOne({ _id: 2, email: 'ada@EXAMPLE.org' }));
    expect(dup.code).toBe(11000);
  });

  it('an index with { locale: "simple" } is a binary index, listed without a collation', async () => {
    const c = await fruit('simple_index');
    await c.createIndex({ name: 1 }, { collation: { locale: 'simple' } });
    const index = (await c.listIndexes().toArray()).find((i) => i.name === 'name_1');
    expect(index?.collation).toBeUndefined();
  });
});

describe('invalid collations get mongod errors', () => {
  const find = (collation: Document) =>
    rejection(target.db.command({ find: 'anything', filter: {}, collation }));

  it('an unknown or misspelt locale is BadValue', async () => {
    const unknown = await find({ locale: 'xx' });
    expect(unknown.code).toBe(2);
    expect(unknown.message).toBe('Field \'locale\' is invalid in: { locale: "xx" }');
    const hyphen = await find({ locale: 'en-US' });
    expect(hyphen.code).toBe(2);
    expect(hyphen.message).toContain("Did you mean 'en_US'?");
    const empty = await find({ locale: '' });
    expect(empty.code).toBe(2);
  });

  it('a missing locale, an unknown field, a wrong type', async () => {
    const missing = await find({ strength: 2 });
    expect(missing.code).toBe(40414);
    expect(missing.message).toContain("'collation.locale' is missing");
    const unknown = await find({ locale: 'en', colour: 'blue' });
    expect(unknown.code).toBe(40415);
    const wrongType = await find({ locale: 'en', caseLevel: 'yes' });
    expect(wrongType.code).toBe(14);
    const badEnum = await find({ locale: 'en', caseFirst: 'sideways' });
    expect(badEnum.code).toBe(2);
  });

  it('strength outside 1 to 5', async () => {
    const six = await find({ locale: 'en', strength: 6 });
    expect(six.code).toBe(51024);
    const zero = await find({ locale: 'en', strength: 0 });
    expect(zero.code).toBe(2);
  });

  it('meaningless combinations, in writes and at creation too', async () => {
    const caseFirst = await find({ locale: 'en', strength: 1, caseFirst: 'upper' });
    expect(caseFirst.code).toBe(2);
    expect(caseFirst.message).toContain("'caseFirst' is invalid unless 'caseLevel' is on");
    const update = await target.db.command({
      update: 'anything',
      updates: [{ q: {}, u: { $set: { a: 1 } }, collation: { locale: 'zz' } }],
    });
    expect(update.writeErrors?.[0]?.code).toBe(2);
    const created = await rejection(
      target.db.createCollection('bad_default', { collation: { locale: 'zz' } }),
    );
    expect(created.code).toBe(2);
  });
});
