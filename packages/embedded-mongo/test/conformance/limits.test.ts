// The 16 MiB document limit (https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-BSON-Document-Size):
// mongod refuses to store a larger document, on insert as on update, and stores nothing.
import { BSON, MongoServerError, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('limits');
});

afterAll(async () => {
  await target?.close();
});

const MAX = 16 * 1024 * 1024;
/** A string that makes `{ _id: ObjectId, x }` exactly `size` bytes of BSON. */
const filler = (size: number) => 'a'.repeat(size - BSON.calculateObjectSize({ _id: new ObjectId(), x: '' }));
// mongod answers BSONObjectTooLarge (10334) since 7.x; older servers: BadValue (2) on insert and
// 17419 on update (jstests/core/max_doc_size.js).
const TOO_LARGE_ON_INSERT = [10334, 2];
const TOO_LARGE_ON_UPDATE = [10334, 17419];

describe('16 MiB documents', () => {
  it('a document of exactly 16 MiB is stored and read back', async () => {
    const c = target.db.collection('at_limit');
    const _id = new ObjectId();
    await c.insertOne({ _id, x: filler(MAX) });
    const back = await c.findOne({ _id });
    expect(BSON.calculateObjectSize(back!)).toBe(MAX);
  }, 30_000);

  it('insert of a larger document is refused and stores nothing', async () => {
    const c = target.db.collection('insert_over');
    const res = await target.db.command({
      insert: c.collectionName,
      documents: [{ _id: new ObjectId(), x: filler(MAX + 1) }],
    });
    expect(res.n).toBe(0);
    expect(TOO_LARGE_ON_INSERT).toContain(res.writeErrors?.[0]?.code);
    expect(await c.countDocuments()).toBe(0);
  }, 30_000);

  it('an update or upsert whose result is larger is refused and changes nothing', async () => {
    const c = target.db.collection('update_over');
    const _id = new ObjectId();
    await c.insertOne({ _id, small: true });
    const err = await c.updateOne({ _id }, { $set: { x: filler(MAX + 1) } }).catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(TOO_LARGE_ON_UPDATE).toContain(err.code);
    expect(await c.findOne({ _id })).toEqual({ _id, small: true });

    const other = new ObjectId();
    const upsert = await c
      .replaceOne({ _id: other }, { _id: other, x: filler(MAX + 1) }, { upsert: true })
      .catch((e) => e);
    expect(TOO_LARGE_ON_UPDATE).toContain(upsert.code);
    const fam = await c.findOneAndUpdate({ _id }, { $set: { x: filler(MAX + 1) } }).catch((e) => e);
    expect(TOO_LARGE_ON_UPDATE).toContain(fam.code);
    expect(await c.countDocuments()).toBe(1);
  }, 30_000);
});
