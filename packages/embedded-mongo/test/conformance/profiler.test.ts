// The database profiler (the manual: "Database Profiler", the `profile` command and "Database
// Profiler Output"): `profile` sets a database's level and answers the settings it replaced;
// profiled operations land in `<db>.system.profile` with their op, namespace, command, what they
// examined and returned, and a `planSummary` naming the index that served them, or COLLSCAN.
import { BSON, type Document } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;
/** The server's slowms before the tests (global on mongod): put back at the end. */
let slowms: number;

type Item = { _id: number } & Document;
const coll = () => target.db.collection<Item>('items');
const ns = () => `${target.db.databaseName}.items`;

beforeAll(async () => {
  target = await connectTarget('profiler');
  await coll().insertMany(
    Array.from({ length: 30 }, (_, i) => ({ _id: i, a: i % 10, b: `b${i % 3}`, c: i })),
  );
  await coll().createIndex({ a: 1 });
  const settings = await target.db.command({ profile: -1 });
  slowms = settings.slowms;
});

afterEach(async () => {
  await target.db.command({ profile: 0, slowms, filter: 'unset' });
  await target.db.collection('system.profile').drop();
});

afterAll(async () => {
  await target?.close();
});

/** Profiles what `fn` does at level 2; returns the entries on `items`, oldest first. */
async function profiled(fn: () => Promise<unknown>): Promise<Document[]> {
  await target.db.command({ profile: 2 });
  await fn();
  await target.db.command({ profile: 0 });
  return target.db.collection('system.profile').find({ ns: ns() }).sort({ ts: 1 }).toArray();
}

describe('the profile command', () => {
  it('answers the settings it replaced: was, slowms, sampleRate', async () => {
    const first = await target.db.command({ profile: 1, slowms: 250, sampleRate: 0.5 });
    expect(first).toMatchObject({ was: 0, slowms, sampleRate: 1, ok: 1 });
    const second = await target.db.command({ profile: -1 });
    expect(second).toMatchObject({ was: 1, slowms: 250, sampleRate: 0.5, ok: 1 });
    await target.db.command({ profile: 0, sampleRate: 1 });
  });

  it('is what the driver sets and reads the profiling level with', async () => {
    expect(await target.db.profilingLevel()).toBe('off');
    await target.db.setProfilingLevel('all');
    expect(await target.db.profilingLevel()).toBe('all');
    await target.db.setProfilingLevel('slow_only');
    expect(await target.db.profilingLevel()).toBe('slow_only');
  });

  it('refuses a sampleRate outside [0, 1] and a filter that is neither an object nor "unset"', async () => {
    await expect(target.db.command({ profile: 0, sampleRate: 2 })).rejects.toMatchObject({ code: 2 });
    await expect(target.db.command({ profile: 0, filter: 'none' })).rejects.toMatchObject({ code: 2 });
  });

  it('only reads the settings for a level outside 0..2', async () => {
    await target.db.command({ profile: 1 });
    expect(await target.db.command({ profile: 5 })).toMatchObject({ was: 1 });
    expect(await target.db.command({ profile: -1 })).toMatchObject({ was: 1 });
  });

  it('answers the filter it replaced, with a note', async () => {
    await target.db.command({ profile: 1, filter: { millis: { $gt: 1000 } } });
    const reply = await target.db.command({ profile: 0, filter: 'unset' });
    expect(reply).toMatchObject({ was: 1, filter: { millis: { $gt: 1000 } }, note: expect.any(String) });
    expect(await target.db.command({ profile: -1 })).not.toHaveProperty('filter');
  });

  it('profiles nothing at level 0, and at level 1 only what its filter selects', async () => {
    await coll().findOne({ a: 3 });
    expect(await target.db.collection('system.profile').countDocuments({ ns: ns() })).toBe(0);
    await target.db.command({ profile: 1, filter: { op: 'query' } });
    await coll().find({ a: 4 }).toArray();
    await coll().updateOne({ a: 4 }, { $set: { d: 1 } });
    await target.db.command({ profile: 0 });
    const ops = await target.db.collection('system.profile').distinct('op', { ns: ns() });
    expect(ops).toEqual(['query']);
  });
});

describe('system.profile entries', () => {
  it('a find served by an index: op query, the command, IXSCAN, what it examined and returned', async () => {
    const [entry, ...rest] = await profiled(() => coll().find({ a: 3 }).toArray());
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      op: 'query',
      ns: ns(),
      command: { find: 'items', filter: { a: 3 } },
      planSummary: 'IXSCAN { a: 1 }',
      docsExamined: 3,
      nreturned: 3,
      cursorExhausted: true,
    });
    expect(entry!.keysExamined).toBeGreaterThanOrEqual(3);
    expect(entry!.millis).toEqual(expect.any(Number));
    expect(entry!.ts).toBeInstanceOf(Date);
    expect(entry!.client).toEqual(expect.any(String));
  });

  it('a find no index serves is a COLLSCAN that examines every document, and sorts them itself', async () => {
    const [entry] = await profiled(() => coll().find({ b: 'b1' }).sort({ c: -1 }).toArray());
    expect(entry).toMatchObject({
      op: 'query',
      planSummary: 'COLLSCAN',
      docsExamined: 30,
      nreturned: 10,
      hasSortStage: true,
    });
    expect(entry!.keysExamined).toBe(0);
  });

  it('a collection of one document is still read through the index that applies', async () => {
    // mongod plans only with the indexes that apply; a scan is not weighed against them.
    const tiny = target.db.collection('tiny');
    await tiny.insertOne({ slug: 'acme' });
    await tiny.createIndex({ slug: 1 }, { unique: true });
    await target.db.command({ profile: 2 });
    await tiny.findOne({ slug: 'acme' });
    await target.db.command({ profile: 0 });
    const entries = await target.db
      .collection('system.profile')
      .find({ ns: `${target.db.databaseName}.tiny`, op: 'query' })
      .toArray();
    expect(entries.map((e) => e.planSummary)).toEqual(['IXSCAN { slug: 1 }']);
  });

  it('a find by _id takes the _id fast path (IDHACK)', async () => {
    const [entry] = await profiled(() => coll().findOne({ _id: 7 }));
    // mongod 8 names the same fast path EXPRESS_IDHACK / EXPRESS_IXSCAN.
    expect(entry!.planSummary).toMatch(/IDHACK|^EXPRESS_IXSCAN \{ _id: 1 \}$/);
    expect(entry).toMatchObject({ op: 'query', docsExamined: 1, nreturned: 1 });
  });

  it('an aggregation names the plan of its leading $match', async () => {
    const [entry] = await profiled(() =>
      coll()
        .aggregate([{ $match: { a: { $in: [1, 2] } } }, { $group: { _id: '$b', n: { $sum: 1 } } }])
        .toArray(),
    );
    expect(entry).toMatchObject({
      op: 'command',
      command: { aggregate: 'items' },
      planSummary: 'IXSCAN { a: 1 }',
      docsExamined: 6,
    });
  });

  it('count and distinct name their plan', async () => {
    const entries = await profiled(async () => {
      await target.db.command({ count: 'items', query: { a: 5, c: { $gt: 10 } } });
      await coll().distinct('b', { a: 5 });
      await coll().distinct('b', { c: 5 });
    });
    expect(entries.map((e) => [Object.keys(e.command)[0], e.op, e.planSummary])).toEqual([
      ['count', 'command', 'IXSCAN { a: 1 }'],
      ['distinct', 'command', 'IXSCAN { a: 1 }'],
      ['distinct', 'command', 'COLLSCAN'],
    ]);
  });

  it('each update and delete statement is an operation of its own, with its filter and plan', async () => {
    const entries = await profiled(async () => {
      await coll().updateMany({ a: 6 }, { $set: { d: 1 } });
      await coll().deleteOne({ b: 'b2', c: 29 });
    });
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      op: 'update',
      command: { q: { a: 6 }, u: { $set: { d: 1 } }, multi: true, upsert: false },
      planSummary: 'IXSCAN { a: 1 }',
      docsExamined: 3,
      nMatched: 3,
      nModified: 3,
    });
    expect(entries[1]).toMatchObject({
      op: 'remove',
      command: { q: { b: 'b2', c: 29 }, limit: 1 },
      planSummary: 'COLLSCAN',
      ndeleted: 1,
    });
  });

  it('findAndModify is a command with the plan of its query', async () => {
    const [entry] = await profiled(() => coll().findOneAndUpdate({ a: 7 }, { $inc: { c: 100 } }));
    expect(entry).toMatchObject({
      op: 'command',
      command: { findAndModify: 'items', query: { a: 7 } },
      planSummary: 'IXSCAN { a: 1 }',
    });
  });

  it('an insert is profiled with the number it inserted', async () => {
    const [entry] = await profiled(() => coll().insertMany([{ _id: 100 }, { _id: 101 }]));
    expect(entry).toMatchObject({ op: 'insert', command: { insert: 'items' }, ninserted: 2 });
  });

  it('stays bounded: system.profile holds at most 1 MiB (a capped collection on mongod)', async () => {
    const padding = 'x'.repeat(40 * 1024);
    await profiled(async () => {
      for (let i = 0; i < 40; i++) await coll().findOne({ c: -i, pad: padding });
    });
    const entries = await target.db.collection('system.profile').find().toArray();
    const bytes = entries.reduce((sum, e) => sum + BSON.calculateObjectSize(e), 0);
    expect(entries.length).toBeLessThan(40);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
  });
});
