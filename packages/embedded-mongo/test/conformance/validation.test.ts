// Document validation and collMod: validators (query operators and $jsonSchema) on inserts and
// updates, their levels and actions, bypassDocumentValidation; collMod of indexes.
import { MongoBulkWriteError, type MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, rejection, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('validation');
});

afterAll(async () => {
  await target?.close();
});

const schema = {
  $jsonSchema: {
    bsonType: 'object',
    required: ['name'],
    properties: { name: { bsonType: 'string', description: 'a name' }, age: { bsonType: 'int', minimum: 0 } },
  },
};

describe('document validation', () => {
  it('rejects an invalid insert with 121 and mongod-shaped details', async () => {
    await target.db.createCollection('people', { validator: schema });
    const people = target.db.collection('people');
    await people.insertOne({ name: 'Ada', age: 36 });
    const err = await rejection(people.insertOne({ _id: 7 as never, age: 'old' }));
    expect(err.code).toBe(121);
    const { failingDocumentId, details } = err.errInfo as {
      failingDocumentId: unknown;
      details: { operatorName: string; schemaRulesNotSatisfied: unknown[] };
    };
    expect(failingDocumentId).toBe(7);
    expect(details.operatorName).toBe('$jsonSchema');
    expect(details.schemaRulesNotSatisfied).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operatorName: 'required', missingProperties: ['name'] }),
        expect.objectContaining({
          operatorName: 'properties',
          propertiesNotSatisfied: [
            expect.objectContaining({
              propertyName: 'age',
              details: [
                expect.objectContaining({
                  operatorName: 'bsonType',
                  reason: 'type did not match',
                  consideredValue: 'old',
                  consideredType: 'string',
                }),
              ],
            }),
          ],
        }),
      ]),
    );
  });

  it('lists the validator with its level and action', async () => {
    const [info] = await target.db.listCollections({ name: 'people' }, { nameOnly: false }).toArray();
    expect((info as { options?: unknown }).options).toEqual({
      validator: schema,
      validationLevel: 'strict',
      validationAction: 'error',
    });
  });

  it('checks updates, upserts, findAndModify and bulk writes; bypassDocumentValidation skips', async () => {
    const people = target.db.collection('people');
    expect((await rejection(people.updateOne({ name: 'Ada' }, { $unset: { name: '' } }))).code).toBe(121);
    expect(
      (await rejection(people.updateOne({ name: 'Zed' }, { $set: { age: -1 } }, { upsert: true }))).code,
    ).toBe(121);
    expect((await rejection(people.findOneAndUpdate({ name: 'Ada' }, { $set: { age: -1 } }))).code).toBe(121);
    const bulk = await people.bulkWrite([{ insertOne: { document: { age: 1 } } }]).catch((e) => e);
    expect(bulk).toBeInstanceOf(MongoBulkWriteError);
    expect((bulk as MongoBulkWriteError).code).toBe(121);
    await people.insertOne({ age: 2 }, { bypassDocumentValidation: true });
    await people.updateOne({ name: 'Ada' }, { $set: { age: 'x' } }, { bypassDocumentValidation: true });
    expect(await people.countDocuments()).toBe(2);
  });

  it('moderate lets updates of invalid documents through; warn and off accept', async () => {
    const people = target.db.collection('people');
    await people.updateOne({ name: 'Ada' }, { $set: { age: 36 } }); // valid again
    await target.db.command({ collMod: 'people', validationLevel: 'moderate' });
    await people.updateOne({ age: 2 }, { $set: { age: 3 } }); // already invalid: not checked
    expect((await rejection(people.updateOne({ name: 'Ada' }, { $unset: { name: '' } }))).code).toBe(121);
    await target.db.command({ collMod: 'people', validationAction: 'warn' });
    await people.insertOne({ age: 4 });
    await target.db.command({ collMod: 'people', validationAction: 'error', validationLevel: 'off' });
    await people.insertOne({ age: 5 });
    expect(await people.countDocuments()).toBe(4);
  });

  it('query validators report the failing operator', async () => {
    await target.db.createCollection('items', { validator: { qty: { $gte: 0 }, sku: { $type: 'string' } } });
    const err = await rejection(
      target.db.collection('items').insertOne({ _id: 1 as never, qty: -1, sku: 'a' }),
    );
    expect(err.code).toBe(121);
    expect(err.errInfo?.details).toEqual({
      operatorName: '$and',
      clausesNotSatisfied: [
        {
          index: 0,
          details: {
            operatorName: '$gte',
            specifiedAs: { qty: { $gte: 0 } },
            reason: 'comparison failed',
            consideredValue: -1,
          },
        },
      ],
    });
  });

  it('rejects invalid validation options', async () => {
    const err = await rejection(target.db.createCollection('bad', { validationLevel: 'sometimes' as never }));
    expect(err.code).toBe(2);
  });
});

describe('collMod of indexes', () => {
  it('hides and unhides an index, changes expireAfterSeconds', async () => {
    const coll = target.db.collection('indexed');
    await coll.createIndex({ a: 1 });
    await coll.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
    const hidden = await target.db.command({
      collMod: 'indexed',
      index: { keyPattern: { a: 1 }, hidden: true },
    });
    expect(hidden).toMatchObject({ hidden_old: false, hidden_new: true });
    expect((await coll.listIndexes().toArray()).find((i) => i.name === 'a_1')?.hidden).toBe(true);
    await target.db.command({ collMod: 'indexed', index: { name: 'a_1', hidden: false } });
    const ttl = await target.db.command({
      collMod: 'indexed',
      index: { name: 'at_1', expireAfterSeconds: 120 },
    });
    expect(ttl).toMatchObject({ expireAfterSeconds_old: 60, expireAfterSeconds_new: 120 });
  });

  it('prepareUnique refuses new duplicates; unique converts or lists the violations (359)', async () => {
    const coll = target.db.collection<{ _id: number; x: number }>('uniq');
    await coll.insertMany([
      { _id: 1, x: 1 },
      { _id: 2, x: 1 },
      { _id: 3, x: 2 },
    ]);
    await coll.createIndex({ x: 1 });
    await target.db.command({ collMod: 'uniq', index: { keyPattern: { x: 1 }, prepareUnique: true } });
    expect((await rejection(coll.insertOne({ _id: 4, x: 2 }))).code).toBe(11000);
    const err: MongoServerError = await rejection(
      target.db.command({ collMod: 'uniq', index: { keyPattern: { x: 1 }, unique: true } }),
    );
    expect(err.code).toBe(359);
    expect(err.errorResponse.violations).toEqual([{ ids: [1, 2] }]);
    await coll.deleteOne({ _id: 2 });
    const converted = await target.db.command({
      collMod: 'uniq',
      index: { keyPattern: { x: 1 }, unique: true },
    });
    expect(converted).toMatchObject({ unique_new: true });
    expect((await coll.listIndexes().toArray()).find((i) => i.name === 'x_1')?.unique).toBe(true);
  });

  it('fails on a missing collection or index', async () => {
    expect((await rejection(target.db.command({ collMod: 'nope', validator: {} }))).code).toBe(26);
    expect(
      (await rejection(target.db.command({ collMod: 'uniq', index: { name: 'nope', hidden: true } }))).code,
    ).toBe(27);
  });
});

describe('$listLocalSessions', () => {
  it('lists the session the command runs in', async () => {
    const sessions = await target.client
      .db('admin')
      .aggregate([{ $listLocalSessions: {} }])
      .toArray();
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions[0]).toMatchObject({
      _id: { id: expect.anything(), uid: expect.anything() },
      lastUse: expect.any(Date),
    });
  });
});
