// Command arguments as mongod parses them: unknown fields, maxTimeMS, transactions on a standalone.
import { MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('commands');
  await target.db.collection('items').insertMany(Array.from({ length: 30 }, (_, i) => ({ i })));
});

afterAll(async () => {
  await target?.close();
});

const refusal = (command: Record<string, unknown>) =>
  target.db.command(command).then(
    () => undefined,
    (err: unknown) => err as MongoServerError,
  );

describe('unknown command fields (IDL parsing, code 40415)', () => {
  it('a misspelt find option is refused, naming the field', async () => {
    const err = await refusal({ find: 'items', filter: {}, projectoin: { i: 1 } });
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err!.code).toBe(40415);
    expect(err!.message).toBe("BSON field 'find.projectoin' is an unknown field.");
  });

  it('the same for other commands and inside update and delete statements', async () => {
    expect((await refusal({ insert: 'items', documents: [{}], orderd: false }))?.code).toBe(40415);
    expect((await refusal({ aggregate: 'items', pipeline: [], cursor: {}, piepline: [] }))?.code).toBe(40415);
    expect((await refusal({ count: 'items', qeury: {} }))?.code).toBe(40415);
    const update = await refusal({
      update: 'items',
      updates: [{ q: {}, u: { $set: { a: 1 } }, mutli: true }],
    });
    expect(update?.code).toBe(40415);
    expect(update?.message).toBe("BSON field 'update.updates.mutli' is an unknown field.");
    const explained = await refusal({ explain: { find: 'items', filter: {}, projectoin: {} } });
    expect(explained?.code).toBe(40415);
    const del = await refusal({ delete: 'items', deletes: [{ q: {}, limit: 0, justOne: true }] });
    expect(del?.code).toBe(40415);
    expect(await target.db.collection('items').countDocuments()).toBe(30);
  });

  it('every option the driver sends is accepted', async () => {
    const c = target.db.collection('items');
    const session = target.client.startSession();
    try {
      const found = await c
        .find(
          { i: { $gte: 0 } },
          {
            session,
            projection: { _id: 0, i: 1 },
            sort: { i: 1 },
            skip: 1,
            limit: 5,
            batchSize: 2,
            hint: { _id: 1 },
            comment: 'conformance',
            maxTimeMS: 60_000,
            allowDiskUse: true,
            noCursorTimeout: true,
            allowPartialResults: false,
            readConcern: { level: 'local' },
            let: { x: 1 },
          },
        )
        .toArray();
      expect(found).toEqual([1, 2, 3, 4, 5].map((i) => ({ i })));
      expect(
        await c.countDocuments({ i: { $lt: 10 } }, { session, maxTimeMS: 60_000, comment: 'c', skip: 1 }),
      ).toBe(9);
      expect(await c.estimatedDocumentCount({ maxTimeMS: 60_000, comment: 'c' })).toBe(30);
      expect(await c.distinct('i', { i: { $lt: 3 } }, { session, maxTimeMS: 60_000, comment: 'c' })).toEqual([
        0, 1, 2,
      ]);
      const agg = await c
        .aggregate([{ $match: { i: 0 } }, { $project: { _id: 0, i: 1 } }], {
          session,
          allowDiskUse: true,
          maxTimeMS: 60_000,
          comment: 'c',
          batchSize: 1,
          let: { y: 2 },
          readConcern: { level: 'local' },
        })
        .toArray();
      expect(agg).toEqual([{ i: 0 }]);
      const writeOptions = { session, writeConcern: { w: 1 }, comment: 'c' } as const;
      await c.insertOne({ i: 100 }, { ...writeOptions, bypassDocumentValidation: true });
      await c.insertMany([{ i: 101 }, { i: 102 }], { ...writeOptions, ordered: false });
      await c.updateOne({ i: 100 }, { $set: { a: 1 } }, { ...writeOptions, upsert: true, hint: { _id: 1 } });
      await c.updateMany({ i: { $gte: 101 } }, { $set: { a: 2 } }, { ...writeOptions, let: { z: 1 } });
      await c.replaceOne({ i: 101 }, { i: 101 }, writeOptions);
      await c.findOneAndUpdate(
        { i: 102 },
        { $set: { a: 3 } },
        { ...writeOptions, returnDocument: 'after', projection: { a: 1 }, sort: { i: 1 }, maxTimeMS: 60_000 },
      );
      await c.findOneAndDelete({ i: 102 }, writeOptions);
      await c.deleteOne({ i: 101 }, { ...writeOptions, hint: { _id: 1 } });
      await c.deleteMany({ i: 100 }, writeOptions);
      await c.bulkWrite(
        [{ insertOne: { document: { i: 200 } } }, { deleteOne: { filter: { i: 200 } } }],
        writeOptions,
      );
      await c.createIndex({ i: 1 }, { session, name: 'i_1', comment: 'c' });
      expect((await c.listIndexes({ session }).toArray()).map((x) => x.name)).toContain('i_1');
      await c.dropIndex('i_1', { session, comment: 'c' });
      await target.db.createCollection('made', { session, comment: 'c', writeConcern: { w: 1 } });
      expect(
        await target.db.listCollections({ name: 'made' }, { session, nameOnly: true }).toArray(),
      ).toHaveLength(1);
      await target.db.collection('made').rename('renamed', { session, dropTarget: true });
      await target.db.collection('renamed').drop({ session });
      expect(await c.countDocuments()).toBe(30);
    } finally {
      await session.endSession();
    }
  });
});

describe("refusals of mongod's command parser (IDL)", () => {
  it('a missing required field: 40414', async () => {
    const err = await refusal({ insert: 'items' });
    expect(err?.code).toBe(40414);
    expect(err?.message).toBe("BSON field 'insert.documents' is missing but a required field");
  });

  it('a negative skip or batchSize: 51024', async () => {
    const skip = await refusal({ find: 'items', skip: -1 });
    expect(skip?.code).toBe(51024);
    expect(skip?.message).toBe("BSON field 'skip' value must be >= 0, actual value '-1'");
    const batch = await refusal({ aggregate: 'items', pipeline: [], cursor: { batchSize: -1 } });
    expect(batch?.code).toBe(51024);
    expect(batch?.message).toBe("BSON field 'batchSize' value must be >= 0, actual value '-1'");
  });
});

describe('maxTimeMS', () => {
  it('must be a non-negative integer', async () => {
    // find answers BadValue (2); servers that parse aggregate's maxTimeMS by IDL answer 51024 for a
    // negative value and TypeMismatch (14) for a string there.
    for (const [maxTimeMS, codes] of [
      [-1, [2, 51024]],
      [1.5, [2]],
      ['soon', [2, 14]],
    ] as const) {
      for (const command of [
        { find: 'items', filter: {}, maxTimeMS },
        { aggregate: 'items', pipeline: [], cursor: {}, maxTimeMS },
      ]) {
        const err = await refusal(command);
        expect(codes, JSON.stringify(command)).toContain(err?.code);
        expect(err?.message).toContain('maxTimeMS');
      }
    }
  });

  it('0 means no limit', async () => {
    const res = await target.db.command({ count: 'items', maxTimeMS: 0 });
    expect(res.n).toBe(30);
  });

  it('is refused on getMore of an ordinary cursor', async () => {
    const first = await target.db.command({ find: 'items', batchSize: 2 });
    const err = await refusal({ getMore: first.cursor.id, collection: 'items', maxTimeMS: 1000 });
    expect(err?.code).toBe(2);
    await target.db.command({ killCursors: 'items', cursors: [first.cursor.id] });
  });

  it('a command running longer fails with MaxTimeMSExpired (50)', async () => {
    if (!target.embedded) return; // a real server's speed is not ours to time
    const big = target.db.collection('big');
    await big.insertMany(Array.from({ length: 20_000 }, (_, i) => ({ i, s: `v${i % 97}` })));
    const err = await big
      .aggregate([{ $group: { _id: '$s', n: { $sum: 1 } } }, { $sort: { n: -1 } }], { maxTimeMS: 1 })
      .toArray()
      .catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(50);
    expect(err.codeName).toBe('MaxTimeMSExpired');
  });
});

describe('transactions on a standalone', () => {
  it('txnNumber, startTransaction and autocommit are refused (IllegalOperation)', async () => {
    const hello = await target.db.admin().command({ hello: 1 });
    if (hello.setName !== undefined || hello.msg === 'isdbgrid') return; // not a standalone
    const session = target.client.startSession();
    try {
      const lsid = session.id;
      const cases = [
        { find: 'items', lsid, txnNumber: 1 },
        { insert: 'items', documents: [{ t: 1 }], lsid, txnNumber: 1 },
        { find: 'items', lsid, txnNumber: 2, startTransaction: true, autocommit: false },
      ];
      for (const command of cases) {
        const err = await refusal(command);
        expect(err?.code).toBe(20);
        expect(err?.message).toBe('Transaction numbers are only allowed on a replica set member or mongos');
      }
      expect(await target.db.collection('items').countDocuments({ t: 1 })).toBe(0);
    } finally {
      await session.endSession();
    }
  });

  it('the driver sends no transaction number to a standalone: retryable writes still work', async () => {
    const c = target.db.collection('retry');
    await c.insertOne({ r: 1 });
    await c.updateOne({ r: 1 }, { $set: { r: 2 } });
    expect(await c.countDocuments({ r: 2 })).toBe(1);
  });
});

describe('serverStatus', () => {
  it('reports connections, opcounters, memory, uptime and version', async () => {
    const before = await target.db.admin().command({ serverStatus: 1 });
    await target.db.collection('items').find({ i: 1 }).toArray();
    await target.db.collection('counted').insertMany([{ a: 1 }, { a: 2 }]);
    const status = await target.db.admin().command({ serverStatus: 1 });
    expect(status.connections.current).toBeGreaterThanOrEqual(1);
    expect(status.connections.available).toBeGreaterThan(0);
    expect(status.connections.totalCreated).toBeGreaterThanOrEqual(status.connections.current);
    for (const op of ['insert', 'query', 'update', 'delete', 'getmore', 'command']) {
      expect(Number(status.opcounters[op])).toBeGreaterThanOrEqual(0);
    }
    expect(Number(status.opcounters.insert) - Number(before.opcounters.insert)).toBeGreaterThanOrEqual(2);
    expect(Number(status.opcounters.query)).toBeGreaterThan(Number(before.opcounters.query));
    expect(Number(status.mem.resident)).toBeGreaterThan(0);
    expect(Number(status.mem.virtual)).toBeGreaterThan(0);
    expect(typeof status.version).toBe('string');
    expect(Number(status.uptime)).toBeGreaterThanOrEqual(0);
    expect(status.localTime).toBeInstanceOf(Date);
  });
});

describe('refusals a standalone mongod makes too', () => {
  it('$text without a text index: IndexNotFound (27)', async () => {
    const err = await target.db
      .collection('items')
      .find({ $text: { $search: 'x' } })
      .toArray()
      .catch((e) => e);
    expect(err.code).toBe(27);
    expect(err.message).toContain('text index required for $text query');
  });

  it('a tailable cursor on a collection that is not capped: BadValue (2)', async () => {
    const err = await refusal({ find: 'items', tailable: true });
    expect(err?.code).toBe(2);
  });

  it('$changeStream needs a replica set (40573)', async () => {
    const hello = await target.db.admin().command({ hello: 1 });
    if (hello.setName !== undefined || hello.msg === 'isdbgrid') return; // not a standalone
    const err = await refusal({ aggregate: 'items', pipeline: [{ $changeStream: {} }], cursor: {} });
    expect(err?.code).toBe(40573);
  });
});

describe('features the embedded engine does not offer are refused, never ignored', () => {
  const NOT_IMPLEMENTED = 238;

  it('index collation other than simple, capped, time series and clustered collections', async () => {
    if (!target.embedded) return; // a real mongod offers all of these
    const db = target.db;
    const refused = [
      { createIndexes: 'items', indexes: [{ key: { s: 1 }, name: 's_fr', collation: { locale: 'fr' } }] },
      { create: 'capped', capped: true, size: 4096 },
      { create: 'series', timeseries: { timeField: 't' } },
      { create: 'clustered', clusteredIndex: { key: { _id: 1 }, unique: true } },
    ];
    for (const command of refused) {
      const err = await refusal(command);
      expect(err?.code, JSON.stringify(command)).toBe(NOT_IMPLEMENTED);
      expect(err?.codeName).toBe('NotImplemented');
    }
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).not.toEqual(expect.arrayContaining(['capped']));
    expect(names.filter((n) => ['capped', 'series', 'clustered'].includes(n))).toEqual([]);
    expect(await db.collection('items').countDocuments({ a: 1 })).toBe(0);

    expect((await db.command({ find: 'items', filter: { i: 1 }, collation: { locale: 'simple' } })).ok).toBe(
      1,
    );
  });
});

describe('$collStats and $indexStats', () => {
  it('$collStats counts the documents of the collection', async () => {
    const c = target.db.collection('stats');
    await c.insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
    const [stats] = await c.aggregate([{ $collStats: { count: {} } }]).toArray();
    expect(stats).toMatchObject({ ns: `${target.db.databaseName}.stats`, count: 3 });
    expect(stats!.localTime).toBeInstanceOf(Date);
    const [storage] = await c.aggregate([{ $collStats: { storageStats: {} } }]).toArray();
    expect(storage!.storageStats).toMatchObject({ count: 3, nindexes: 1 });
  });

  it('$indexStats lists every index with its key and access counter', async () => {
    const c = target.db.collection('stats');
    await c.createIndex({ a: 1 }, { name: 'a_1' });
    const stats = await c.aggregate([{ $indexStats: {} }, { $sort: { name: 1 } }]).toArray();
    expect(stats.map((s) => [s.name, s.key])).toEqual([
      ['_id_', { _id: 1 }],
      ['a_1', { a: 1 }],
    ]);
    for (const s of stats) {
      expect(Number(s.accesses.ops)).toBeGreaterThanOrEqual(0);
      expect(s.accesses.since).toBeInstanceOf(Date);
    }
  });
});
