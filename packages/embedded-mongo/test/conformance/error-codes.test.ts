// mongod's error codes where a client can tell them apart: projections mixing inclusion and
// exclusion, `$group` without `_id`, index specifications mongod refuses, replica set commands on a
// standalone, query operators given the wrong argument, and invalid regular expressions. Codes
// and code names always; messages where mongod's source fixes them.
import { type Document, MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, rejection, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('errcodes');
  await target.db.collection('c').insertOne({ _id: 1 as never, a: 1, b: 'x', arr: [1, 2] });
});

afterAll(async () => {
  await target?.close();
});

async function failure(
  promise: Promise<unknown>,
): Promise<{ code: number; codeName: string; message: string }> {
  const err = await rejection(promise);
  return { code: err.code as number, codeName: err.codeName as string, message: err.message };
}

const find = (filter: Document, projection?: Document) =>
  target.db
    .collection('c')
    .find(filter, projection ? { projection } : {})
    .toArray();
const aggregate = (pipeline: Document[]) => target.db.collection('c').aggregate(pipeline).toArray();

describe('projections mixing inclusion and exclusion', () => {
  it('an exclusion after an inclusion is 31254, naming the field', async () => {
    expect(await failure(find({}, { a: 1, b: 0 }))).toEqual({
      code: 31254,
      codeName: 'Location31254',
      message: 'Cannot do exclusion on field b in inclusion projection',
    });
    expect((await failure(aggregate([{ $project: { a: 1, b: 0 } }]))).code).toBe(31254);
  });

  it('an inclusion after an exclusion is 31253; _id may be either', async () => {
    expect(await failure(find({}, { a: 0, b: 1 }))).toEqual({
      code: 31253,
      codeName: 'Location31253',
      message: 'Cannot do inclusion on field b in exclusion projection',
    });
    expect(await find({}, { _id: 0, a: 1 })).toEqual([{ a: 1 }]);
    expect(await find({}, { _id: 1, a: 0, b: 0, arr: 0 })).toEqual([{ _id: 1 }]);
  });

  it('an expression or a literal in an exclusion is 31252 or 31310', async () => {
    const expression = await failure(find({}, { a: 0, b: { $add: [1, 2] } }));
    expect(expression).toEqual({
      code: 31252,
      codeName: 'Location31252',
      message: 'Cannot use expression other than $meta in exclusion projection',
    });
    const literal = await failure(find({}, { a: 0, b: 'text' }));
    expect([literal.code, literal.codeName]).toEqual([31310, 'Location31310']);
  });
});

describe('$group', () => {
  it('without _id is 15955', async () => {
    expect(await failure(aggregate([{ $group: { n: { $sum: 1 } } }]))).toEqual({
      code: 15955,
      codeName: 'Location15955',
      message: 'a group specification must include an _id',
    });
  });
});

describe('index specifications', () => {
  const createIndexes = (spec: Document) =>
    target.db.command({ createIndexes: 'c', indexes: [{ name: 'i', ...spec }] });

  it('an unknown field is InvalidIndexSpecificationOption (197)', async () => {
    const err = await failure(createIndexes({ key: { a: 1 }, colour: 'red' }));
    expect([err.code, err.codeName]).toEqual([197, 'InvalidIndexSpecificationOption']);
    expect(err.message).toMatch(
      /^The field 'colour' is not valid for an index specification\. Specification: /,
    );
  });

  it('an _id index with unique is 197', async () => {
    const err = await failure(createIndexes({ key: { _id: 1 }, name: '_id_', unique: true }));
    expect([err.code, err.codeName]).toEqual([197, 'InvalidIndexSpecificationOption']);
    expect(err.message).toMatch(/^The field 'unique' is not valid for an _id index specification/);
  });

  it('key patterns mongod cannot index are CannotCreateIndex (67)', async () => {
    for (const [key, message] of [
      [{}, 'Index keys cannot be empty.'],
      [{ a: 0 }, 'Values in the index key pattern cannot be 0.'],
      [{ $a: 1 }, "Index key contains an illegal field name: field name starts with '$'."],
      [{ 'a..b': 1 }, 'Index keys cannot contain an empty field.'],
    ] as const) {
      expect(await failure(createIndexes({ key }))).toEqual({
        code: 67,
        codeName: 'CannotCreateIndex',
        message,
      });
    }
  });

  it('weights outside a text index is 67, wildcardProjection outside a wildcard index BadValue', async () => {
    const weights = await failure(createIndexes({ key: { a: 1 }, weights: { a: 2 } }));
    expect([weights.code, weights.codeName]).toEqual([67, 'CannotCreateIndex']);
    expect(weights.message).toMatch(/the field 'weights' can only be specified with text indexes$/);
    expect(await failure(createIndexes({ key: { a: 1 }, wildcardProjection: { a: 1 } }))).toEqual({
      code: 2,
      codeName: 'BadValue',
      message: "The field 'wildcardProjection' is only allowed in 'wildcard' indexes",
    });
  });
});

describe('replica set commands on a standalone', () => {
  it('replSetGetStatus is NoReplicationEnabled (76)', async (ctx) => {
    const reply = await target.db
      .admin()
      .command({ replSetGetStatus: 1 })
      .catch((e: unknown) => e);
    if (!(reply instanceof MongoServerError)) return ctx.skip(); // the target is a replica set
    expect([reply.code, reply.codeName, reply.message]).toEqual([
      76,
      'NoReplicationEnabled',
      'not running with --replSet',
    ]);
  });
});

describe('query operators given the wrong argument', () => {
  it('an unknown top-level operator is BadValue', async () => {
    const err = await failure(find({ $foo: 1 }));
    expect([err.code, err.codeName]).toEqual([2, 'BadValue']);
    expect(err.message).toMatch(/^unknown top level operator: \$foo/);
  });

  it('an unknown field operator is BadValue "unknown operator"', async () => {
    expect(await failure(find({ a: { $foo: 1 } }))).toEqual({
      code: 2,
      codeName: 'BadValue',
      message: 'unknown operator: $foo',
    });
  });

  it('each operator names what it needs', async () => {
    for (const [filter, message] of [
      [{ a: { $in: 1 } }, '$in needs an array'],
      [{ a: { $nin: 1 } }, '$nin needs an array'],
      [{ a: { $all: 1 } }, '$all needs an array'],
      [{ arr: { $size: 'two' } }, '$size needs a number'],
      [{ arr: { $elemMatch: 1 } }, '$elemMatch needs an Object'],
      [{ a: { $mod: 4 } }, 'malformed mod, needs to be an array'],
      [{ a: { $mod: [4] } }, 'malformed mod, not enough elements'],
      [{ a: { $mod: [4, 1, 2] } }, 'malformed mod, too many elements'],
      [{ $and: {} }, '$and must be an array'],
      [{ $or: [] }, '$and/$or/$nor must be a nonempty array'],
      [{ b: { $regex: 1 } }, '$regex has to be a string'],
      [{ b: { $options: 'i' } }, '$options needs a $regex'],
      [{ b: { $regex: /x/i, $options: 'm' } }, 'options set in both $regex and $options'],
    ] as const) {
      expect(await failure(find(filter as Document))).toEqual({ code: 2, codeName: 'BadValue', message });
    }
  });
});

describe('invalid regular expressions', () => {
  it('an invalid pattern is 51091, an unknown option letter 51108', async () => {
    const invalid = await failure(find({ b: { $regex: '[)' } }));
    expect([invalid.code, invalid.codeName]).toEqual([51091, 'Location51091']);
    expect(invalid.message).toMatch(/^Regular expression is invalid: /);
    const flag = await failure(find({ b: { $regex: 'x', $options: 'g' } }));
    expect([flag.code, flag.codeName]).toEqual([51108, 'Location51108']);
    expect(flag.message).toMatch(/invalid flag in regex options: g$/);
  });

  it('in $regexMatch an invalid pattern is 51111', async () => {
    const err = await failure(aggregate([{ $project: { m: { $regexMatch: { input: '$b', regex: '(' } } } }]));
    expect([err.code, err.codeName]).toEqual([51111, 'Location51111']);
    expect(err.message).toMatch(/^Invalid Regex in \$regexMatch: /);
  });
});
