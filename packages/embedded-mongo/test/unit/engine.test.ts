// In-process tests of the engine (no sockets): command dispatch, TTL, cursor timeouts, value ordering.
import { Decimal128, Long, ObjectId } from 'bson';
import { afterEach, describe, expect, it } from 'vitest';
import { executeCommand } from '../../src/commands/index.js';
import { Store } from '../../src/persistence.js';
import { Engine } from '../../src/storage.js';
import { compareValues, keyString } from '../../src/values.js';
import { MessageFramer, WireProtocolError } from '../../src/wire.js';

const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

function run(engine: Engine, body: Record<string, unknown>, dbName = 'unit') {
  return executeCommand(body, { engine, dbName, connection: { id: 1 } });
}

function newEngine(): Engine {
  const engine = new Engine(Store.temporary());
  engines.push(engine);
  return engine;
}

describe('command dispatch', () => {
  it('answers unknown commands with CommandNotFound', () => {
    expect(run(newEngine(), { frobnicate: 1 })).toEqual({
      ok: 0,
      errmsg: "no such command: 'frobnicate'",
      code: 59,
      codeName: 'CommandNotFound',
    });
  });

  it('rejects transactions like a standalone mongod', () => {
    const reply = run(newEngine(), { find: 'c', autocommit: false, startTransaction: true, txnNumber: 1 });
    expect(reply).toMatchObject({ ok: 0, code: 20, codeName: 'IllegalOperation' });
  });

  it('reports bad filters and sorts with BadValue', () => {
    const engine = newEngine();
    run(engine, { insert: 'c', documents: [{ a: 1 }] });
    expect(run(engine, { find: 'c', filter: { a: { $bogus: 1 } } })).toMatchObject({ ok: 0, code: 2 });
    expect(run(engine, { find: 'c', sort: { a: 2 } })).toMatchObject({ ok: 0, code: 2 });
    expect(run(engine, { find: 'c', filter: 'x' })).toMatchObject({ ok: 0, code: 14 });
    expect(run(engine, { find: 'c', hint: 'nope_1' })).toMatchObject({ ok: 0, code: 2 });
    expect(run(engine, { delete: 'c', deletes: [{ q: {}, limit: 5 }] })).toMatchObject({
      ok: 1,
      n: 0,
      writeErrors: [{ index: 0, code: 9 }],
    });
  });

  it('positional projection uses the query', () => {
    const engine = newEngine();
    run(engine, { insert: 'c', documents: [{ _id: 1, grades: [80, 85, 90] }] });
    const reply = run(engine, { find: 'c', filter: { grades: { $gte: 85 } }, projection: { 'grades.$': 1 } });
    expect((reply.cursor as { firstBatch: unknown[] }).firstBatch).toEqual([{ _id: 1, grades: [85] }]);
  });
});

describe('the release it answers as', () => {
  it('MongoDB 8.0: buildInfo, hello, serverStatus and the featureCompatibilityVersion', () => {
    const engine = newEngine();
    expect(run(engine, { buildInfo: 1 }, 'admin')).toMatchObject({
      version: '8.0.0',
      versionArray: [8, 0, 0, 0],
    });
    expect(run(engine, { hello: 1 }, 'admin')).toMatchObject({ maxWireVersion: 25 });
    expect(run(engine, { isMaster: 1 }, 'admin')).toMatchObject({ maxWireVersion: 25 });
    expect(run(engine, { serverStatus: 1 }, 'admin')).toMatchObject({ version: '8.0.0' });
    expect(run(engine, { getParameter: 1, featureCompatibilityVersion: 1 }, 'admin')).toMatchObject({
      featureCompatibilityVersion: { version: '8.0' },
    });
  });
});

describe('TTL indexes', () => {
  it('expire documents whose date plus expireAfterSeconds has passed', () => {
    const engine = newEngine();
    const now = new Date('2024-05-01T12:00:00Z');
    run(engine, {
      createIndexes: 'sessions',
      indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
    });
    run(engine, {
      insert: 'sessions',
      documents: [
        { _id: 'old', at: new Date(now.getTime() - 120_000) },
        { _id: 'fresh', at: new Date(now.getTime() - 10_000) },
        { _id: 'no-date', at: 'not a date' },
      ],
    });
    expect(engine.expireTtlDocuments(now)).toBe(1);
    const reply = run(engine, { find: 'sessions', sort: { _id: 1 } });
    expect((reply.cursor as { firstBatch: Array<{ _id: string }> }).firstBatch.map((d) => d._id)).toEqual([
      'fresh',
      'no-date',
    ]);
  });
});

describe('cursors', () => {
  it('idle cursors are reaped after ten minutes', () => {
    const engine = newEngine();
    run(engine, { insert: 'c', documents: Array.from({ length: 5 }, (_, i) => ({ i })) });
    const reply = run(engine, { find: 'c', batchSize: 2 });
    const id = (reply.cursor as { id: Long }).id;
    expect(id.isZero()).toBe(false);
    engine.cursors.sweep(Date.now() + 11 * 60 * 1000);
    expect(run(engine, { getMore: id, collection: 'c' })).toMatchObject({ ok: 0, code: 43 });
  });

  it('killCursors reports killed and unknown ids', () => {
    const engine = newEngine();
    run(engine, { insert: 'c', documents: Array.from({ length: 5 }, (_, i) => ({ i })) });
    const id = (run(engine, { find: 'c', batchSize: 1 }).cursor as { id: Long }).id;
    const reply = run(engine, { killCursors: 'c', cursors: [id, Long.fromNumber(12345)] });
    expect(reply.cursorsKilled).toEqual([id]);
    expect(reply.cursorsNotFound).toHaveLength(1);
  });
});

describe('values', () => {
  it('orders mixed BSON types like mongod', () => {
    const values = [
      true,
      new Date(0),
      new ObjectId('000000000000000000000001'),
      [1],
      { a: 1 },
      'str',
      Long.fromNumber(3),
      2.5,
      null,
    ];
    const sorted = [...values].sort(compareValues);
    expect(sorted).toEqual([
      null,
      2.5,
      Long.fromNumber(3),
      'str',
      { a: 1 },
      [1],
      values[2],
      true,
      new Date(0),
    ]);
  });

  it('hash keys treat numeric types as equal and object key order as significant', () => {
    expect(keyString(5)).toBe(keyString(Long.fromNumber(5)));
    expect(keyString(5)).toBe(keyString(Decimal128.fromString('5')));
    expect(keyString(0)).toBe(keyString(-0));
    expect(keyString({ a: 1, b: 2 })).not.toBe(keyString({ b: 2, a: 1 }));
    expect(keyString('5')).not.toBe(keyString(5));
    expect(keyString(null)).toBe(keyString(undefined));
  });
});

describe('framing', () => {
  it('splits concatenated messages and rejects impossible lengths', () => {
    const framer = new MessageFramer();
    const msg = Buffer.alloc(16);
    msg.writeInt32LE(16, 0);
    expect(framer.push(Buffer.concat([msg, msg.subarray(0, 10)]))).toHaveLength(1);
    expect(framer.push(msg.subarray(10))).toHaveLength(1);
    const bad = Buffer.alloc(4);
    bad.writeInt32LE(1 << 30, 0);
    expect(() => new MessageFramer().push(bad)).toThrow(WireProtocolError);
  });
});
