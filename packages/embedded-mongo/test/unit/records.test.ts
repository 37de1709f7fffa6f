// Documents on disk, read on demand through a bounded cache (records.ts, document-cache.ts): what a
// user sees of it. Every read answers what was written, right after the write or after a reopen,
// however small the cache; the cache never holds more than its bound; an in-memory engine leaves
// nothing behind in the temporary directory it used.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MongoClient, ObjectId } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { executeCommand } from '../../src/commands/index.js';
import { DocumentCache } from '../../src/document-cache.js';
import { startEmbeddedMongo } from '../../src/index.js';
import { Store } from '../../src/persistence.js';
import { Engine } from '../../src/storage.js';
import type { Document } from '../../src/values.js';
import { cleanUp, dataDir, opened, start } from './engines.js';

afterEach(cleanUp);

/**
 * An engine without sockets, to run commands one by one, commit when a test says so and look at
 * its cache. Durable, so that a commit's promise tells when it is done.
 */
function engineWithCache(capacityBytes: number): { engine: Engine; store: Store; cache: DocumentCache } {
  const cache = new DocumentCache(capacityBytes);
  const store = Store.open(dataDir(), cache);
  const engine = new Engine(store);
  opened.push(engine);
  return { engine, store, cache };
}

function run(engine: Engine, body: Document): Document {
  const reply = executeCommand(body, { engine, dbName: 'test', connection: { id: 1 } });
  expect(reply.ok).toBe(1);
  return reply;
}

function found(engine: Engine, filter: Document, extra: Document = {}): Document[] {
  const reply = run(engine, { find: 'c', filter, batchSize: 100_000, ...extra });
  return (reply.cursor as { firstBatch: Document[] }).firstBatch;
}

type Numbered = { _id: number | string; group: number; body: string };

/** What in-memory engines left in `dir` (other programs, tsx for one, may keep their own things there). */
function leftBehind(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('embedded-mongo-'));
}

function text(i: number, length: number): string {
  return `${i}:`.padEnd(length, 'abcdefghij'[i % 10]);
}

describe('a commit LMDB refuses', () => {
  it('fails the command and every later one with an error, rather than throwing out of the engine', async () => {
    const { engine, store } = engineWithCache(1 << 20);
    run(engine, { insert: 'c', documents: [{ _id: 1 }] });
    await engine.commit();
    // As lmdb does for a key over its limit: it throws while the batch is being queued.
    const lmdb = store as unknown as { documents: { batch: () => Promise<boolean> } };
    lmdb.documents.batch = () => {
      throw new Error('Key size is larger than the maximum key size (1978)');
    };
    run(engine, { insert: 'c', documents: [{ _id: 2 }] });
    await expect(engine.commit()).rejects.toThrow('maximum key size');
    expect(engine.failure?.message).toContain('maximum key size');
  });
});

describe('a commit that fails on disk', () => {
  it('(a full disk) fails the command with the cause, and every later one, without ending the process', async () => {
    const { engine, store } = engineWithCache(1 << 20);
    // As lmdb fails a commit when the disk is full: a summary error, the cause in a promise of it.
    const lmdb = store as unknown as { documents: { batch: () => Promise<boolean> } };
    lmdb.documents.batch = () =>
      Promise.reject(
        Object.assign(new Error('Commit failed (see commitError for details)'), {
          commitError: Promise.reject(new Error('No space left on device')),
        }),
      );
    run(engine, { insert: 'c', documents: [{ _id: 1 }] });
    await expect(engine.commit()).rejects.toThrow('No space left on device');
    expect(engine.failure?.message).toBe('No space left on device');
  });
});

describe('documents on disk', () => {
  it('a small document read in part, then others, reads back whole as written', async () => {
    const { client } = await start({});
    const c = client.db('app').collection<Numbered>('small');
    const docs = Array.from({ length: 50 }, (_, i) => ({ _id: i, group: i % 5, body: text(i, 40) }));
    await c.insertMany(docs);
    // Partial reads (a projection) of every document, one after another through lmdb's one buffer...
    for (const { _id } of docs)
      expect(await c.findOne({ _id }, { projection: { group: 1 } })).toEqual({ _id, group: _id % 5 });
    // ...leave each cached as it was written.
    expect(await c.find().sort({ _id: 1 }).toArray()).toEqual(docs);
  });

  it('a durable engine reopened answers from disk: reads, counts, and writes after the last id', async () => {
    const dir = dataDir();
    const docs = Array.from({ length: 2000 }, (_, i) => ({ _id: i, group: i % 10, body: text(i, 300) }));
    const first = await startEmbeddedMongo({ path: dir });
    const writer = await new MongoClient(first.uri).connect();
    const written = writer.db('app').collection<Numbered>('c');
    await written.insertMany(docs);
    await written.createIndex({ group: 1 });
    await written.deleteMany({ _id: { $gte: 1990 } });
    // Emptied, and dropped then made again: counts kept with the documents, read back on open.
    const emptied = writer.db('app').collection<{ _id: number }>('emptied');
    await emptied.insertMany([{ _id: 1 }, { _id: 2 }]);
    await emptied.deleteMany({});
    const again = writer.db('app').collection<{ _id: number }>('again');
    await again.insertMany([{ _id: 1 }, { _id: 2 }]);
    await again.drop();
    await again.insertOne({ _id: 3 });
    await writer.close();
    await first.close();
    const { client } = await start({ path: dir, cacheMb: 0.1 });
    const c = client.db('app').collection<Numbered>('c');
    expect(await c.estimatedDocumentCount()).toBe(1990);
    expect(await client.db('app').collection('emptied').estimatedDocumentCount()).toBe(0);
    expect(await client.db('app').collection('again').estimatedDocumentCount()).toBe(1);
    expect(await c.findOne({ _id: 1234 })).toEqual(docs[1234]);
    expect(await c.find({ group: 3 }).toArray()).toEqual(docs.filter((d) => d.group === 3 && d._id < 1990));
    expect(await c.find().toArray()).toEqual(docs.slice(0, 1990));
    // A new document comes after every stored one in natural order.
    await c.insertOne({ _id: 'new', group: 3, body: 'x' });
    expect((await c.find().sort({ $natural: -1 }).limit(1).toArray())[0]).toMatchObject({ _id: 'new' });
    await c.updateOne({ _id: 5 }, { $set: { body: 'changed' } });
    expect(await c.findOne({ _id: 5 })).toEqual({ ...docs[5], body: 'changed' });
  });

  it('reads back every document, equal, through a cache much smaller than the data', async () => {
    const { client } = await start({ cacheMb: 0.05 }); // 50 KB for about 3 MB of documents
    const c = client.db('app').collection('c');
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      _id: new ObjectId(),
      n: i,
      tags: [i % 7, `t${i % 13}`],
      nested: { body: text(i, 1000) },
    }));
    await c.insertMany(docs);
    await c.createIndex({ n: 1 });
    for (let from = 0; from < docs.length; from += 500) {
      const slice = docs.slice(from, from + 500);
      expect(await c.find({ _id: { $in: slice.map((d) => d._id) } }).toArray()).toEqual(slice);
      expect(
        await c
          .find({ n: { $gte: from, $lt: from + 500 } })
          .sort({ n: 1 })
          .toArray(),
      ).toEqual(slice);
    }
    expect(await c.find().toArray()).toEqual(docs);
    expect(await c.find().sort({ $natural: -1 }).toArray()).toEqual([...docs].reverse());
  });

  it('a read right after a write sees it, before and after its commit', async () => {
    const { engine, store } = engineWithCache(1 << 20);
    run(engine, { insert: 'c', documents: [{ _id: 1, v: 'first' }] });
    expect(found(engine, { _id: 1 })).toEqual([{ _id: 1, v: 'first' }]); // not committed yet
    const first = store.commit(engine);
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { v: 'second' } } }] });
    expect(found(engine, { _id: 1 })).toEqual([{ _id: 1, v: 'second' }]); // the first commit in flight
    await first;
    expect(found(engine, { _id: 1 })).toEqual([{ _id: 1, v: 'second' }]); // the update not committed
    await store.commit(engine);
    expect(found(engine, { _id: 1 })).toEqual([{ _id: 1, v: 'second' }]);
    expect(found(engine, {})).toEqual([{ _id: 1, v: 'second' }]);
  });

  it('a deleted document is gone for readers at once, by id, by index, by scan and in counts', async () => {
    const { engine, store } = engineWithCache(1 << 20);
    run(engine, {
      insert: 'c',
      documents: [
        { _id: 1, k: 'a' },
        { _id: 2, k: 'b' },
        { _id: 3, k: 'c' },
      ],
    });
    run(engine, { createIndexes: 'c', indexes: [{ key: { k: 1 }, name: 'k_1' }] });
    await store.commit(engine);
    expect(found(engine, { _id: 2 })).toHaveLength(1); // now cached
    run(engine, { delete: 'c', deletes: [{ q: { _id: 2 }, limit: 1 }] });
    expect(found(engine, { _id: 2 })).toEqual([]);
    expect(found(engine, { k: 'b' })).toEqual([]);
    expect(found(engine, {}).map((d) => d._id)).toEqual([1, 3]);
    expect(run(engine, { count: 'c' }).n).toBe(2);
    await store.commit(engine);
    expect(found(engine, {}).map((d) => d._id)).toEqual([1, 3]);
    expect(run(engine, { count: 'c' }).n).toBe(2);
  });

  it('keeps the cache within its bound while far more bytes are written and read', async () => {
    const bound = 64 * 1024;
    const { engine, store, cache } = engineWithCache(bound);
    let written = 0;
    for (let batch = 0; batch < 20; batch++) {
      const documents = Array.from({ length: 100 }, (_, i) => ({
        _id: batch * 100 + i,
        body: text(i, 2000),
      }));
      written += 100 * 2000;
      run(engine, { insert: 'c', documents });
      await store.commit(engine);
      expect(found(engine, { _id: { $gte: batch * 100, $lt: batch * 100 + 100 } })).toHaveLength(100);
      expect(cache.bytes).toBeGreaterThan(0);
      expect(cache.bytes).toBeLessThanOrEqual(bound);
    }
    expect(written).toBeGreaterThan(50 * bound);
    expect(found(engine, {})).toHaveLength(2000);
    expect(cache.bytes).toBeLessThanOrEqual(bound);
  });
});

type Stored = { _id: number } & Record<string, unknown>;

describe('large fields kept apart', () => {
  /** A document whose large fields stand first, in the middle and last, among small ones. */
  const transcript = (i: number, lines: number) => ({
    _id: i,
    lines: Array.from({ length: lines }, (_, n) => ({ n, text: text(n, 40) })),
    title: `meeting ${i}`,
    summary: text(i, 3000),
    owner: 'ada',
    notes: text(i + 1, 2000),
  });
  const fieldsHeld = (store: Store) => [...store.records.fields.getKeys()].length;

  it('reads back whole, in field order, and in part, before and after a reopen', async () => {
    const dir = dataDir();
    const docs: Stored[] = [transcript(1, 500), transcript(2, 800), { _id: 3, small: true }];
    const first = await start({ path: dir });
    await first.client.db('test').collection<Stored>('c').insertMany(docs);
    const check = async (client: MongoClient) => {
      const c = client.db('test').collection<Stored>('c');
      const whole = await c.find({}).sort({ _id: 1 }).toArray();
      expect(whole).toEqual(docs);
      expect(whole.map((d) => Object.keys(d))).toEqual(docs.map((d) => Object.keys(d)));
      expect(await c.find({ owner: 'ada' }, { projection: { title: 1 } }).toArray()).toEqual([
        { _id: 1, title: 'meeting 1' },
        { _id: 2, title: 'meeting 2' },
      ]);
      expect(await c.findOne({ _id: 2 }, { projection: { notes: 1, title: 1, _id: 0 } })).toEqual({
        title: 'meeting 2',
        notes: text(3, 2000),
      });
    };
    await check(first.client);
    await first.client.close();
    await first.engine.close();
    opened.splice(0);
    const second = await start({ path: dir });
    await check(second.client);
  });

  it('answers reads of the head (kept decoded in the cache) as written, after every change', async () => {
    // Durable: a reply waits for its commit, so the reads after it find no change in memory.
    const { client } = await start({ path: dataDir() });
    const c = client.db('test').collection<Stored>('c');
    await c.insertMany([transcript(1, 500), transcript(2, 500)]);
    const titles = () => c.find({}, { projection: { title: 1, _id: 0 } }).toArray();
    expect(await titles()).toEqual([{ title: 'meeting 1' }, { title: 'meeting 2' }]);
    await c.updateOne({ _id: 1 }, { $set: { title: 'renamed' } });
    expect(await titles()).toEqual([{ title: 'renamed' }, { title: 'meeting 2' }]);
    // A field kept apart, asked for after its head was read, and once it is small enough for the head.
    expect(await c.findOne({ _id: 2 }, { projection: { summary: 1, title: 1 } })).toEqual({
      _id: 2,
      title: 'meeting 2',
      summary: text(2, 3000),
    });
    await c.updateOne({ _id: 2 }, { $set: { summary: 'short' } });
    expect(await c.findOne({ _id: 2 }, { projection: { summary: 1 } })).toEqual({ _id: 2, summary: 'short' });
    await c.updateOne({ _id: 2 }, { $set: { summary: text(5, 3000) } });
    expect(await c.findOne({ _id: 2 }, { projection: { summary: 1 } })).toEqual({
      _id: 2,
      summary: text(5, 3000),
    });
    await c.deleteOne({ _id: 1 });
    expect(await titles()).toEqual([{ title: 'meeting 2' }]);
  });

  it('keeps no field apart that a document no longer has there, across commits in flight', async () => {
    const { engine, store } = engineWithCache(1 << 20);
    run(engine, { insert: 'c', documents: [transcript(1, 500), transcript(2, 500)] });
    await engine.commit();
    // Three fields apart each (lines, summary, notes).
    expect(fieldsHeld(store)).toBe(6);
    // Changes one after another, the commits of the first still in flight when the next are taken.
    const commits: Array<Promise<void> | undefined> = [];
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { summary: 'short now' } } }] });
    commits.push(engine.commit());
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $unset: { notes: '' } } }] });
    commits.push(engine.commit());
    run(engine, {
      update: 'c',
      updates: [{ q: { _id: 2 }, u: { $set: { lines: [], extra: text(9, 5000) } } }],
    });
    commits.push(engine.commit());
    run(engine, { delete: 'c', deletes: [{ q: { _id: 2 }, limit: 1 }] });
    run(engine, { insert: 'c', documents: [transcript(3, 500)] });
    commits.push(engine.commit());
    await Promise.all(commits);
    // 1 keeps its lines; 2 is gone; 3 has three.
    expect(fieldsHeld(store)).toBe(4);
    expect(found(engine, { _id: 1 })).toEqual(
      [{ ...transcript(1, 500), summary: 'short now', notes: undefined }].map(
        ({ notes: _, ...rest }) => rest,
      ),
    );
    run(engine, { drop: 'c' });
    await engine.commit();
    expect(fieldsHeld(store)).toBe(0);
  });
});

describe('a sort with a limit', () => {
  // It compares each document by the fields its filter and sort read, then reads whole the few it
  // returns (plan-executor.ts): what it returns must be what the same sort without a limit starts with.
  it('returns whole documents, the first of the same sort without one, with changes in flight', async () => {
    const { engine } = engineWithCache(4096); // a few documents: most come from disk
    const doc = (i: number): Document => ({
      _id: i,
      group: i % 7,
      at: new Date(Date.UTC(2026, 0, 1 + (i % 13))),
      name: i % 5 === 0 ? undefined : `n${i % 11}`,
      ...(i % 9 === 0 ? { lines: Array.from({ length: 600 }, (_, n) => text(n, 40)) } : {}),
      tail: text(i, 30),
    });
    run(engine, { insert: 'c', documents: Array.from({ length: 120 }, (_, i) => doc(i)) });
    run(engine, { createIndexes: 'c', indexes: [{ key: { group: 1 }, name: 'group_1' }] });
    await engine.commit();
    // Changed and removed, their commits still in flight while the queries run.
    run(engine, {
      update: 'c',
      updates: [{ q: { group: 3 }, u: { $set: { at: new Date(0) } }, multi: true }],
    });
    run(engine, { delete: 'c', deletes: [{ q: { _id: { $in: [1, 9, 18] } }, limit: 0 }] });
    const inFlight = engine.commit();
    run(engine, { insert: 'c', documents: [doc(200), doc(207)] });
    const cases: Array<[Document, Document, number, Document?]> = [
      [{}, { at: -1, _id: -1 }, 10],
      [{}, { name: 1, _id: 1 }, 25],
      [{ group: { $in: [2, 3] } }, { at: 1, _id: -1 }, 4], // an index, then the sort
      [{ tail: { $gt: '5' } }, { 'lines.0': -1, _id: 1 }, 6],
      [{ group: { $ne: 0 } }, { at: -1, _id: 1 }, 7, { tail: 1, lines: 1 }],
    ];
    for (const [filter, sort, limit, projection] of cases) {
      const all = found(engine, filter, { sort, ...(projection && { projection }) });
      const page = found(engine, filter, { sort, limit, skip: 2, ...(projection && { projection }) });
      expect(page).toEqual(all.slice(2, 2 + limit));
      if (!projection) expect(page.every((d) => 'tail' in d)).toBe(true);
    }
    await inFlight;
  });
});

describe('the cache', () => {
  it('keeps what point reads use when a scan passes through', () => {
    const cache = new DocumentCache(1000);
    const hot = cache.partition();
    const scanned = cache.partition();
    for (let seq = 1; seq <= 5; seq++) hot.put(seq, { seq }, 100, false);
    for (let seq = 1; seq <= 50; seq++) scanned.put(seq, { seq }, 100, true);
    for (let seq = 1; seq <= 5; seq++) expect(hot.get(seq)).toEqual({ seq });
    expect(scanned.peek(50)).toEqual({ seq: 50 });
    expect(scanned.peek(1)).toBeUndefined();
    expect(cache.bytes).toBe(1000);
    // A point read of a scanned document keeps it as the point reads' own.
    expect(scanned.get(50)).toEqual({ seq: 50 });
    for (let seq = 100; seq < 200; seq++) scanned.put(seq, { seq }, 100, true);
    expect(scanned.peek(50)).toEqual({ seq: 50 });
    // Least recently used first out among the point reads' documents.
    for (let seq = 6; seq <= 14; seq++) hot.put(seq, { seq }, 100, false);
    expect(hot.peek(1)).toBeUndefined();
    expect(hot.peek(14)).toEqual({ seq: 14 });
    expect(cache.bytes).toBe(1000);
  });
});

describe('an in-memory engine', () => {
  const originalTmpdir = process.env.TMPDIR;
  afterEach(() => {
    if (originalTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = originalTmpdir;
  });

  it('leaves no temporary directory behind after close', async () => {
    const dir = dataDir();
    process.env.TMPDIR = dir; // os.tmpdir() reads it
    const engine = await startEmbeddedMongo();
    const client = await new MongoClient(engine.uri).connect();
    await client.db('app').collection('c').insertOne({ a: 1 });
    expect(leftBehind(dir)).toHaveLength(1);
    await client.close();
    await engine.close();
    expect(leftBehind(dir)).toEqual([]);
  });

  it('leaves none behind when its process exits without closing it', () => {
    const dir = dataDir();
    const index = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
    const script = `import { startEmbeddedMongo } from ${JSON.stringify(index)};
      await startEmbeddedMongo();
      process.exit(0);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TMPDIR: dir },
      encoding: 'utf8',
    });
    expect(child.status).toBe(0);
    expect(leftBehind(dir)).toEqual([]);
  });

  it("removes the directory a killed engine left behind when the next one starts, and not a live one's", async () => {
    const dir = dataDir();
    process.env.TMPDIR = dir;
    const index = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
    const script = `import { startEmbeddedMongo } from ${JSON.stringify(index)};
      await startEmbeddedMongo();
      process.kill(process.pid, 'SIGKILL');`;
    const killed = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TMPDIR: dir },
      encoding: 'utf8',
    });
    expect(killed.signal).toBe('SIGKILL');
    const abandoned = leftBehind(dir);
    expect(abandoned).toHaveLength(1);
    const live = await startEmbeddedMongo();
    const second = await startEmbeddedMongo();
    const now = leftBehind(dir);
    expect(now).toHaveLength(2);
    expect(now).not.toContain(abandoned[0]);
    await second.close();
    await live.close();
    expect(leftBehind(dir)).toEqual([]);
  });
});
