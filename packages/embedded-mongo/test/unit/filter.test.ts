// Filters of fields compared with the engine's own operators are compiled without mingo's Query
// (filter.ts, compileFieldFilter): they must match exactly the documents Query matched.
import { Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { Query } from 'mingo/query';
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../src/filter.js';
import { compileFieldFilter, mingoOptions } from '../../src/mingo.js';
import type { Document } from '../../src/values.js';

const idA = new ObjectId('650000000000000000000001');
const idB = new ObjectId('650000000000000000000002');
const docs: Document[] = [
  {
    _id: idA,
    n: 1,
    s: 'a',
    tags: ['x', 'y'],
    nested: { c: 2, list: [{ d: 1 }, { d: 2 }] },
    at: new Date(1000),
  },
  { _id: idB, n: new Int32(2), s: null, tags: [], nested: { c: [2, 3] }, at: new Date(2000) },
  { _id: 3, n: Long.fromNumber(3), tags: 'x', nested: null },
  { _id: 4, n: new Double(1), s: 'b', lease: null, status: 'pending' },
  { _id: 5, n: Decimal128.fromString('2'), s: ['a', 'b'], status: 'delivered', lease: 'tok' },
  { _id: 6 },
];

const filters: Document[] = [
  { n: 1 },
  { n: 2, s: null },
  { s: null },
  { _id: idA },
  { _id: { $in: [idA, 3, 'nope'] } },
  { _id: idB, lease: null },
  { tags: 'x' },
  { tags: ['x', 'y'] },
  { 'nested.c': 2 },
  { 'nested.list.d': 2 },
  { n: { $gte: new Int32(2) } },
  { n: { $gt: 1, $lt: 3 } },
  { at: { $lte: new Date(1500) } },
  { s: { $ne: 'a' } },
  { s: { $nin: ['a', null] } },
  { s: { $type: 'string' } },
  { status: 'pending', n: { $lte: 1 }, lease: null },
  { nested: { c: 2, list: [{ d: 1 }, { d: 2 }] } },
  { nested: { c: [2, 3] } },
];

describe('filters of fields compared with the engine operators', () => {
  for (const filter of filters) {
    it(`${JSON.stringify(filter)} matches what mingo's Query matched`, () => {
      expect(compileFieldFilter(filter)).not.toBeNull();
      const query = new Query(filter, mingoOptions());
      const matcher = compileFilter(filter);
      for (const doc of docs) expect([doc._id, matcher.test(doc)]).toEqual([doc._id, query.test(doc)]);
    });
  }

  it('leaves top-level operators, regular expressions and mingo operators to Query', () => {
    for (const filter of [
      { $or: [{ n: 1 }, { s: 'b' }] },
      { s: /a/ },
      { s: { $regex: 'a' } },
      { tags: { $size: 0 } },
      { s: { $exists: true } },
      { n: { $eq: 1, junk: 2 } },
    ]) {
      expect(compileFieldFilter(filter)).toBeNull();
    }
    expect(
      docs.filter((d) => compileFilter({ $or: [{ n: 1 }, { s: 'b' }] }).test(d)).map((d) => d._id),
    ).toEqual([idA, 4, 5]);
  });

  it('refuses what Query refused, with the same errors', () => {
    expect(() => compileFilter({ n: { $in: 5 } })).toThrow(/\$in needs an array/);
    expect(() => compileFilter({ n: { $eq: 1, junk: 2 } })).toThrow(/unknown operator: junk/);
  });
});
