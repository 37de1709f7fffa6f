import { MongoClient, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedMongo, startEmbeddedMongo } from '../../src/index.js';

const N = 50_000;
let engine: EmbeddedMongo;
let client: MongoClient;
const ids: ObjectId[] = [];
const refs: ObjectId[] = [];

beforeAll(async () => {
  engine = await startEmbeddedMongo();
  client = await new MongoClient(engine.uri).connect();
  const docs = Array.from({ length: N }, (_, i) => {
    const _id = new ObjectId();
    const ref = new ObjectId();
    ids.push(_id);
    refs.push(ref);
    return { _id, ref, n: i, bucket: i % 100, name: `user-${i}` };
  });
  await client.db('perf').collection('big').insertMany(docs);
  await client.db('perf').collection('big').createIndex({ ref: 1 });
});

afterAll(async () => {
  await client?.close();
  await engine?.close();
});

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

describe('large $in queries over 50k documents', () => {
  const big = () => client.db('perf').collection('big');
  const pick = (list: ObjectId[]) => Array.from({ length: 1000 }, (_, k) => list[k * 37]!);

  it('uses the _id index', async () => {
    const { value, ms } = await timed(() =>
      big()
        .find({ _id: { $in: pick(ids) } })
        .toArray(),
    );
    expect(value).toHaveLength(1000);
    expect(ms).toBeLessThan(1500);
  });

  it('uses a secondary single-field index and still applies the rest of the filter', async () => {
    const { value, ms } = await timed(() =>
      big()
        .find({ ref: { $in: pick(refs) }, bucket: { $lt: 50 } })
        .toArray(),
    );
    expect(value.every((d) => (d.bucket as number) < 50)).toBe(true);
    expect(value.length).toBeGreaterThan(0);
    expect(ms).toBeLessThan(1500);
  });

  it('scans without an index in roughly linear time', async () => {
    const nums = Array.from({ length: 1000 }, (_, k) => k * 50);
    const { value, ms } = await timed(() => big().countDocuments({ n: { $in: nums } }));
    expect(value).toBe(1000);
    expect(ms).toBeLessThan(3000);
  });

  it('sorted queries with limit', async () => {
    const { value, ms } = await timed(() => big().find({ bucket: 7 }).sort({ n: -1 }).limit(5).toArray());
    expect(value.map((d) => d.n)).toEqual([49907, 49807, 49707, 49607, 49507]);
    expect(ms).toBeLessThan(2000);
  });
});
