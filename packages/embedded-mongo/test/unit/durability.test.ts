// The embedded engine with a data directory: what the driver was told is written is there after a
// restart (close and reopen, or SIGKILL of the process hosting it), collections, indexes and all.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { BSON, Decimal128, Double, Int32, Long, MongoClient, ObjectId } from 'mongodb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedMongo } from '../../src/index.js';
import { startEngineProcess } from '../../src/process.js';
import { cleanUp, closeOpened, dataDir, opened, start } from './engines.js';

/** A data directory holding an LMDB store another writer left: `key` = `value` in database `db`. */
async function lmdbStoreWith(db: string, key: string, value: unknown): Promise<string> {
  const dir = dataDir();
  const store = open({ path: dir, maxDbs: 4 });
  await store.openDB(db, {}).put(key, value);
  await store.close();
  return dir;
}

/** What a closed store's `text` database holds: its entries, and the indexes (storage ids) they belong to. */
function textEntries(dir: string): { entries: number; indexes: string[] } {
  const store = open({ path: dir, maxDbs: 8 });
  try {
    const keys = [...store.openDB('text', { encoding: 'binary' }).getKeys()] as unknown[][];
    return { entries: keys.length, indexes: [...new Set(keys.map((key) => String(key[0])))] };
  } finally {
    store.close();
  }
}

interface Note {
  _id: number;
  body: string;
}

/** A store in `dir` holding `notes` with a text index on their body, closed again. */
async function writeNotes(dir: string, notes: Note[]): Promise<void> {
  const { client } = await start({ path: dir });
  const collection = client.db('app').collection<Note>('notes');
  await collection.createIndex({ body: 'text' });
  await collection.insertMany(notes);
  await closeOpened();
}

async function phrase(client: MongoClient, search: string): Promise<unknown[]> {
  const found = await client
    .db('app')
    .collection<Note>('notes')
    .find({ $text: { $search: search } })
    .sort({ _id: 1 })
    .toArray();
  return found.map((d) => d._id);
}

afterEach(cleanUp);

async function snapshot(client: MongoClient, dbName: string) {
  const db = client.db(dbName);
  const collections = await db.listCollections().toArray();
  const result: Record<string, unknown> = {};
  for (const info of collections.sort((a, b) => a.name.localeCompare(b.name))) {
    result[info.name] = {
      options: (info as { options?: unknown }).options,
      uuid: (info as { info?: { uuid?: unknown } }).info?.uuid,
      // A view has no indexes: listIndexes refuses it (166), as on mongod.
      indexes: info.type === 'view' ? [] : await db.collection(info.name).listIndexes().toArray(),
      documents: await db.collection(info.name).find().toArray(),
    };
  }
  return result;
}

describe('embedded engine with a data directory', () => {
  it('finds every collection, index and document again after close and reopen', async () => {
    const dir = dataDir();
    const first = await start({ path: dir });
    const db = first.client.db('app');
    await db.createCollection('with-options', { storageEngine: { wiredTiger: {} } });
    const people = db.collection('people');
    await people.createIndex({ email: 1 }, { unique: true });
    await people.createIndex(
      { team: 1, age: -1 },
      { name: 'team_age', partialFilterExpression: { age: { $gt: 0 } } },
    );
    await people.insertMany(
      Array.from({ length: 50 }, (_, i) => ({
        _id: new ObjectId(),
        email: `p${i}@x.io`,
        team: i % 3,
        age: i,
        big: Long.fromString('9007199254740993'),
        when: new Date(1_700_000_000_000 + i),
        tags: ['a', { b: i }],
      })),
    );
    await people.updateMany({ team: 1 }, { $set: { moved: true }, $inc: { age: 100 } });
    await people.deleteMany({ team: 2 });
    await people.replaceOne({ email: 'p0@x.io' }, { email: 'p0@x.io', replaced: true });
    const scratch = db.collection('scratch');
    await scratch.insertOne({ gone: true });
    await scratch.createIndex({ gone: 1 });
    await scratch.drop();
    await db.collection('old-name').insertMany([{ n: 1 }, { n: 2 }]);
    await db.collection('old-name').createIndex({ n: 1 });
    await db.renameCollection('old-name', 'new-name');
    // $out puts a new collection in place of the old one, whole.
    await db.collection('team0').insertOne({ replaced: 'by $out' });
    await people.aggregate([{ $match: { team: 0 } }, { $out: 'team0' }]).toArray();
    await people.aggregate([{ $match: { team: 1 } }, { $out: 'team1' }]).toArray();
    await first.client.db('other').collection('c').insertOne({ x: 1 });
    await first.client.db('other').dropDatabase();
    // Each number keeps its BSON type on disk too (5.0 stays a double, 5 as Int64 a long).
    const numbers = {
      i: new Int32(5),
      d: new Double(5),
      l: Long.fromNumber(5),
      m: Decimal128.fromString('5.5'),
    };
    await db.collection('numbers').insertOne(numbers);
    const before = await snapshot(first.client, 'app');
    await closeOpened();

    const second = await start({ path: dir });
    expect(await snapshot(second.client, 'app')).toEqual(before);
    expect(Object.keys(before).sort()).toEqual([
      'new-name',
      'numbers',
      'people',
      'team0',
      'team1',
      'with-options',
    ]);
    const raw = await second.client.db('app').collection('numbers').findOne({}, { promoteValues: false });
    expect(
      Object.fromEntries(Object.entries(raw!).map(([k, v]) => [k, (v as { _bsontype?: string })._bsontype])),
    ).toEqual({
      _id: 'ObjectId',
      i: 'Int32',
      d: 'Double',
      l: 'Long',
      m: 'Decimal128',
    });
    const dbs = await second.client.db('admin').admin().listDatabases({ nameOnly: true });
    expect(dbs.databases.map((d) => d.name)).not.toContain('other');
    // The unique index is rebuilt from the documents and still enforced.
    await expect(
      second.client.db('app').collection('people').insertOne({ email: 'p3@x.io' }),
    ).rejects.toMatchObject({ code: 11000 });
    // Natural order and new writes carry on after the restored records.
    await second.client.db('app').collection('new-name').insertOne({ n: 3 });
    const ns = await second.client.db('app').collection('new-name').find().toArray();
    expect(ns.map((d) => d.n)).toEqual([1, 2, 3]);
  });

  it('keeps a text index: its definition, and searches over documents written before the restart', async () => {
    const dir = dataDir();
    const first = await start({ path: dir });
    const notes = first.client.db('app').collection<any>('notes');
    await notes.createIndex(
      { title: 'text', 'entries.text': 'text' },
      { name: 'search', weights: { title: 10 }, default_language: 'english', language_override: 'lang' },
    );
    await notes.insertMany([
      { _id: 1, title: 'Roadmap', entries: [{ text: 'we discussed the launch' }] },
      { _id: 2, title: 'Launch', entries: [{ text: 'launches happen on Fridays' }] },
      { _id: 3, title: 'Other', entries: [{ text: 'nothing relevant' }] },
    ]);
    await notes.updateOne({ _id: 3 }, { $set: { 'entries.0.text': 'a late launch' } });
    await notes.deleteOne({ _id: 1 });
    const search = (client: MongoClient) =>
      client
        .db('app')
        .collection<any>('notes')
        .find({ $text: { $search: 'launching' } }, { projection: { score: { $meta: 'textScore' } } })
        .sort({ score: { $meta: 'textScore' } })
        .toArray();
    const before = await search(first.client);
    expect(before.map((d) => d._id)).toEqual([2, 3]);
    const indexes = await notes.listIndexes().toArray();
    await closeOpened();

    const second = await start({ path: dir });
    expect(await second.client.db('app').collection('notes').listIndexes().toArray()).toEqual(indexes);
    expect(await search(second.client)).toEqual(before);
  });

  it('keeps the text index in the store: reopening reads its entries, it builds nothing', async () => {
    const dir = dataDir();
    const first = await start({ path: dir });
    const notes = first.client.db('app').collection<Note>('notes');
    await notes.createIndex({ body: 'text' });
    await notes.insertMany([
      { _id: 1, body: 'the budget roadmap' },
      { _id: 2, body: 'café budget roadmap' },
      { _id: 3, body: 'roadmap, budget' },
    ]);
    await notes.updateOne({ _id: 3 }, { $set: { body: 'a budget roadmap' } });
    await closeOpened();
    const stored = textEntries(dir);
    expect(stored.indexes.length).toBe(1);

    const second = await start({ path: dir });
    expect(await phrase(second.client, '"budget roadmap"')).toEqual([1, 2, 3]);
    await closeOpened();
    // A rebuild would have written the entries again under a new storage id.
    expect(textEntries(dir)).toEqual(stored);
  });

  it('answers a search after every change to the records of its words, the postings read before kept only until then', async () => {
    // Durable: each reply waits for its commit, so the next search reads LMDB, not pending changes.
    const { client } = await start({ path: dataDir() });
    const notes = client.db('app').collection<Note>('notes');
    await notes.createIndex({ body: 'text' });
    await notes.insertMany([
      { _id: 1, body: 'budget review' },
      { _id: 2, body: 'budget roadmap' },
    ]);
    const ids = async (words: string) =>
      (await notes.find({ $text: { $search: words } }, { projection: { _id: 1 } }).toArray())
        .map((n) => n._id)
        .sort();
    expect(await ids('budget')).toEqual([1, 2]);
    expect(await ids('budget')).toEqual([1, 2]); // kept from the search before
    await notes.insertOne({ _id: 3, body: 'the budgets' });
    expect(await ids('budget')).toEqual([1, 2, 3]);
    await notes.updateOne({ _id: 1 }, { $set: { body: 'review only' } });
    expect(await ids('budget')).toEqual([2, 3]);
    expect(await ids('review')).toEqual([1]);
    // Phrases read where words stand: the same words in another order.
    expect(await ids('"budget roadmap"')).toEqual([2]);
    await notes.updateOne({ _id: 2 }, { $set: { body: 'roadmap budget' } });
    expect(await ids('"budget roadmap"')).toEqual([]);
    expect(await ids('"roadmap budget"')).toEqual([2]);
    await notes.deleteOne({ _id: 2 });
    expect(await ids('budget roadmap')).toEqual([3]);
    await notes.deleteMany({});
    expect(await ids('budget')).toEqual([]);
    await notes.insertOne({ _id: 4, body: 'budget again' });
    expect(await ids('budget')).toEqual([4]);
    // Dropped and built again over documents already there.
    await notes.dropIndexes();
    await notes.insertOne({ _id: 5, body: 'budget five' });
    await notes.createIndex({ body: 'text' });
    expect(await ids('budget')).toEqual([4, 5]);
  });

  it("removes a text index's entries when the index or its collection is dropped", async () => {
    const dir = dataDir();
    const { client } = await start({ path: dir });
    const notes = client.db('app').collection<Note>('notes');
    await notes.createIndex({ body: 'text' }, { name: 'search' });
    await notes.insertMany([{ _id: 1, body: 'budget roadmap' }]);
    await notes.dropIndex('search');
    await notes.createIndex({ body: 'text' }, { name: 'search' });
    expect(await phrase(client, '"budget roadmap"')).toEqual([1]);
    await client.db('app').dropCollection('notes');
    await closeOpened();
    expect(textEntries(dir)).toEqual({ entries: 0, indexes: [] });
  });

  it('removes on open the text entries no index names (a build a crash cut short)', async () => {
    const dir = dataDir();
    await writeNotes(dir, [{ _id: 1, body: 'budget roadmap' }]);
    const kept = textEntries(dir);
    const store = open({ path: dir, maxDbs: 8 });
    const texts = store.openDB('text', { encoding: 'binary' });
    await texts.put(['cut-short', 0, 'budget', 7], new Uint8Array(8));
    await texts.put(['cut-short', 3, 'budget'], new Uint8Array([1]));
    await store.close();

    const second = await start({ path: dir });
    expect(await phrase(second.client, '"budget roadmap"')).toEqual([1]);
    await closeOpened();
    expect(textEntries(dir)).toEqual(kept);
  });

  it.each([
    1, 2,
  ])('builds the indexes a layout %i store kept no entries for once, and marks it layout 3', async (layout) => {
    const dir = dataDir();
    await writeNotes(dir, [
      { _id: 1, body: 'budget roadmap' },
      { _id: 2, body: 'roadmap budget' },
    ]);
    const { client } = await start({ path: dir });
    await client.db('app').collection('notes').createIndex({ body: 1 }, { unique: true });
    await closeOpened();
    // As an older layout left a store: no ordered index entries (nor text ones in layout 1), no
    // count of documents, and no storage named in the catalog but layout 2's text index's.
    const old = open({ path: dir, maxDbs: 8 });
    await old.openDB('keys', { encoding: 'binary', keyEncoding: 'binary' }).drop();
    if (layout === 1) await old.openDB('text', { encoding: 'binary' }).drop();
    const catalog = old.openDB<Uint8Array, string>('catalog', { encoding: 'binary' });
    for (const { key, value } of catalog.getRange()) {
      const { storage, multikey: _, ...entry } = BSON.deserialize(value);
      if (layout === 2) entry.text = storage[`body_text`];
      await catalog.put(key, BSON.serialize(entry));
    }
    const meta = old.openDB<number, string>('meta', {});
    for (const key of meta.getKeys()) if (key.startsWith('count ')) await meta.remove(key);
    await meta.put('layout', layout);
    await old.close();

    const second = await start({ path: dir });
    const notes = second.client.db('app').collection<Note>('notes');
    expect(await phrase(second.client, '"budget roadmap"')).toEqual([1]);
    const byBody = notes.find({ body: 'roadmap budget' }).hint('body_1');
    expect(await byBody.toArray()).toEqual([{ _id: 2, body: 'roadmap budget' }]);
    await expect(notes.insertOne({ _id: 3, body: 'roadmap budget' })).rejects.toThrow(/E11000/);
    expect(await notes.estimatedDocumentCount()).toBe(2);
    await closeOpened();
    const built = textEntries(dir);
    expect(built.indexes.length).toBe(1);
    const marked = open({ path: dir, maxDbs: 8 });
    expect(marked.openDB('meta', {}).get('layout')).toBe(3);
    const keys = [...marked.openDB('keys', { encoding: 'binary', keyEncoding: 'binary' }).getKeys()];
    expect(keys.length).toBe(4); // _id and body, two notes each
    await marked.close();

    await start({ path: dir });
    await closeOpened();
    expect(textEntries(dir)).toEqual(built);
  });

  it('reuses the pages writes free: queries whose plans raced hold no old snapshot', async () => {
    const dir = dataDir();
    /** Pages the store's file has used, read once the engine is closed. */
    const pagesUsed = () => {
      const store = open({ path: dir, maxDbs: 8, readOnly: true });
      try {
        return (store.getStats() as { lastPageNumber: number }).lastPageNumber;
      } finally {
        store.close();
      }
    };
    // Each round rewrites every document's indexed fields, then runs a query two indexes can answer
    // (the planner races both and keeps one), which stops after a page.
    const churn = async (rounds: number) => {
      const { client } = await start({ path: dir });
      const items = client.db('churn').collection<{ _id: number; a: number; b: number }>('items');
      await items.createIndexes([{ key: { a: 1 } }, { key: { b: 1 } }]);
      for (let round = 0; round < rounds; round++) {
        await items.bulkWrite(
          Array.from({ length: 300 }, (_, i) => ({
            replaceOne: {
              filter: { _id: i },
              replacement: { a: (i * 7 + round) % 300, b: round },
              upsert: true,
            },
          })),
        );
        expect(
          await items
            .find({ a: { $gte: 0 }, b: round })
            .limit(5)
            .toArray(),
        ).toHaveLength(5);
      }
      await closeOpened();
      return pagesUsed();
    };
    const settled = await churn(25);
    const later = await churn(100);
    // Without reuse the file grows with every round: four times the rounds, some four times the pages.
    expect(later).toBeLessThan(settled * 1.5);
  });

  it('answers any number of queries whose index scans stop early or fail midway (LMDB has 126 readers)', async () => {
    const { client } = await start({ path: dataDir() });
    const items = client
      .db('readers')
      .collection<{ _id: number; a: number; b: number; zero: number; round?: number }>('items');
    await items.createIndex({ a: 1, b: 1 });
    await items.insertMany(
      Array.from({ length: 50 }, (_, i) => ({ _id: i, a: i % 3, b: i, zero: i < 40 ? 1 : 0 })),
    );
    for (let i = 0; i < 200; i++) {
      // A commit between reads: a scan left open would keep the read transaction from before it.
      await items.updateOne({ _id: 49 }, { $set: { round: i } });
      // Two scans merged in `b` order (SORT_MERGE), stopped after the first.
      const [first] = await items
        .find({ a: { $in: [1, 2] } })
        .sort({ b: 1 })
        .limit(1)
        .toArray();
      expect(first?._id).toBe(1);
      // A scan that fails at its 41st document.
      await expect(
        items
          .find({ a: { $gte: 0 }, $expr: { $gt: [{ $divide: [1, '$zero'] }, 0] } })
          .hint('a_1_b_1')
          .toArray(),
      ).rejects.toThrow(/divide/);
    }
  });

  it("keeps a client bulkWrite's writes to collections of two databases", async () => {
    const dir = dataDir();
    const first = await start({ path: dir });
    await first.client.db('app').collection<{ _id: number; n: number }>('items').insertOne({ _id: 1, n: 0 });
    await first.client.bulkWrite<Record<string, { _id: number | string; [field: string]: unknown }>>([
      { name: 'insertOne', namespace: 'app.items', document: { _id: 2, n: 0 } },
      { name: 'updateOne', namespace: 'app.items', filter: { _id: 1 }, update: { $inc: { n: 1 } } as never },
      { name: 'insertOne', namespace: 'audit.log', document: { _id: 'e1', what: 'bulk' } },
      { name: 'deleteOne', namespace: 'app.items', filter: { _id: 2 } },
    ]);
    await closeOpened();

    const second = await start({ path: dir });
    expect(await second.client.db('app').collection('items').find().toArray()).toEqual([{ _id: 1, n: 1 }]);
    expect(await second.client.db('audit').collection('log').find().toArray()).toEqual([
      { _id: 'e1', what: 'bulk' },
    ]);
  });

  it('keeps views, validators and collMod changes across a restart', async () => {
    const dir = dataDir();
    const first = await start({ path: dir });
    const db = first.client.db('app');
    await db.collection<{ _id: number; age: number; x: number }>('people').insertMany([
      { _id: 1, age: 30, x: 1 },
      { _id: 2, age: 10, x: 2 },
    ]);
    await db.createCollection('adults', { viewOn: 'people', pipeline: [{ $match: { age: { $gte: 18 } } }] });
    await db.command({ collMod: 'adults', viewOn: 'people', pipeline: [{ $match: { age: { $lt: 18 } } }] });
    await db.command({
      collMod: 'people',
      validator: { age: { $type: 'int' } },
      validationLevel: 'moderate',
    });
    await db.collection('people').createIndex({ x: 1 });
    await db.command({ collMod: 'people', index: { keyPattern: { x: 1 }, hidden: true } });
    await db.command({ collMod: 'people', index: { keyPattern: { x: 1 }, prepareUnique: true } });
    await db.command({ collMod: 'people', index: { keyPattern: { x: 1 }, unique: true } });
    const before = await snapshot(first.client, 'app');
    await closeOpened();

    const second = await start({ path: dir });
    const again = second.client.db('app');
    expect(await snapshot(second.client, 'app')).toEqual(before);
    expect(await again.collection('adults').find().toArray()).toEqual([{ _id: 2, age: 10, x: 2 }]);
    const refused = await again
      .collection('people')
      .insertOne({ age: 'old' })
      .catch((e) => e);
    expect(refused.code).toBe(121);
    const duplicate = await again
      .collection('people')
      .insertOne({ age: 5, x: 1 })
      .catch((e) => e);
    expect(duplicate.code).toBe(11000);
    const index = (await again.collection('people').listIndexes().toArray()).find((i) => i.name === 'x_1');
    expect(index).toMatchObject({ hidden: true, unique: true });
  });

  it('refuses a second engine on a directory in use, with a message naming it', async () => {
    const dir = dataDir();
    await start({ path: dir });
    await expect(startEmbeddedMongo({ path: dir })).rejects.toThrow(/data directory .* is in use by process/);
  });

  it('refuses a directory whose data file is not LMDB, naming it (LMDB itself would crash)', async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, 'data.mdb'), Buffer.alloc(64 * 1024, 0x5a));
    await expect(startEmbeddedMongo({ path: dir })).rejects.toThrow(
      `cannot use ${dir} as its data directory: its data.mdb is not an LMDB data file`,
    );
    // Refused before anything was held: the directory is free again.
    await expect(startEmbeddedMongo({ path: dir })).rejects.toThrow(/not an LMDB data file/);
  });

  it("refuses another program's LMDB store, and a layout it does not read", async () => {
    const foreign = await lmdbStoreWith('sessions', 'a', 1);
    await expect(startEmbeddedMongo({ path: foreign })).rejects.toThrow(
      'it holds an LMDB store this engine did not write (databases sessions)',
    );

    const newer = await lmdbStoreWith('meta', 'layout', 4);
    await expect(startEmbeddedMongo({ path: newer })).rejects.toThrow(
      'it was written in layout 4 by another version of the engine, which reads layout 3',
    );
  });

  it('opens a store written before the layout marker, data and all, and marks it', async () => {
    const dir = dataDir();
    const { client, engine } = await start({ path: dir });
    await client
      .db('old')
      .collection<{ _id: number; name: string }>('items')
      .insertOne({ _id: 1, name: 'kept' });
    await client.close();
    await engine.close();
    opened.splice(0);
    // As the engine wrote stores before it kept a marker.
    const store = open({ path: dir, maxDbs: 4 });
    await store.openDB('meta', {}).remove('layout');
    await store.close();

    const { client: reopened } = await start({ path: dir });
    expect(await reopened.db('old').collection('items').find().toArray()).toEqual([{ _id: 1, name: 'kept' }]);
  });

  // A filesystem that fills: a tmpfs of 8 MB, which needs the right to mount (root here and on CI).
  const smallDisk = path.join(tmpdir(), `embedded-mongo-full-${process.pid}`);
  mkdirSync(smallDisk, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', smallDisk]).status === 0;
  afterAll(() => {
    if (mounted) spawnSync('umount', [smallDisk]);
    rmSync(smallDisk, { recursive: true, force: true });
  });

  it.skipIf(!mounted)(
    'on a full disk fails the write with OutOfDiskSpace, refuses what follows, and loses nothing acknowledged',
    async () => {
      const dir = path.join(smallDisk, 'data');
      const { client } = await start({ path: dir });
      const items = client.db('full').collection<{ _id: number; body: string }>('items');
      let acknowledged = 0;
      let failure: { code?: number; message: string } | undefined;
      for (let i = 0; i < 200 && !failure; i++) {
        try {
          await items.insertOne({ _id: i, body: 'x'.repeat(100_000) });
          acknowledged++;
        } catch (error) {
          failure = error as { code?: number; message: string };
        }
      }
      // mongod's OutOfDiskSpace, naming the disk: lmdb itself says only "Input/output error".
      expect(failure).toMatchObject({ code: 14031, codeName: 'OutOfDiskSpace' });
      expect(failure!.message).toMatch(
        /could not save to disk and stopped accepting commands: the disk holding \S+ is full \(\d+ bytes free\)/,
      );
      await expect(items.findOne({ _id: 0 })).rejects.toMatchObject({ code: 14031 });
      await closeOpened();

      const { client: reopened } = await start({ path: dir });
      const kept = reopened.db('full').collection('items');
      expect(await kept.countDocuments()).toBe(acknowledged);
      expect(await kept.estimatedDocumentCount()).toBe(acknowledged);
      expect(acknowledged).toBeGreaterThan(10);
    },
  );

  it('keeps every acknowledged write when the hosting process is killed mid-burst', async () => {
    const dir = dataDir();
    const child = await startEngineProcess({ path: dir });
    const client = await new MongoClient(child.uri, {
      serverSelectionTimeoutMS: 2000,
      maxPoolSize: 8,
    }).connect();
    const coll = client.db('crash').collection('items');
    await coll.createIndex({ k: 1 }, { unique: true });
    // Its keys move with each update.
    await coll.createIndex({ check: -1 });
    const acknowledged = new Map<number, number>(); // k → version acknowledged last
    const payload = 'x'.repeat(2000);
    let killed = false;
    const writer = async (lane: number) => {
      for (let i = 0; !killed; i++) {
        const k = lane * 1_000_000 + i;
        try {
          await coll.insertOne({ k, version: 1, payload, check: k * 7 });
          acknowledged.set(k, 1);
          await coll.updateOne({ k }, { $set: { version: 2, check: k * 11 } });
          acknowledged.set(k, 2);
        } catch {
          return;
        }
      }
    };
    const lanes = [0, 1, 2, 3].map(writer);
    while (acknowledged.size < 200) await new Promise((r) => setTimeout(r, 5));
    child.signal('SIGKILL');
    killed = true;
    await Promise.all(lanes);
    await client.close(true);
    await new Promise((resolve) =>
      child.child.exitCode !== null || child.child.signalCode
        ? resolve(undefined)
        : child.child.once('exit', resolve),
    );

    const { client: reopened } = await start({ path: dir });
    const docs = await reopened.db('crash').collection('items').find().toArray();
    const byK = new Map(docs.map((d) => [d.k as number, d]));
    for (const [k, version] of acknowledged) {
      const doc = byK.get(k);
      expect(doc, `acknowledged k=${k}`).toBeDefined();
      expect(doc!.version).toBeGreaterThanOrEqual(version);
    }
    // Nothing torn: each document is whole, in one of the states a write left it in.
    for (const doc of docs) {
      expect(doc.payload).toBe(payload);
      expect(doc.check).toBe(doc.k * (doc.version === 1 ? 7 : 11));
    }
    const items = reopened.db('crash').collection('items');
    // The count kept with the documents (opening reads it) is theirs.
    expect(await items.estimatedDocumentCount()).toBe(docs.length);
    const indexes = await items.listIndexes().toArray();
    expect(indexes.map((i) => i.name)).toEqual(['_id_', 'k_1', 'check_-1']);
    // Each index holds exactly one entry per document, under its current key, as rebuilding it
    // from them would: a full scan examines as many keys as there are documents, and a scan of each
    // document's key finds it.
    for (const [index, field] of [
      ['_id_', '_id'],
      ['k_1', 'k'],
      ['check_-1', 'check'],
    ] as const) {
      const explained = await items.find({}).hint(index).explain('executionStats');
      expect(explained.executionStats.totalKeysExamined, index).toBe(docs.length);
      expect(explained.executionStats.nReturned, index).toBe(docs.length);
      for (const doc of docs.slice(0, 50)) {
        const found = await items
          .find({ [field]: doc[field] })
          .hint(index)
          .toArray();
        expect(
          found.map((d) => String(d._id)),
          `${index} ${String(doc[field])}`,
        ).toEqual([String(doc._id)]);
      }
    }
  });
});
