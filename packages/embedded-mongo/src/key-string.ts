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
//
// A key decodes (decodeKey) to values that compare as the encoded ones did, not to the very same
// values: every number comes back a double (or a Long beyond a double's precision), a symbol a
// string. That is all an index scan needs of them: bounds on later fields, sort keys.
import { Binary, BSONRegExp, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { numericKind, toDouble } from './numbers.js';
import { EMPTY_ARRAY, typeOrder } from './values.js';

/** Appends bytes to a buffer that grows as needed: one, reused by every encoding. */
class ByteWriter {
  private bytes = Buffer.allocUnsafe(1024);
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

  /** A copy of what was written; the writer is empty again. */
  result(): Buffer {
    const bytes = Buffer.allocUnsafe(this.length);
    this.bytes.copy(bytes, 0, 0, this.length);
    this.length = 0;
    return bytes;
  }
}

const writer = new ByteWriter();

/** The byte that begins every value whose typeOrder is `order`: the ranks spread over bytes (1.5, the empty array, included). */
export function typeBracket(order: number): number {
  return order * 10;
}

function bracketOf(value: unknown): number {
  return typeBracket(typeOrder(value));
}

const NUMBER_CLASS = { nan: 0, negativeInfinity: 1, negative: 2, zero: 3, positive: 4, positiveInfinity: 5 };

const TWO_64 = 1n << 64n;

/** |value| of an Int64 as 1.f × 2^exponent: the exponent and f's bits left-aligned in 64 bits. */
function longParts(magnitude: bigint): { exponent: number; fraction: bigint } {
  const exponent = magnitude.toString(2).length - 1;
  const fraction = ((magnitude - (1n << BigInt(exponent))) << BigInt(64 - exponent)) % TWO_64;
  return { exponent, fraction };
}

const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A finite, non-zero double's magnitude as its exponent (2 bytes, biased) and 8 bytes of fraction. */
function writeDoubleMagnitude(out: ByteWriter, magnitude: number): void {
  float[0] = magnitude;
  // The double's bytes, most significant first.
  const b = (i: number) => floatBytes[LITTLE_ENDIAN ? 7 - i : i]!;
  const biased = ((b(0) & 0x7f) << 4) | (b(1) >> 4);
  if (biased === 0) {
    // Subnormal: mantissa × 2^-1074, its leading 1 somewhere inside the mantissa.
    let mantissa = 0n;
    for (let i = 1; i < 8; i++) mantissa = (mantissa << 8n) | BigInt(i === 1 ? b(i) & 0x0f : b(i));
    const top = mantissa.toString(2).length - 1;
    writeExponent(out, top - 1074);
    out.uint64(((mantissa - (1n << BigInt(top))) << BigInt(64 - top)) % TWO_64);
    return;
  }
  writeExponent(out, biased - 1023);
  // The 52 mantissa bits, left-aligned: each byte is the low nibble of one and the high of the next.
  for (let i = 1; i < 7; i++) out.byte(((b(i) & 0x0f) << 4) | (b(i + 1) >> 4));
  out.byte((b(7) & 0x0f) << 4);
  out.byte(0);
}

function writeExponent(out: ByteWriter, exponent: number): void {
  out.byte(((exponent + 0x8000) >> 8) & 0xff);
  out.byte((exponent + 0x8000) & 0xff);
}

function writeNumber(out: ByteWriter, value: unknown): void {
  if (numericKind(value) === 'long') {
    const big = typeof value === 'bigint' ? value : (value as { toBigInt(): bigint }).toBigInt();
    if (big === 0n) {
      out.byte(NUMBER_CLASS.zero);
      return;
    }
    out.byte(big < 0n ? NUMBER_CLASS.negative : NUMBER_CLASS.positive);
    const start = out.length;
    const { exponent, fraction } = longParts(big < 0n ? -big : big);
    writeExponent(out, exponent);
    out.uint64(fraction);
    if (big < 0n) out.invertFrom(start);
    return;
  }
  const n = typeof value === 'number' ? value : (toDouble(value) as number);
  if (Number.isNaN(n)) out.byte(NUMBER_CLASS.nan);
  else if (n === 0) out.byte(NUMBER_CLASS.zero);
  else if (n === Number.POSITIVE_INFINITY) out.byte(NUMBER_CLASS.positiveInfinity);
  else if (n === Number.NEGATIVE_INFINITY) out.byte(NUMBER_CLASS.negativeInfinity);
  else {
    out.byte(n < 0 ? NUMBER_CLASS.negative : NUMBER_CLASS.positive);
    const start = out.length;
    writeDoubleMagnitude(out, Math.abs(n));
    if (n < 0) out.invertFrom(start);
  }
}

/** UTF-8 bytes with 0x00 and 0x01 escaped, then the 0x00 terminator. */
function writeString(out: ByteWriter, text: string): void {
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) {
    const c = text.charCodeAt(i);
    ascii = c > 0x01 && c < 0x80;
  }
  if (ascii) {
    for (let i = 0; i < text.length; i++) out.byte(text.charCodeAt(i));
    out.byte(0x00);
    return;
  }
  for (const b of Buffer.from(text, 'utf8')) {
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
        // time + 2^63 as an unsigned 64-bit number: the sign flipped.
        out.byte(0x01);
        out.uint32(Math.floor(time / 2 ** 32) + 2 ** 31);
        out.uint32(((time % 2 ** 32) + 2 ** 32) % 2 ** 32);
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
  writeValue(writer, value);
  return writer.result();
}

/**
 * A compound key: each value in its field's direction (1 ascending, -1 descending). Byte order of
 * two keys is the order of their values field by field, as an index on those fields sorts them.
 */
export function encodeKey(values: readonly unknown[], directions: readonly number[]): Buffer {
  for (let i = 0; i < values.length; i++) {
    const start = writer.length;
    writeValue(writer, values[i]);
    if ((directions[i] ?? 1) < 0) writer.invertFrom(start);
  }
  return writer.result();
}

/** Reads key bytes from `at`, every byte inverted while in a descending field. */
class ByteReader {
  invert = 0;

  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
  ) {}

  byte(): number {
    return this.bytes[this.at++]! ^ this.invert;
  }

  uint32(): number {
    return ((this.byte() << 24) | (this.byte() << 16) | (this.byte() << 8) | this.byte()) >>> 0;
  }

  take(n: number): Uint8Array {
    const taken = this.bytes.slice(this.at, this.at + n);
    if (this.invert) for (let i = 0; i < n; i++) taken[i] = taken[i]! ^ 0xff;
    this.at += n;
    return taken;
  }
}

/**
 * The values of a key encodeKey wrote into `bytes` from `at`, one per direction: values that
 * compare as the encoded ones did (see the top of this file).
 */
export function decodeKey(bytes: Uint8Array, at: number, directions: readonly number[]): unknown[] {
  const reader = new ByteReader(bytes, at);
  return directions.map((direction) => {
    reader.invert = direction < 0 ? 0xff : 0;
    return readBody(reader, reader.byte());
  });
}

function readBody(r: ByteReader, bracket: number): unknown {
  switch (bracket) {
    case typeBracket(1):
      return new MinKey();
    case typeBracket(1.5):
      return EMPTY_ARRAY;
    case typeBracket(2):
      return null;
    case typeBracket(3):
      return readNumber(r);
    case typeBracket(4):
      return readString(r);
    case typeBracket(5): {
      const object: Record<string, unknown> = {};
      for (let field = r.byte(); field !== 0; field = r.byte()) {
        const name = readString(r);
        Object.defineProperty(object, name, {
          value: readBody(r, field),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    case typeBracket(6): {
      const array: unknown[] = [];
      for (let element = r.byte(); element !== 0; element = r.byte()) array.push(readBody(r, element));
      return array;
    }
    case typeBracket(7): {
      const length = r.uint32();
      const subType = r.byte();
      return new Binary(r.take(length), subType);
    }
    case typeBracket(8):
      return new ObjectId(r.take(12));
    case typeBracket(9):
      return r.byte() === 1;
    case typeBracket(10): {
      if (r.byte() === 0) return new Date(Number.NaN);
      const high = r.uint32();
      return new Date((high - 2 ** 31) * 2 ** 32 + r.uint32());
    }
    case typeBracket(11): {
      const t = r.uint32();
      return new Timestamp({ t, i: r.uint32() });
    }
    case typeBracket(12): {
      const pattern = readString(r);
      return new BSONRegExp(pattern, readString(r));
    }
    case typeBracket(13):
      return new MaxKey();
    default:
      throw new Error(`no value begins with ${bracket} in an index key`);
  }
}

function readNumber(r: ByteReader): unknown {
  const numberClass = r.byte();
  switch (numberClass) {
    case NUMBER_CLASS.nan:
      return Number.NaN;
    case NUMBER_CLASS.negativeInfinity:
      return Number.NEGATIVE_INFINITY;
    case NUMBER_CLASS.zero:
      return 0;
    case NUMBER_CLASS.positiveInfinity:
      return Number.POSITIVE_INFINITY;
  }
  const negative = numberClass === NUMBER_CLASS.negative;
  const bytes = r.take(10);
  if (negative) for (let i = 0; i < 10; i++) bytes[i] = bytes[i]! ^ 0xff;
  const exponent = ((bytes[0]! << 8) | bytes[1]!) - 0x8000;
  const f = bytes.subarray(2);
  // Bits past a double's 52 of fraction: an Int64 a double cannot hold.
  if ((f[6]! & 0x0f) !== 0 || f[7] !== 0) {
    let fraction = 0n;
    for (const byte of f) fraction = (fraction << 8n) | BigInt(byte);
    const magnitude = (1n << BigInt(exponent)) + (fraction >> BigInt(64 - exponent));
    return Long.fromBigInt(negative ? -magnitude : magnitude);
  }
  const mantissa =
    f[0]! * 2 ** 44 +
    f[1]! * 2 ** 36 +
    f[2]! * 2 ** 28 +
    f[3]! * 2 ** 20 +
    f[4]! * 2 ** 12 +
    f[5]! * 2 ** 4 +
    (f[6]! >> 4);
  const magnitude = (1 + mantissa / 2 ** 52) * 2 ** exponent;
  return negative ? -magnitude : magnitude;
}

function readString(r: ByteReader): string {
  const bytes: number[] = [];
  let ascii = true;
  for (let b = r.byte(); b !== 0x00; b = r.byte()) {
    const unescaped = b === 0x01 ? r.byte() - 1 : b;
    ascii &&= unescaped < 0x80;
    bytes.push(unescaped);
  }
  return ascii ? String.fromCharCode(...bytes) : Buffer.from(bytes).toString('utf8');
}
