// Indexes change how a query runs, never what it returns: every query below gives the same
// documents on a collection without secondary indexes and on a copy with them (the manual:
// "Query Optimization" and "Multikey Indexes"), and explain names the index used
// ("Explain Results": queryPlanner.winningPlan with IXSCAN / FETCH / LIMIT / OR stages).
import { type Document, Double, type Filter, type IndexSpecification, Long, type Sort } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target, winningStages } from './target.js';

let target: Target;

type Doc = { _id: number } & Document;
const base = new Date('2024-01-01T00:00:00Z').getTime();
const day = 24 * 3600 * 1000;

/** Values of several BSON types (and missing) for the mixed-type field `v`. */
function mixed(i: number): unknown {
  switch (i % 7) {
    case 0:
      return i;
    case 1:
      return `s${i % 13}`;
    case 2:
      return null;
    case 3:
      return undefined; // missing
    case 4:
      return new Date(base + i * day);
    case 5:
      return i % 2 === 0;
    default:
      return i / 4;
  }
}

function docs(): Doc[] {
  return Array.from({ length: 240 }, (_, i) => {
    const doc: Doc = {
      _id: i,
      org: i % 4,
      team: `t${i % 3}`,
      a: i % 11,
      b: (i * 37) % 101,
      d: new Date(base + ((i * 7) % 60) * day),
      tags: i % 5 === 0 ? [] : [`g${i % 6}`, `g${(i * 3) % 7}`],
      sub: i % 3 === 0 ? [{ x: i % 4 }, { y: 1 }] : { x: i % 5 },
    };
    const v = mixed(i);
    if (v !== undefined) doc.v = v;
    return doc;
  });
}

beforeAll(async () => {
  target = await connectTarget('planner');
  await target.db.collection<Doc>('plain').insertMany(docs());
  const indexed = target.db.collection<Doc>('indexed');
  await indexed.insertMany(docs());
  await indexed.createIndexes([
    { key: { a: 1 } },
    { key: { b: -1 } },
    { key: { org: 1, d: -1 } },
    { key: { org: 1, team: 1, b: 1 } },
    { key: { tags: 1 } },
    { key: { v: 1 } },
    { key: { 'sub.x': 1 } },
  ]);
});

afterAll(async () => {
  await target?.close();
});

interface Case {
  filter: Filter<Doc>;
  sort?: Sort;
  skip?: number;
  limit?: number;
}

const at = (days: number) => new Date(base + days * day);

const cases: Record<string, Case> = {
  equality: { filter: { a: 5 } },
  'equality with $eq': { filter: { a: { $eq: 7 } } },
  range: { filter: { b: { $gt: 20, $lte: 60 } } },
  'range of strings stays among strings': { filter: { v: { $lt: 's5' } } },
  'range of numbers stays among numbers': { filter: { v: { $gte: 10 } } },
  'range of dates stays among dates': { filter: { v: { $gt: at(30) } } },
  'null matches null and missing': { filter: { v: null } },
  $in: { filter: { a: { $in: [1, 3, 99] } } },
  '$in with null': { filter: { v: { $in: [null, 's1', 14] } } },
  '$and-wrapped equality and range': { filter: { $and: [{ org: 2 }, { d: { $gte: at(20) } }] } },
  'nested $and': { filter: { $and: [{ $and: [{ org: 1 }, { team: 't1' }] }, { b: { $lt: 50 } }] } },
  'compound prefix only': { filter: { org: 3, team: 't2' } },
  'compound with a gap': { filter: { org: 3, b: { $gt: 10 } } },
  'sort ascending with limit': { filter: { b: { $gte: 30 } }, sort: { b: 1, _id: 1 }, limit: 7 },
  'sort descending with skip and limit': { filter: {}, sort: { b: -1, _id: -1 }, skip: 5, limit: 6 },
  'app-shaped page': {
    filter: { $and: [{ org: 1 }, { d: { $lt: at(40) } }] },
    sort: { d: -1, _id: -1 },
    limit: 10,
  },
  'app-shaped next page': {
    filter: {
      $and: [{ org: 1 }, { $or: [{ d: { $lt: at(30) } }, { d: at(30), _id: { $lt: 100 } }] }],
    },
    sort: { d: -1, _id: -1 },
    limit: 10,
  },
  '$in on a prefix with sort': { filter: { org: { $in: [0, 2] } }, sort: { d: -1, _id: 1 }, limit: 9 },
  $or: { filter: { $or: [{ a: 2 }, { b: { $lt: 15 } }] } },
  '$or sorted and limited': {
    filter: { $or: [{ a: 2 }, { org: 3, team: 't0' }] },
    sort: { b: 1, _id: 1 },
    limit: 8,
  },
  '$or with a branch no index serves': { filter: { $or: [{ a: 2 }, { nope: 1 }] } },
  'multikey equality': { filter: { tags: 'g3' } },
  'multikey range: each bound may hold on another element': { filter: { tags: { $gt: 'g2', $lt: 'g3' } } },
  'multikey $in': { filter: { tags: { $in: ['g0', 'g6'] } } },
  'multikey sort': { filter: { tags: { $gte: 'g4' } }, sort: { tags: 1, _id: 1 }, limit: 12 },
  'empty arrays': { filter: { tags: { $size: 0 } } },
  'dotted path through arrays': { filter: { 'sub.x': 2 } },
  'dotted path range': { filter: { 'sub.x': { $gte: 3 } } },
};

async function run(name: string, c: Case): Promise<unknown[]> {
  let cursor = target.db.collection<Doc>(name).find(c.filter);
  if (c.sort) cursor = cursor.sort(c.sort);
  if (c.skip) cursor = cursor.skip(c.skip);
  if (c.limit) cursor = cursor.limit(c.limit);
  const ids = (await cursor.toArray()).map((d) => d._id);
  // Without a sort the order is the plan's: compare the sets.
  return c.sort ? ids : ids.sort((x, y) => x - y);
}

describe('indexes give the same results as a collection scan', () => {
  for (const [label, c] of Object.entries(cases)) {
    it(label, async () => {
      const expected = await run('plain', c);
      if (!c.limit) expect(expected.length).toBeGreaterThan(0);
      expect(await run('indexed', c)).toEqual(expected);
    });
  }

  it('count and distinct agree too', async () => {
    const filter = { $and: [{ org: 2 }, { b: { $gte: 40 } }] };
    for (const name of ['plain', 'indexed']) {
      expect(await target.db.collection(name).countDocuments(filter)).toBe(
        await target.db.collection('plain').countDocuments(filter),
      );
    }
    expect(await target.db.collection('indexed').distinct('a', { tags: 'g1' })).toEqual(
      await target.db.collection('plain').distinct('a', { tags: 'g1' }),
    );
  });

  it('a unique index still refuses duplicates after ordered lookups', async () => {
    const c = target.db.collection('unique_planned');
    await c.createIndex({ k: 1 }, { unique: true });
    await c.insertMany([{ k: 1 }, { k: 2 }]);
    await expect(c.insertOne({ k: 2 })).rejects.toMatchObject({ code: 11000 });
    expect(await c.find({ k: { $gte: 2 } }).toArray()).toHaveLength(1);
  });
});

describe('explain', () => {
  it('an app-shaped page ($and of an equality and a date range, sorted, limited) is an index scan', async () => {
    const c = target.db.collection('meetings_like');
    await c.insertMany(
      Array.from({ length: 50 }, (_, i) => ({ orgId: i % 2, startTime: at(i), title: `m${i}` })),
    );
    await c.createIndex({ orgId: 1, startTime: -1 });
    const stages = await winningStages(
      c
        .find({ $and: [{ orgId: 1 }, { startTime: { $lt: at(30) } }] })
        .sort({ startTime: -1 })
        .limit(5),
    );
    const names = stages.map((s) => s.stage);
    expect(names).toContain('IXSCAN');
    expect(names).not.toContain('SORT'); // the index gives the order
    expect(names).not.toContain('COLLSCAN');
    const scan = stages.find((s) => s.stage === 'IXSCAN')!;
    expect(scan.indexName).toBe('orgId_1_startTime_-1');
    expect(scan.keyPattern).toEqual({ orgId: 1, startTime: -1 });
    expect(scan.direction).toBe('forward');
    expect(scan.indexBounds).toEqual({
      orgId: ['[1, 1]'],
      startTime: [`(new Date(${at(30).getTime()}), new Date(-9223372036854775808)]`],
    });
  });

  it('a query no index serves is a collection scan', async () => {
    const stages = await winningStages(target.db.collection('indexed').find({ nope: 1 }));
    expect(stages.map((s) => s.stage)).toEqual(['COLLSCAN']);
  });

  it('a sort no index gives is a blocking SORT', async () => {
    const stages = await winningStages(target.db.collection('indexed').find({ a: 3 }).sort({ nope: 1 }));
    expect(stages.map((s) => s.stage)).toContain('SORT');
    expect(stages.find((s) => s.stage === 'IXSCAN')?.indexName).toBe('a_1');
  });

  it('an $or of indexed branches is a union of index scans', async () => {
    const stages = await winningStages(target.db.collection('indexed').find({ $or: [{ a: 2 }, { b: 7 }] }));
    expect(stages.map((s) => s.stage)).toContain('OR');
    expect(
      stages
        .filter((s) => s.stage === 'IXSCAN')
        .map((s) => s.indexName)
        .sort(),
    ).toEqual(['a_1', 'b_-1']);
  });

  it('key directions sent as doubles or 64-bit integers (as pymongo and mongosh send them) make an ordinary index', async () => {
    const c = target.db.collection('typed_directions');
    await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ a: i % 4, b: i })));
    // The driver's types only allow JS numbers here; on the wire these are a double and an int64.
    const key = { a: new Double(1), b: Long.fromNumber(-1) } as unknown as IndexSpecification;
    const name = await c.createIndex(key);
    expect(name).toBe('a_1_b_-1');
    const stages = await winningStages(c.find({ a: 2 }).sort({ b: -1 }).limit(3));
    expect(stages.find((s) => s.stage === 'IXSCAN')?.indexName).toBe('a_1_b_-1');
    expect(stages.map((s) => s.stage)).not.toContain('SORT'); // the descending direction gives the order
    expect((await c.find({ a: 2 }).sort({ b: -1 }).limit(3).toArray()).map((d) => d.b)).toEqual([18, 14, 10]);
  });

  it('a range on a descending index is scanned backwards for an ascending sort', async () => {
    const stages = await winningStages(
      target.db
        .collection('indexed')
        .find({ b: { $gte: 90 } })
        .sort({ b: 1 }),
    );
    const scan = stages.find((s) => s.stage === 'IXSCAN')!;
    expect(scan.indexName).toBe('b_-1');
    expect(scan.direction).toBe('backward');
    expect(scan.indexBounds).toEqual({ b: ['[90, inf.0]'] });
    expect(stages.map((s) => s.stage)).not.toContain('SORT');
  });
});
