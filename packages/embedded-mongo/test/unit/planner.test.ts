// Embedded-only checks of the planner's work: a limited page read through an index examines
// about a page of keys and documents however large the collection (executionStats counters, no
// timing), and the trial between candidate plans keeps the one that gives the sort.
import { type Document, MongoClient, type Sort } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedMongo, startEmbeddedMongo } from '../../src/index.js';

const N = 5000;
const base = new Date('2024-01-01T00:00:00Z').getTime();
let engine: EmbeddedMongo;
let client: MongoClient;

interface Meeting {
  _id: number;
  orgId: number;
  recorderId: number;
  sharedWith: string[];
  startTime: Date;
}

const meetings = () => client.db('planner').collection<Meeting>('meetings');

beforeAll(async () => {
  engine = await startEmbeddedMongo();
  client = await new MongoClient(engine.uri).connect();
  await meetings().insertMany(
    Array.from({ length: N }, (_, i) => ({
      _id: i,
      orgId: i % 5,
      recorderId: i % 50,
      sharedWith: [`u${i % 7}`, `u${(i * 3) % 11}`],
      startTime: new Date(base + i * 60_000),
    })),
  );
  await meetings().createIndexes([
    { key: { orgId: 1 } },
    { key: { orgId: 1, startTime: -1, _id: -1 } },
    { key: { recorderId: 1, startTime: -1, _id: -1 } },
    { key: { sharedWith: 1, startTime: -1, _id: -1 } },
  ]);
});

afterAll(async () => {
  await client?.close();
  await engine?.close();
});

async function explained(filter: Document, sort: Sort, limit: number) {
  const out = await meetings().find(filter).sort(sort).limit(limit).explain('executionStats');
  return { plan: JSON.stringify(out.queryPlanner.winningPlan), stats: out.executionStats as Document };
}

describe('limited pages through an index', () => {
  const sort = { startTime: -1, _id: -1 } as const;

  it('an $and of equality and range, sorted and limited, examines one page', async () => {
    const filter = { $and: [{ orgId: 3 }, { startTime: { $lt: new Date(base + 4000 * 60_000) } }] };
    const { plan, stats } = await explained(filter, sort, 20);
    expect(plan).toContain('"indexName":"orgId_1_startTime_-1__id_-1"');
    expect(plan).not.toContain('"stage":"SORT"');
    expect(stats.nReturned).toBe(20);
    expect(stats.totalDocsExamined).toBeLessThanOrEqual(21);
    expect(stats.totalKeysExamined).toBeLessThanOrEqual(21);
  });

  it('an $or of ways to see a meeting merges sorted index scans and stops after the page', async () => {
    const filter = {
      $and: [{ $or: [{ recorderId: 7 }, { sharedWith: 'u3' }] }, { orgId: { $in: [0, 1, 2] } }],
    };
    const { plan, stats } = await explained(filter, sort, 20);
    expect(plan).toContain('"stage":"SORT_MERGE"');
    expect(plan).not.toContain('"stage":"SORT"');
    expect(stats.nReturned).toBe(20);
    // Every branch runs until the merge has a page; documents of other organisations are skipped.
    expect(stats.totalDocsExamined).toBeLessThan(200);
    const page = await meetings().find(filter).sort(sort).limit(20).toArray();
    const all = (await meetings().find({}).toArray())
      .filter((m) => (m.recorderId === 7 || m.sharedWith.includes('u3')) && m.orgId <= 2)
      .sort((a, b) => b.startTime.getTime() - a.startTime.getTime() || b._id - a._id)
      .slice(0, 20);
    expect(page.map((m) => m._id)).toEqual(all.map((m) => m._id));
  });

  it('the trial prefers the index that gives the sort over an equally selective one', async () => {
    const { plan, stats } = await explained({ orgId: 2 }, sort, 10);
    expect(plan).toContain('"indexName":"orgId_1_startTime_-1__id_-1"');
    expect(stats.totalDocsExamined).toBeLessThanOrEqual(11);
  });

  it('without an index on the filter, the page is a collection scan and a sort', async () => {
    const { plan, stats } = await explained({ nope: { $exists: false } }, { startTime: 1 }, 5);
    expect(plan).toContain('"stage":"COLLSCAN"');
    expect(stats.totalDocsExamined).toBe(N);
  });
});

describe('a page no candidate finds within the trial', () => {
  it('is read through the index that gives the sort, not sorted whole (mongod: noSortBonus)', async () => {
    // 12,500 meetings of organisation 0, of which only the 100 oldest match: no plan has a result
    // within its 10,000 trial works, so the tie decides. A blocking sort would read all 12,500.
    const late = client
      .db('planner')
      .collection<{ _id: number; orgId: number; archived: boolean; startTime: Date }>('late');
    await late.insertMany(
      Array.from({ length: 25_000 }, (_, i) => ({
        _id: i,
        orgId: i % 2,
        archived: i < 200,
        startTime: new Date(base + i * 60_000),
      })),
    );
    await late.createIndexes([{ key: { orgId: 1 } }, { key: { orgId: 1, startTime: -1 } }]);
    const query = () => late.find({ orgId: 0, archived: true }).sort({ startTime: -1 }).limit(5);
    const out = await query().explain('executionStats');
    const plan = JSON.stringify(out.queryPlanner.winningPlan);
    expect(plan).not.toContain('"stage":"SORT"');
    expect(plan).toContain('"indexName":"orgId_1_startTime_-1"');
    expect((await query().toArray()).map((m) => m._id)).toEqual([198, 196, 194, 192, 190]);
  });
});

describe('the plan cache', () => {
  // One query shape, two windows: created before the newest third (read newest first, its page
  // comes after a third of the collection) and created before the 100th oldest (its page is the
  // last hundred: the created index finds them at once). No plan gives the first a match within
  // the trial; a plan chosen so must not be kept for the second.
  it('keeps no plan a trial chose without a match, and replaces one that overruns its works', async () => {
    type Doc = { _id: number; orgId: number; createdAt: number; startTime: number };
    const db = client.db('plan-cache');
    const docs = db.collection<Doc>('meetings');
    const n = 36_000;
    await docs.insertMany(
      Array.from({ length: n }, (_, i) => ({ _id: i, orgId: 1, createdAt: i, startTime: i })),
    );
    await docs.createIndexes([
      { key: { orgId: 1, startTime: -1, _id: -1 } },
      { key: { orgId: 1, createdAt: -1 } },
    ]);
    const page = (before: number) =>
      docs
        .find({ orgId: 1, createdAt: { $lt: before } })
        .sort({ startTime: -1, _id: -1 })
        .limit(10)
        .toArray();
    await db.command({ profile: 2 });
    const examined = async () => {
      const [last] = await db
        .collection('system.profile')
        .find({ ns: 'plan-cache.meetings', op: 'query' })
        .sort({ ts: -1 })
        .limit(1)
        .toArray();
      return last!.docsExamined as number;
    };
    const oldest = async () => {
      expect((await page(100)).map((d) => d._id)).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90]);
      return examined();
    };
    expect(await oldest()).toBeLessThan(1_000);
    expect(await oldest()).toBeLessThan(1_000); // its plan, cached
    // The window: the cached plan overruns (it sorts two thirds of the collection), the candidates
    // race again, and none has a match within the trial.
    for (let i = 0; i < 3; i++) expect((await page(2 * (n / 3)))[0]!._id).toBe(2 * (n / 3) - 1);
    // Neither the window's plan (reading all 36,000 newest first) nor an overrun: a fresh race.
    expect(await oldest()).toBeLessThan(1_000);
    expect(await oldest()).toBeLessThan(1_000);
    await db.command({ profile: 0 });
  });
});
