// Index keys as bytes whose order is the values' BSON order (compareValues), in the manner of
// mongod's KeyString: an ordered store (LMDB) can then keep an index as plain byte strings and
// answer range scans by comparing bytes, never decoding a key.
//
// A value is its type bracket (one byte, from typeOrder, so the brackets sort as the types do)
// followed by its body. Every encoding is prefix-free (none is the beginning of another), so values
// can be concatenated into compound keys and a descending field's bytes inverted: the first byte
// where two keys differ then decides, as compareValues decides on the first field that differs.
//
// Bodies:
// - numbers (all four BSON types, compared by value): a class byte (NaN, -Infinity, negative, zero,
//   positive, +Infinity), then for a finite non-zero value its binary exponent (2 bytes, biased)
//   and its significand after the leading 1 (8 bytes, left-aligned), both inverted when negative.
//   Exact for doubles and Int64 alike (5, 5.0 and Long(5) are the same key); Decimal128 through its
//   nearest double, as compareNumbers compares it.
// - strings: their UTF-8 bytes (mongod compares strings as bytes) with 0x00 and 0x01 escaped as
//   0x01 0x01 and 0x01 0x02, then a 0x00 terminator that sorts before any byte of a longer string.
// - objects: per field the value's bracket, the escaped name, the value's body; then 0x00.
//   Arrays: each element's encoding, then 0x00.
// - binary data: length (4 bytes), subtype, bytes. ObjectId: its 12 bytes. Booleans: 0 or 1.
//   Dates: 0x00 for an invalid date, else 0x01 and the milliseconds as a sign-flipped Int64.
//   Timestamps: seconds and increment (4 bytes each). Regular expressions: pattern, then flags.
import { numericKind, toDouble } from './numbers.js';
import { typeOrder } from './values.js';

/** Appends bytes to a buffer that grows as needed. */
class ByteWriter {
  private bytes = Buffer.allocUnsafe(64);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  byte(b: number): void {
    this.reserve(1);
    this.bytes[this.length++] = b;
  }

  uint32(n: number): void {
    this.reserve(4);
    this.bytes.writeUInt32BE(n >>> 0, this.length);
    this.length += 4;
  }

  uint64(n: bigint): void {
    this.reserve(8);
    this.bytes.writeBigUInt64BE(n, this.length);
    this.length += 8;
  }

  raw(source: Uint8Array): void {
    this.reserve(source.length);
    this.bytes.set(source, this.length);
    this.length += source.length;
  }

  /** Bytes [from, length) inverted: a descending field. */
  invertFrom(from: number): void {
    for (let i = from; i < this.length; i++) this.bytes[i] = ~this.bytes[i]! & 0xff;
  }

  result(): Buffer {
    return Buffer.from(this.bytes.subarray(0, this.length));
  }
}

/** The byte that begins every value whose typeOrder is `order`: the ranks spread over bytes (1.5, the empty array, included). */
export function typeBracket(order: number): number {
  return order * 10;
}

function bracketOf(value: unknown): number {
  return typeBracket(typeOrder(value));
}

const NUMBER_CLASS = { nan: 0, negativeInfinity: 1, negative: 2, zero: 3, positive: 4, positiveInfinity: 5 };

const TWO_64 = 1n << 64n;

/** |value| as 1.f × 2^exponent: the exponent and f's bits left-aligned in 64 bits. */
function binaryParts(magnitude: bigint | number): { exponent: number; fraction: bigint } {
  if (typeof magnitude === 'bigint') {
    const exponent = magnitude.toString(2).length - 1;
    const fraction = ((magnitude - (1n << BigInt(exponent))) << BigInt(64 - exponent)) % TWO_64;
    return { exponent, fraction };
  }
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, magnitude);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const mantissa = bits & ((1n << 52n) - 1n);
  if (biased > 0) return { exponent: biased - 1023, fraction: mantissa << 12n };
  // Subnormal: mantissa × 2^-1074, its leading 1 somewhere inside the mantissa.
  const top = mantissa.toString(2).length - 1;
  return { exponent: top - 1074, fraction: ((mantissa - (1n << BigInt(top))) << BigInt(64 - top)) % TWO_64 };
}

/** A number as its class and, when finite and not zero, its sign and binary parts. */
function numberParts(value: unknown): { numberClass: number; magnitude?: bigint | number } {
  if (numericKind(value) === 'long') {
    const big = typeof value === 'bigint' ? value : (value as { toBigInt(): bigint }).toBigInt();
    if (big === 0n) return { numberClass: NUMBER_CLASS.zero };
    return big < 0n
      ? { numberClass: NUMBER_CLASS.negative, magnitude: -big }
      : { numberClass: NUMBER_CLASS.positive, magnitude: big };
  }
  const n = toDouble(value) as number;
  if (Number.isNaN(n)) return { numberClass: NUMBER_CLASS.nan };
  if (n === 0) return { numberClass: NUMBER_CLASS.zero };
  if (n === Number.POSITIVE_INFINITY) return { numberClass: NUMBER_CLASS.positiveInfinity };
  if (n === Number.NEGATIVE_INFINITY) return { numberClass: NUMBER_CLASS.negativeInfinity };
  return { numberClass: n < 0 ? NUMBER_CLASS.negative : NUMBER_CLASS.positive, magnitude: Math.abs(n) };
}

function writeNumber(out: ByteWriter, value: unknown): void {
  const { numberClass, magnitude } = numberParts(value);
  out.byte(numberClass);
  if (magnitude === undefined) return;
  const start = out.length;
  const { exponent, fraction } = binaryParts(magnitude);
  out.byte(((exponent + 0x8000) >> 8) & 0xff);
  out.byte((exponent + 0x8000) & 0xff);
  out.uint64(fraction);
  if (numberClass === NUMBER_CLASS.negative) out.invertFrom(start);
}

/** UTF-8 bytes with 0x00 and 0x01 escaped, then the 0x00 terminator. */
function writeString(out: ByteWriter, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (const b of bytes) {
    if (b > 0x01) out.byte(b);
    else {
      out.byte(0x01);
      out.byte(b + 1);
    }
  }
  out.byte(0x00);
}

type Tagged = { _bsontype?: string };

function writeBody(out: ByteWriter, value: unknown): void {
  switch (typeOrder(value)) {
    case 1: // MinKey
    case 1.5: // the empty array of a sort key
    case 2: // null, undefined, missing
    case 13: // MaxKey
      return;
    case 3:
      writeNumber(out, value);
      return;
    case 4: // strings and symbols
      writeString(out, String(value));
      return;
    case 5: {
      const object = value as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        out.byte(bracketOf(object[key]));
        writeString(out, key);
        writeBody(out, object[key]);
      }
      out.byte(0x00);
      return;
    }
    case 6:
      for (const element of value as unknown[]) writeValue(out, element);
      out.byte(0x00);
      return;
    case 7: {
      const binary = value as { sub_type: number; buffer: Uint8Array; length(): number };
      out.uint32(binary.length());
      out.byte(binary.sub_type);
      out.raw(binary.buffer.subarray(0, binary.length()));
      return;
    }
    case 8:
      out.raw((value as { id: Uint8Array }).id);
      return;
    case 9:
      out.byte(value ? 1 : 0);
      return;
    case 10: {
      const time = (value as Date).getTime();
      if (Number.isNaN(time)) out.byte(0x00);
      else {
        out.byte(0x01);
        out.uint64(BigInt(time) + (1n << 63n));
      }
      return;
    }
    case 11: {
      const timestamp = value as { t: number; i: number };
      out.uint32(timestamp.t);
      out.uint32(timestamp.i);
      return;
    }
    case 12: {
      const regex =
        value instanceof RegExp
          ? { pattern: value.source, options: value.flags }
          : (value as { pattern: string; options: string });
      writeString(out, regex.pattern);
      writeString(out, regex.options);
      return;
    }
    default:
      throw new Error(`no key encoding for ${(value as Tagged)?._bsontype ?? typeof value}`);
  }
}

function writeValue(out: ByteWriter, value: unknown): void {
  out.byte(bracketOf(value));
  writeBody(out, value);
}

/** One value's key. */
export function encodeValue(value: unknown): Buffer {
  const out = new ByteWriter();
  writeValue(out, value);
  return out.result();
}

/**
 * A compound key: each value in its field's direction (1 ascending, -1 descending). Byte order of
 * two keys is the order of their values field by field, as an index on those fields sorts them.
 */
export function encodeKey(values: readonly unknown[], directions: readonly number[]): Buffer {
  const out = new ByteWriter();
  values.forEach((value, i) => {
    const start = out.length;
    writeValue(out, value);
    if ((directions[i] ?? 1) < 0) out.invertFrom(start);
  });
  return out.result();
}
