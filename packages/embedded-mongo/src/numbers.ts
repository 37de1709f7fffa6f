// BSON's four numeric types as the engine keeps them, compared and added as mongod does.
//
// Representation (chosen so the common values stay plain JS numbers, which mingo and the app's hot
// paths handle natively, while every BSON type survives a round trip):
// - Int32: a JS number that is an integer in int32 range (and not -0). bson writes these back as int32.
// - Double: a JS number otherwise (fractions, NaN, ±Infinity, -0, integers outside int32 range), which
//   bson writes back as a double; an integral double in int32 range (5.0) is a `Double` wrapper,
//   the only case a plain number would be written back as the wrong type.
// - Int64: always a `Long` wrapper. Decimal128: always a `Decimal128` wrapper.
import { Decimal128, Double, type Int32, Long } from 'bson';

export type NumericKind = 'int' | 'long' | 'double' | 'decimal';

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function tagOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

function isInt32Number(n: number): boolean {
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX && !Object.is(n, -0);
}

/** The BSON numeric type of a value, or undefined for anything else. */
export function numericKind(value: unknown): NumericKind | undefined {
  if (typeof value === 'number') return isInt32Number(value) ? 'int' : 'double';
  if (typeof value === 'bigint') return 'long';
  switch (tagOf(value)) {
    case 'Int32':
      return 'int';
    case 'Long':
      return 'long';
    case 'Double':
      return 'double';
    case 'Decimal128':
      return 'decimal';
    default:
      return undefined;
  }
}

/** The value as a JS number (approximate for large Int64 and for Decimal128). */
export function toDouble(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  switch (tagOf(value)) {
    case 'Long':
      return (value as Long).toNumber();
    case 'Int32':
    case 'Double':
      return (value as { valueOf(): number }).valueOf();
    case 'Decimal128':
      return Number.parseFloat(String(value));
    default:
      return undefined;
  }
}

function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (tagOf(value) === 'Long') return (value as Long).toBigInt();
  return BigInt(toDouble(value) as number);
}

/** A double as the engine stores it (a `Double` wrapper only where a number would read back as int32). */
export function fromDouble(n: number): unknown {
  return isInt32Number(n) ? new Double(n) : n;
}

/** The value as the engine stores it: decoded wrappers that plain numbers represent are unwrapped. */
export function normalizeNumber(value: Int32 | Double): unknown {
  const n = value.valueOf();
  return tagOf(value) === 'Int32' || !isInt32Number(n) ? n : value;
}

/**
 * Three-way numeric comparison across types, exact between integers and doubles (as mongod);
 * NaN sorts below every other number and equals itself. Decimal128 is compared through its nearest
 * double (no decimal arithmetic here).
 */
export function compareNumbers(a: unknown, b: unknown): number {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (ka === 'long' || kb === 'long') {
    if (ka !== 'decimal' && kb !== 'decimal') return compareWithLong(a, b);
  }
  const x = toDouble(a) as number;
  const y = toDouble(b) as number;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareWithLong(a: unknown, b: unknown): number {
  const x = toDouble(a) as number;
  const y = toDouble(b) as number;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x < y ? -1 : x > y ? 1 : 0;
  // Both finite: compare exactly, a fractional double by its floor plus the fraction.
  const fa = Math.floor(x);
  const fb = Math.floor(y);
  const ia = numericKind(a) === 'long' ? toBigInt(a) : BigInt(fa);
  const ib = numericKind(b) === 'long' ? toBigInt(b) : BigInt(fb);
  if (ia !== ib) return ia < ib ? -1 : 1;
  const ra = numericKind(a) === 'long' ? 0 : x - fa;
  const rb = numericKind(b) === 'long' ? 0 : y - fb;
  return ra < rb ? -1 : ra > rb ? 1 : 0;
}

/** Canonical text of a numeric value: equal numbers of any type give the same text. */
export function numberKey(value: unknown): string {
  if (numericKind(value) === 'long') {
    const big = toBigInt(value);
    const n = Number(big);
    if (BigInt(n) === big) return numberKey(n);
    return `n${big}`;
  }
  const n = toDouble(value) as number;
  return n === 0 ? 'n0' : `n${n}`;
}

/** Raised for arithmetic the engine does not do (Decimal128) or whose result has no type (Int64 overflow). */
export class ArithmeticError extends Error {}

const RANK: Record<NumericKind, number> = { int: 0, long: 1, double: 2, decimal: 3 };

/**
 * `a + b` or `a * b` with mongod's result type: the wider operand's type, Int32 overflowing into
 * Int64, Int64 exact; an Int64 overflow has no result (mongod fails the update).
 */
export function arithmetic(op: 'add' | 'multiply', a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    // Fast path for plain numbers: exact as long as the result is a safe integer.
    const r = op === 'add' ? a + b : a * b;
    if (!isInt32Number(a) || !isInt32Number(b)) return fromDouble(r);
    if (isInt32Number(r)) return r;
    if (Number.isSafeInteger(r)) return Long.fromNumber(r);
  }
  const ka = numericKind(a) as NumericKind;
  const kb = numericKind(b) as NumericKind;
  const kind = RANK[ka] >= RANK[kb] ? ka : kb;
  if (kind === 'decimal') throw new ArithmeticError('Decimal128 arithmetic is not supported by this engine');
  if (kind === 'double') {
    const x = toDouble(a) as number;
    const y = toDouble(b) as number;
    return fromDouble(op === 'add' ? x + y : x * y);
  }
  const x = toBigInt(a);
  const y = toBigInt(b);
  const r = op === 'add' ? x + y : x * y;
  if (kind === 'int' && r >= INT32_MIN && r <= INT32_MAX) return Number(r);
  if (r < INT64_MIN || r > INT64_MAX) throw new ArithmeticError('Int64 overflow');
  return Long.fromBigInt(r);
}

/** A zero of the given value's type (what `$inc`/`$mul` start from on a missing field). */
export function zeroLike(value: unknown): unknown {
  switch (numericKind(value)) {
    case 'long':
      return Long.fromInt(0);
    case 'double':
      return new Double(0);
    case 'decimal':
      return Decimal128.fromString('0');
    default:
      return 0;
  }
}

/**
 * `$sum` of the numbers among `values` (others are ignored, as mongod does), typed like repeated
 * additions; when those have no result (Decimal128, Int64 overflow) the sum is a double.
 */
export function sumNumbers(values: unknown[]): unknown {
  const numbers = values.filter((v) => numericKind(v) !== undefined);
  try {
    return numbers.reduce((total, v) => arithmetic('add', total, v), 0);
  } catch (err) {
    if (!(err instanceof ArithmeticError)) throw err;
    return numbers.reduce((total: number, v) => total + (toDouble(v) as number), 0);
  }
}
