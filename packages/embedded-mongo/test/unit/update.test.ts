// The engine applies `$set`/`$unset` of top-level fields itself (update.ts, applyTopLevel) rather than
// through mingo's updater: the documents it stores and the changed flag must be what mingo gave.
import { Binary, Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { update as mingoUpdate } from 'mingo/updater';
import { describe, expect, it } from 'vitest';
import { mingoOptions } from '../../src/mingo.js';
import { applyUpdate, buildUpsertDocument, parseUpdate } from '../../src/update.js';
import { cloneValue, type Document, exactKey, idFirst } from '../../src/values.js';

const id = new ObjectId('650000000000000000000001');
const stored: Document = {
  _id: id,
  n: 1,
  i32: new Int32(7),
  long: Long.fromNumber(9),
  dec: Decimal128.fromString('1.5'),
  d: new Date('2026-01-01T00:00:00Z'),
  s: 'text',
  nul: null,
  arr: [1, { a: [2, 3] }],
  nested: { x: { y: 1 }, z: [new ObjectId('650000000000000000000002')] },
  bin: new Binary(Buffer.from('abc')),
  flag: true,
};

/** What mingo's updater made of the same update, as the engine called it before. */
function throughMingo(original: Document, ops: Document): { doc: Document; changed: boolean } {
  const next = cloneValue(original);
  mingoUpdate(next, ops, [], {}, { cloneMode: 'deep', queryOptions: mingoOptions() });
  const doc = idFirst(next);
  return { doc, changed: exactKey(doc) !== exactKey(original) };
}

const cases: [string, Document][] = [
  ['the same values again', { $set: { n: 1, s: 'text', nul: null, flag: true } }],
  ['an Int32 where a double was', { $set: { n: new Int32(1) } }],
  ['a double where an Int32 was', { $set: { i32: new Double(7) } }],
  ['a Long by value', { $set: { long: 9 } }],
  ['new fields, in the order given', { $set: { zeta: 1, alpha: [1, 2], mid: { a: 1 } } }],
  ['nested documents and arrays replaced', { $set: { nested: { x: { y: 2 } }, arr: [] } }],
  ['an equal nested document', { $set: { nested: cloneValue(stored.nested) } }],
  [
    'dates, ids, binaries',
    { $set: { d: new Date(0), extra: new ObjectId(), bin: new Binary(Buffer.from('x')) } },
  ],
  ['null over a value and over nothing', { $set: { s: null, missing: null } }],
  ['unset present and absent fields', { $unset: { s: '', nope: '' } }],
  ['set and unset together', { $set: { n: 2, added: 'a' }, $unset: { flag: '', nul: '' } }],
  ['only absent fields unset', { $unset: { nope: 1 } }],
];

describe('top-level $set and $unset', () => {
  for (const [name, ops] of cases) {
    it(`${name}: the document and the changed flag mingo gave`, () => {
      const original = cloneValue(stored);
      const mine = applyUpdate(original, parseUpdate(ops));
      const theirs = throughMingo(stored, ops);
      expect(exactKey(mine.doc)).toBe(exactKey(theirs.doc));
      expect(Object.keys(mine.doc)).toEqual(Object.keys(theirs.doc));
      expect(mine.changed).toBe(theirs.changed);
      // The stored document is never changed in place.
      expect(exactKey(original)).toBe(exactKey(stored));
    });
  }

  it('builds the same upserted document (equalities, $set, $setOnInsert)', () => {
    const query = { recordingId: 5, kind: 'x' };
    const update = {
      $set: { title: 't', n: new Int32(2) },
      $setOnInsert: { createdAt: new Date(0), status: 'new' },
    };
    const doc = buildUpsertDocument(query, parseUpdate(update));
    expect(doc._id).toBeInstanceOf(ObjectId);
    const { _id, ...rest } = doc;
    const expected = throughMingo(
      { _id, recordingId: 5, kind: 'x' },
      { $set: { title: 't', n: new Int32(2), createdAt: new Date(0), status: 'new' } },
    ).doc;
    expect(exactKey({ _id, ...rest })).toBe(exactKey(expected));
  });

  it('leaves paths, positional updates, other operators and conflicts to mingo, with its errors', () => {
    const original = cloneValue(stored);
    expect(applyUpdate(original, parseUpdate({ $set: { 'nested.x.y': 5 } })).doc.nested).toEqual({
      x: { y: 5 },
      z: (stored.nested as Document).z,
    });
    expect(applyUpdate(original, parseUpdate({ $push: { arr: 4 } })).doc.arr).toHaveLength(3);
    expect(() => applyUpdate(original, parseUpdate({ $set: { s: 1 }, $unset: { s: '' } }))).toThrow(
      /conflict/,
    );
    expect(() => applyUpdate(original, parseUpdate({ $unset: { _id: '' } }))).toThrow(/_id/);
    expect(exactKey(original)).toBe(exactKey(stored));
  });
});
