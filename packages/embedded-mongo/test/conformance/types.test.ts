// BSON numeric types are stored as written and compared by value across types, as mongod does:
// https://www.mongodb.com/docs/manual/reference/bson-types/ and
// https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/ (numbers compare by value
// whatever their type). Values are read back with the driver's promotion turned off, so each
// number shows its BSON type.
import { Decimal128, type Document, Double, Int32, Long, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type Target } from './target.js';

let target: Target;

beforeAll(async () => {
  target = await connectTarget('types');
});

afterAll(async () => {
  await target?.close();
});

const RAW = { promoteValues: false, promoteLongs: false } as const;

/** `kind:value` for a number read without promotion, e.g. `long:5`. */
function typed(value: unknown): string {
  if (value instanceof Int32) return `int:${value.value}`;
  if (value instanceof Long) return `long:${value.toString()}`;
  if (value instanceof Double) return `double:${value.value}`;
  if (value instanceof Decimal128) return `decimal:${value.toString()}`;
  return `other:${String(value)}`;
}

function typedDoc(doc: Document): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc)) if (k !== '_id') out[k] = typed(v);
  return out;
}

const SAMPLE = {
  i: new Int32(5),
  l: Long.fromNumber(5),
  big: Long.fromString('9007199254740993'),
  d: new Double(5),
  f: new Double(2.5),
  huge: new Double(3_000_000_000),
  dec: Decimal128.fromString('5.0'),
};
const SAMPLE_TYPED = {
  i: 'int:5',
  l: 'long:5',
  big: 'long:9007199254740993',
  d: 'double:5',
  f: 'double:2.5',
  huge: 'double:3000000000',
  dec: 'decimal:5.0',
};

let counter = 0;
async function collectionWith(docs: Array<{ _id: number | string } & Document>) {
  const c = target.db.collection<{ _id: number | string; [key: string]: unknown }>(`t_${counter++}`);
  if (docs.length > 0) await c.insertMany(docs.map((d) => ({ ...d })));
  return c;
}

describe('numeric types round-trip', () => {
  it('insert and find keep Int32, Int64, Double (also integral) and Decimal128', async () => {
    const c = await collectionWith([{ _id: 1, ...SAMPLE }]);
    const doc = await c.findOne({ _id: 1 }, RAW);
    expect(typedDoc(doc!)).toEqual(SAMPLE_TYPED);
  });

  it('aggregate and an update of another field keep them', async () => {
    const c = await collectionWith([{ _id: 1, ...SAMPLE }]);
    const [agg] = await c.aggregate([{ $match: { _id: 1 } }, { $project: { x: 0 } }], RAW).toArray();
    expect(typedDoc(agg!)).toEqual(SAMPLE_TYPED);
    await c.updateOne({ _id: 1 }, { $set: { other: 'x' } });
    const { other, ...rest } = (await c.findOne({ _id: 1 }, RAW))!;
    expect(other).toBe('x');
    expect(typedDoc(rest)).toEqual(SAMPLE_TYPED);
  });

  it('$set of the same value with another type is a modification', async () => {
    const c = await collectionWith([{ _id: 1, v: new Int32(5) }]);
    const res = await c.updateOne({ _id: 1 }, { $set: { v: new Double(5) } });
    expect(res.modifiedCount).toBe(1);
    expect(typed((await c.findOne({ _id: 1 }, RAW))!.v)).toBe('double:5');
  });
});

describe('$type', () => {
  // https://www.mongodb.com/docs/manual/reference/operator/query/type/
  it('tells int, long, double and decimal apart; "number" matches them all', async () => {
    const c = await collectionWith([
      { _id: 'int', v: new Int32(5) },
      { _id: 'long', v: Long.fromNumber(5) },
      { _id: 'double', v: new Double(5) },
      { _id: 'decimal', v: Decimal128.fromString('5') },
      { _id: 'string', v: '5' },
    ]);
    const ids = async (filter: Document) =>
      (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ v: { $type: 'int' } })).toEqual(['int']);
    expect(await ids({ v: { $type: 'long' } })).toEqual(['long']);
    expect(await ids({ v: { $type: 'double' } })).toEqual(['double']);
    expect(await ids({ v: { $type: 'decimal' } })).toEqual(['decimal']);
    expect(await ids({ v: { $type: 16 } })).toEqual(['int']);
    expect(await ids({ v: { $type: 18 } })).toEqual(['long']);
    expect(await ids({ v: { $type: 1 } })).toEqual(['double']);
    expect(await ids({ v: { $type: 19 } })).toEqual(['decimal']);
    expect(await ids({ v: { $type: 'number' } })).toEqual(['decimal', 'double', 'int', 'long']);
    expect(await ids({ v: { $type: ['string', 'long'] } })).toEqual(['long', 'string']);
  });
});

describe('comparison across numeric types', () => {
  it('equal values of every numeric type are equal', async () => {
    const c = await collectionWith([
      { _id: 1, v: new Int32(5) },
      { _id: 2, v: Long.fromNumber(5) },
      { _id: 3, v: new Double(5) },
      { _id: 4, v: Decimal128.fromString('5.00') },
      { _id: 5, v: new Int32(6) },
    ]);
    for (const probe of [new Int32(5), Long.fromNumber(5), new Double(5), Decimal128.fromString('5')]) {
      const ids = (await c.find({ v: probe }).toArray()).map((d) => d._id).sort();
      expect(ids).toEqual([1, 2, 3, 4]);
      expect(await c.countDocuments({ v: { $in: [probe] } })).toBe(4);
    }
  });

  it('Decimal128 compares with other numbers by value', async () => {
    const c = await collectionWith([
      { _id: 1, v: Decimal128.fromString('4.5') },
      { _id: 2, v: Decimal128.fromString('5') },
      { _id: 3, v: Decimal128.fromString('7.25') },
    ]);
    const ids = async (filter: Document) =>
      (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ v: { $gte: 5 } })).toEqual([2, 3]);
    expect(await ids({ v: { $gt: new Double(4.5) } })).toEqual([2, 3]);
    expect(await ids({ v: { $lt: Long.fromNumber(5) } })).toEqual([1]);
    expect(await ids({ v: { $lte: 7.25 } })).toEqual([1, 2, 3]);
  });

  it('a mixed collection sorts by numeric value, Int64 exactly', async () => {
    const c = await collectionWith([
      { _id: 'long 3', v: Long.fromNumber(3) },
      { _id: 'double 2.5', v: 2.5 },
      { _id: 'int 2', v: new Int32(2) },
      { _id: 'decimal 1.5', v: Decimal128.fromString('1.5') },
      { _id: 'long 2^53+1', v: Long.fromString('9007199254740993') },
      { _id: 'double 2^53', v: 9007199254740992 },
      { _id: 'string', v: 'a' },
    ]);
    const ids = (await c.find().sort({ v: 1 }).toArray()).map((d) => d._id);
    expect(ids).toEqual([
      'decimal 1.5',
      'int 2',
      'double 2.5',
      'long 3',
      'double 2^53',
      'long 2^53+1',
      'string',
    ]);
    const agg = await c.aggregate([{ $sort: { v: -1 } }]).toArray();
    expect(agg.map((d) => d._id)).toEqual([...ids].reverse());
    expect(await c.countDocuments({ v: { $gt: 9007199254740992 } })).toBe(1);
  });

  it('$expr compares values of different types in BSON order', async () => {
    // https://www.mongodb.com/docs/manual/reference/operator/aggregation/gt/ compares "both value and type"
    const c = await collectionWith([
      { _id: 1, a: 'text', b: 5 },
      { _id: 2, a: 5, b: 'text' },
      { _id: 3, a: Long.fromNumber(6), b: new Double(5.5) },
      { _id: 4, a: Decimal128.fromString('5'), b: new Int32(5) },
    ]);
    const ids = async (expr: Document) =>
      (await c.find({ $expr: expr }).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ $gt: ['$a', '$b'] })).toEqual([1, 3]);
    expect(await ids({ $eq: ['$a', '$b'] })).toEqual([4]);
    expect(await ids({ $lt: ['$a', '$b'] })).toEqual([2]);
    const [cmp] = await c
      .aggregate([{ $match: { _id: 3 } }, { $project: { c: { $cmp: ['$a', '$b'] } } }])
      .toArray();
    expect(cmp!.c).toBe(1);
  });
});

describe('aggregation arithmetic', () => {
  // https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/: "$sum ... of long values
  // returns a long"; $avg returns a double.
  it('computes with Int64 and Double operands; $sum of Int64 is an Int64', async () => {
    const c = await collectionWith([
      { _id: 1, l: Long.fromNumber(5), d: new Double(5) },
      { _id: 2, l: Long.fromNumber(7), d: new Double(1) },
    ]);
    const added = await c
      .aggregate([
        { $sort: { _id: 1 } },
        { $project: { _id: 0, r: { $add: ['$l', '$d', 1] }, a: { $abs: '$l' } } },
      ])
      .toArray();
    expect(added).toEqual([
      { r: 11, a: 5 },
      { r: 9, a: 7 },
    ]);
    const [group] = await c
      .aggregate([{ $group: { _id: null, s: { $sum: '$l' }, m: { $max: '$l' }, a: { $avg: '$d' } } }], RAW)
      .toArray();
    expect(typedDoc(group!)).toEqual({ s: 'long:12', m: 'long:7', a: 'double:3' });
  });
});

describe('arithmetic keeps mongod types', () => {
  // https://www.mongodb.com/docs/manual/reference/operator/update/inc/ and /mul/: mixed numeric
  // types follow the multiplication type conversion rules (the wider type wins).
  async function updated(doc: Document, update: Document): Promise<Record<string, string>> {
    const c = await collectionWith([{ _id: 1, ...doc }]);
    await c.updateOne({ _id: 1 }, update);
    return typedDoc((await c.findOne({ _id: 1 }, RAW))!);
  }

  it('$inc of an Int32 past its range gives an Int64', async () => {
    expect(await updated({ n: new Int32(2147483647) }, { $inc: { n: new Int32(1) } })).toEqual({
      n: 'long:2147483648',
    });
  });

  it('$inc of a large Int64 is exact', async () => {
    expect(await updated({ n: Long.fromString('9007199254740993') }, { $inc: { n: new Int32(1) } })).toEqual({
      n: 'long:9007199254740994',
    });
  });

  it('mixed types take the wider type; a missing field takes the argument', async () => {
    expect(
      await updated(
        { a: new Int32(2), b: new Int32(2), c: Long.fromNumber(2) },
        {
          $inc: { a: new Double(1), c: new Int32(1), m: Long.fromNumber(7) },
          $mul: { b: Long.fromNumber(3) },
        },
      ),
    ).toEqual({ a: 'double:3', b: 'long:6', c: 'long:3', m: 'long:7' });
    expect(await updated({}, { $mul: { z: new Double(3) } })).toEqual({ z: 'double:0' });
  });

  it('$min and $max compare across numeric types', async () => {
    expect(
      await updated(
        { lo: new Int32(5), hi: new Int32(5) },
        { $min: { lo: Long.fromNumber(3) }, $max: { hi: 4.5 } },
      ),
    ).toEqual({ lo: 'long:3', hi: 'int:5' });
  });
});

describe('ObjectIds', () => {
  // Byte order (the timestamp first): ids whose bytes differ early, late, and above 0x7f.
  const hex = [
    'ff0000000000000000000001',
    '00000000000000000000ffff',
    '7f00000000000000000000ff',
    '7f0000000000000000000100',
    '800000000000000000000000',
  ];
  const ids = hex.map((h) => new ObjectId(h));
  const sorted = [...hex].sort();

  for (const indexed of [false, true]) {
    it(`sort, range and equality in byte order${indexed ? ' (indexed)' : ''}`, async () => {
      const c = await collectionWith(ids.map((ref, i) => ({ _id: i, ref })));
      if (indexed) await c.createIndex({ ref: 1 });
      const refs = async (filter: Document, dir: 1 | -1 = 1) =>
        (await c.find(filter).sort({ ref: dir }).toArray()).map((d) => (d.ref as ObjectId).toHexString());
      expect(await refs({})).toEqual(sorted);
      expect(await refs({}, -1)).toEqual([...sorted].reverse());
      expect(await refs({ ref: { $gt: new ObjectId('7f0000000000000000000100') } })).toEqual(
        sorted.filter((h) => h > '7f0000000000000000000100'),
      );
      expect(await refs({ ref: new ObjectId('7f00000000000000000000ff') })).toEqual([
        '7f00000000000000000000ff',
      ]);
      expect(await refs({ ref: { $in: [new ObjectId('800000000000000000000000'), 'x'] } })).toEqual([
        '800000000000000000000000',
      ]);
    });
  }
});
