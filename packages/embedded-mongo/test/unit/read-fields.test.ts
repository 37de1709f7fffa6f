// The fields a find, count or distinct reads (read-fields.ts): given only when certain, since a
// large document is then read in part and a field left out would be missing from the answer.
import { describe, expect, it } from 'vitest';
import { comparedFields, readFields } from '../../src/read-fields.js';

const fields = (...args: Parameters<typeof readFields>) => {
  const found = readFields(...args);
  return found && [...found].sort();
};

describe('the fields a read needs', () => {
  it("are the filter's, the sort's and the projection's roots, and _id", () => {
    expect(
      fields(
        { 'a.b': 1, $or: [{ c: 2 }, { d: { $gt: 1 } }] },
        { sort: { 'e.f': -1 }, projection: { 'g.h': 1 } },
      ),
    ).toEqual(['_id', 'a', 'c', 'd', 'e', 'g']);
    expect(fields({ $text: { $search: 'x' } }, { projection: { r: 1, s: { $meta: 'textScore' } } })).toEqual([
      '_id',
      'r',
    ]);
    expect(fields({ a: 1 }, { projection: { 'b.$': 1, d: { $elemMatch: { x: 1 } } } })).toEqual([
      '_id',
      'a',
      'b',
      'd',
    ]);
    expect(fields({ a: 1 }, { keep: ['k.l'] })).toEqual(['_id', 'a', 'k']);
    expect(fields({ a: 1 }, { keep: [] })).toEqual(['_id', 'a']);
  });

  it('are all of them (undefined) when a projection or filter may read any field', () => {
    expect(fields({ a: 1 }, {})).toBeUndefined();
    expect(fields({ a: 1 }, { projection: { b: 0 } })).toBeUndefined();
    expect(fields({ a: 1 }, { projection: { _id: 0 } })).toBeUndefined();
    expect(fields({ a: 1 }, { projection: { s: { $meta: 'textScore' } } })).toBeUndefined();
    expect(fields({ a: 1 }, { projection: { b: { $concat: ['$c', '$d'] } } })).toBeUndefined();
    expect(fields({ a: 1 }, { projection: { b: 'literal' } })).toBeUndefined();
    // $slice keeps every other field, as an exclusion does.
    expect(fields({ a: 1 }, { projection: { b: { $slice: 2 } } })).toBeUndefined();
    expect(fields({ $expr: { $eq: ['$a', '$b'] } }, { projection: { a: 1 } })).toBeUndefined();
    expect(fields({ $where: 'true' }, { keep: [] })).toBeUndefined();
  });
});

describe('the fields a sort with a limit compares', () => {
  it("are the filter's and the sort's roots, and _id; undefined when the filter may read any field", () => {
    const compared = (filter: unknown, sort: unknown) => {
      const found = comparedFields(filter, sort);
      return found && [...found].sort();
    };
    expect(compared({ 'a.b': 1, $text: { $search: 'x' } }, { 'c.d': -1, s: { $meta: 'textScore' } })).toEqual(
      ['_id', 'a', 'c'],
    );
    expect(compared({}, { at: -1, id: -1 })).toEqual(['_id', 'at', 'id']);
    expect(compared({ $expr: { $eq: ['$a', '$b'] } }, { a: 1 })).toBeUndefined();
    expect(compared({ $where: 'true' }, { a: 1 })).toBeUndefined();
  });
});
