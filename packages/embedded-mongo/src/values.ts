// Helpers for BSON values as they appear after `BSON.deserialize`: plain objects, arrays, JS primitives,
// Date, RegExp and the `bson` classes (ObjectId, Long, Decimal128, Binary, Timestamp, ...).

import { compareNumbers, numberKey, numericKind } from './numbers.js';

export type Document = Record<string, unknown>;

/** How two strings compare: code point order by default, a collation's ICU order (collation.ts). */
export type StringComparator = (a: string, b: string) => number;

/** Marker for a missing field (distinct from `null`). */
export const MISSING: unique symbol = Symbol('missing');

/** The sort key of an empty array: BSON undefined, after MinKey and before null. */
export const EMPTY_ARRAY: unique symbol = Symbol('empty array');

export function isPlainObject(value: unknown): value is Document {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function bsonTypeOf(value: object): string | undefined {
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

/**
 * Deep copy of a document/value. Plain objects, arrays and Dates are copied; BSON class instances
 * (ObjectId, Long, Decimal128, ...) are immutable in practice and shared.
 */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneValue(value[i]);
    return out as T;
  }
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (isPlainObject(value)) {
    const out: Document = {};
    for (const key of Object.keys(value)) out[key] = cloneValue(value[key]);
    return out as T;
  }
  return value;
}

/** Returns a copy of `doc` with `_id` moved to the first position (mongod always stores `_id` first). */
export function idFirst(doc: Document): Document {
  if (firstKey(doc) === '_id' || !('_id' in doc)) return doc;
  const out: Document = { _id: doc._id };
  for (const key of Object.keys(doc)) if (key !== '_id') out[key] = doc[key];
  return out;
}

/** The first key of `doc`, without listing the others (every insert asks). */
function firstKey(doc: Document): string | undefined {
  for (const key in doc) return key;
  return undefined;
}

/** True for values MongoDB treats as numbers (JS numbers and the numeric BSON wrappers). */
export function isNumeric(value: unknown): boolean {
  return numericKind(value) !== undefined;
}

/**
 * Canonical string for hashing/equality with MongoDB semantics: numbers of different BSON types
 * compare equal by value, objects are key-order sensitive, missing/undefined is treated as null.
 */
export function keyString(value: unknown): string {
  return canonicalKey(value, false);
}

/**
 * Like keyString, but numbers of different BSON types differ: whether an update changed a document
 * (mongod compares the stored bytes, so 5 → 5.0 is a change).
 */
export function exactKey(value: unknown): string {
  return canonicalKey(value, true);
}

function canonicalKey(value: unknown, typed: boolean): string {
  if (value === null || value === undefined || value === MISSING) return 'z';
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return typed ? `${numericKind(value)}:${numberKey(value)}` : numberKey(value);
    case 'string':
      return `s${JSON.stringify(value)}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'object':
      break;
    default:
      return `?${String(value)}`;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalKey(value[i], typed);
    }
    return `${out}]`;
  }
  if (value instanceof Date) return `d${value.getTime()}`;
  if (value instanceof RegExp) return `r${JSON.stringify(`${value.source}/${value.flags}`)}`;
  const tag = bsonTypeOf(value);
  if (tag === undefined) {
    const obj = value as Document;
    let out = '{';
    let first = true;
    for (const key of Object.keys(obj)) {
      if (obj[key] === undefined) continue;
      if (!first) out += ',';
      first = false;
      out += `${JSON.stringify(key)}:${canonicalKey(obj[key], typed)}`;
    }
    return `${out}}`;
  }
  switch (tag) {
    case 'ObjectId':
      return `o${(value as { toHexString(): string }).toHexString()}`;
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return typed ? `${numericKind(value)}:${numberKey(value)}` : numberKey(value);
    case 'Binary': {
      const bin = value as { sub_type: number; toString(enc: 'base64'): string };
      return `x${bin.sub_type}:${bin.toString('base64')}`;
    }
    case 'Timestamp':
      return `T${String(value)}`;
    case 'MinKey':
      return '-';
    case 'MaxKey':
      return '+';
    case 'BSONRegExp': {
      const re = value as { pattern: string; options: string };
      return `r${JSON.stringify(`${re.pattern}/${re.options}`)}`;
    }
    case 'BSONSymbol':
      return `s${JSON.stringify(String(value))}`;
    case 'Code':
      return `c${JSON.stringify((value as { code: string }).code)}`;
    default:
      return `?${tag}:${JSON.stringify(value)}`;
  }
}

/** MongoDB's canonical BSON type ordering used for sorting mixed types. */
export function typeOrder(value: unknown): number {
  if (value === EMPTY_ARRAY) return 1.5;
  if (value === undefined || value === null || value === MISSING) return 2;
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 3;
    case 'string':
      return 4;
    case 'boolean':
      return 9;
  }
  if (Array.isArray(value)) return 6;
  if (value instanceof Date) return 10;
  if (value instanceof RegExp) return 12;
  const tag = typeof value === 'object' ? bsonTypeOf(value as object) : undefined;
  switch (tag) {
    case undefined:
      return 5;
    case 'MinKey':
      return 1;
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return 3;
    case 'BSONSymbol':
      return 4;
    case 'Binary':
      return 7;
    case 'ObjectId':
      return 8;
    case 'Timestamp':
      return 11;
    case 'BSONRegExp':
      return 12;
    case 'MaxKey':
      return 13;
    default:
      return 5;
  }
}

/**
 * Two strings in mongod's order: their UTF-8 bytes', which is code point order. JavaScript's `<`
 * compares UTF-16 units, which disagrees only where one string has a code point above U+FFFF (a
 * surrogate pair, units D800-DFFF) and the other a unit from U+E000 to U+FFFF at the first
 * difference: the surrogate's code point is the greater.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  if (x >= 0xd800 && y >= 0xd800) {
    const surrogateX = x <= 0xdfff;
    if (surrogateX !== y <= 0xdfff) return surrogateX ? 1 : -1;
  }
  return x < y ? -1 : 1;
}

/** A regular expression's parts: mongod orders them by pattern, then flags. */
function regexParts(value: unknown): [string, string] {
  if (value instanceof RegExp) return [value.source, value.flags];
  const regex = value as { pattern: string; options: string };
  return [regex.pattern, regex.options];
}

function cmp<T>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Dates by time; an invalid one (a BSON date beyond what a JavaScript Date holds) before every
 * other and equal to another, as NaN among numbers, so that the order stays total.
 */
function compareTimes(a: Date, b: Date): number {
  const x = a.getTime();
  const y = b.getTime();
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  return Number.isNaN(y) ? 1 : cmp(x, y);
}

// An ObjectId's hex string, computed once per instance: index entries keep their ObjectIds, and
// every B-tree comparison on an ObjectId field would otherwise build two strings.
const objectIdHex = new WeakMap<object, string>();
type ObjectIdLike = { toHexString(): string; equals(other: unknown): boolean };
function isObjectId(value: unknown): value is ObjectIdLike {
  return (
    typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'ObjectId'
  );
}
function hexOf(id: ObjectIdLike): string {
  let hex = objectIdHex.get(id);
  if (hex === undefined) {
    hex = id.toHexString();
    objectIdHex.set(id, hex);
  }
  return hex;
}

type ObjectIdWords = { i0: number; i1: number; i2: number; i3: number };
function hasWords(id: object): id is ObjectIdWords {
  return typeof (id as { i0?: unknown }).i0 === 'number';
}

/** Byte order of two ObjectIds. */
function compareObjectIds(a: ObjectIdLike, b: ObjectIdLike): number {
  // bson 7 holds an ObjectId as four 24-bit big-endian words, so comparing the words compares the
  // bytes without building strings; other representations fall back to the hex strings.
  if (hasWords(a) && hasWords(b)) {
    if (a.i0 !== b.i0) return a.i0 < b.i0 ? -1 : 1;
    if (a.i1 !== b.i1) return a.i1 < b.i1 ? -1 : 1;
    if (a.i2 !== b.i2) return a.i2 < b.i2 ? -1 : 1;
    return a.i3 === b.i3 ? 0 : a.i3 < b.i3 ? -1 : 1;
  }
  return a.equals(b) ? 0 : cmp(hexOf(a), hexOf(b));
}

/**
 * Total order over BSON values, following mongod's comparison rules (for sorting). `strings`, a
 * collation's comparison, orders strings (and symbols), at any depth; nothing else changes.
 */
export function compareValues(a: unknown, b: unknown, strings?: StringComparator): number {
  // The common cases of index keys first: two plain numbers (not NaN) or two strings.
  if (typeof a === 'number' && typeof b === 'number') {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a === b) return 0;
  } else if (typeof a === 'string' && typeof b === 'string') return (strings ?? compareCodePoints)(a, b);
  else if (a instanceof Date && b instanceof Date) return compareTimes(a, b);
  else if (isObjectId(a) && isObjectId(b)) return compareObjectIds(a, b);
  const ta = typeOrder(a);
  const tb = typeOrder(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  switch (ta) {
    case 1:
    case 1.5:
    case 2:
    case 13:
      return 0;
    case 3:
      return compareNumbers(a, b);
    case 4:
      return (strings ?? compareCodePoints)(String(a), String(b));
    case 5: {
      const oa = a as Document;
      const ob = b as Document;
      const ka = Object.keys(oa);
      const kb = Object.keys(ob);
      const n = Math.min(ka.length, kb.length);
      for (let i = 0; i < n; i++) {
        const va = oa[ka[i]!];
        const vb = ob[kb[i]!];
        const t = cmp(typeOrder(va), typeOrder(vb));
        if (t !== 0) return t;
        const k = compareCodePoints(ka[i]!, kb[i]!);
        if (k !== 0) return k;
        const v = compareValues(va, vb, strings);
        if (v !== 0) return v;
      }
      return cmp(ka.length, kb.length);
    }
    case 6: {
      const xa = a as unknown[];
      const xb = b as unknown[];
      const n = Math.min(xa.length, xb.length);
      for (let i = 0; i < n; i++) {
        const v = compareValues(xa[i], xb[i], strings);
        if (v !== 0) return v;
      }
      return cmp(xa.length, xb.length);
    }
    case 7: {
      const ba = a as { sub_type: number; length(): number; toString(enc: 'hex'): string };
      const bb = b as typeof ba;
      return (
        cmp(ba.length(), bb.length()) ||
        cmp(ba.sub_type, bb.sub_type) ||
        cmp(ba.toString('hex'), bb.toString('hex'))
      );
    }
    case 8:
      return compareObjectIds(a as ObjectIdLike, b as ObjectIdLike);
    case 9:
      return cmp(Number(a), Number(b));
    case 10:
      return compareTimes(a as Date, b as Date);
    case 11: {
      const ta2 = a as { t: number; i: number };
      const tb2 = b as { t: number; i: number };
      return cmp(ta2.t, tb2.t) || cmp(ta2.i, tb2.i);
    }
    case 12: {
      const [pa, fa] = regexParts(a);
      const [pb, fb] = regexParts(b);
      return compareCodePoints(pa, pb) || compareCodePoints(fa, fb);
    }
    default:
      return cmp(keyString(a), keyString(b));
  }
}

/**
 * Equality with MongoDB semantics (numeric types compare by value, key order matters); under a
 * collation (`strings`), strings it finds equal are equal, at any depth.
 */
export function valuesEqual(a: unknown, b: unknown, strings?: StringComparator): boolean {
  if (a === b) return true;
  if (strings) return compareValues(a, b, strings) === 0;
  // Two values of one common kind without building their canonical strings (a query's equality
  // runs once per document examined); mixed kinds (1 and Long(1), null and missing) compare below.
  const kind = typeof a;
  if (kind === typeof b) {
    if (kind === 'string' || kind === 'boolean') return false;
    if (kind === 'number') return Number.isNaN(a) && Number.isNaN(b);
  }
  if (a instanceof Date && b instanceof Date)
    return a.getTime() === b.getTime() || keyString(a) === keyString(b);
  if (isObjectId(a) && isObjectId(b)) return compareObjectIds(a, b) === 0;
  return keyString(a) === keyString(b);
}

/** Human-readable rendering close to mongod's error messages, e.g. `{ email: "a@b.c" }`. */
export function formatValue(value: unknown): string {
  if (value === undefined || value === MISSING) return 'undefined';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      break;
    default:
      return String(value);
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? '[]' : `[ ${value.map(formatValue).join(', ')} ]`;
  }
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (value instanceof RegExp) return String(value);
  const tag = bsonTypeOf(value);
  if (tag === undefined) {
    const entries = Object.entries(value as Document);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([k, v]) => `${k}: ${formatValue(v)}`).join(', ')} }`;
  }
  switch (tag) {
    case 'ObjectId':
      return `ObjectId('${(value as { toHexString(): string }).toHexString()}')`;
    case 'Long':
    case 'Int32':
    case 'Double':
      return String(value);
    case 'Decimal128':
      return `NumberDecimal("${String(value)}")`;
    default:
      return `${tag}(${JSON.stringify(String(value))})`;
  }
}

/** Short type name as used by mongod in error messages (`string`, `int`, `object`, ...). */
export function typeName(value: unknown): string {
  if (value === undefined || value === MISSING) return 'missing';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return numericKind(value) as string;
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regex';
  const tag = typeof value === 'object' ? bsonTypeOf(value as object) : undefined;
  switch (tag) {
    case undefined:
      return 'object';
    case 'ObjectId':
      return 'objectId';
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return numericKind(value) as string;
    case 'Binary':
      return 'binData';
    case 'Timestamp':
      return 'timestamp';
    default:
      return tag.toLowerCase();
  }
}

function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * All values reachable at a dotted path, descending into arrays the way MongoDB does for
 * index keys and query matching. Arrays found at the end of the path are expanded into their
 * elements. Returns `[MISSING]` when nothing is found.
 */
export function pathValues(doc: unknown, path: string): unknown[] {
  // A top-level field (most index keys): what collectPath gives, without splitting the path.
  if (!path.includes('.') && isPlainObject(doc)) {
    const value = Object.hasOwn(doc, path) ? doc[path] : undefined;
    if (value === undefined) return [MISSING];
    if (!Array.isArray(value)) return [value];
    return value.length === 0 ? [value] : value.slice();
  }
  const parts = path.split('.');
  const out: unknown[] = [];
  collectPath(doc, parts, 0, out, true);
  if (out.length === 0) out.push(MISSING);
  return out;
}

function collectPath(value: unknown, parts: string[], i: number, out: unknown[], expandLeaf: boolean): void {
  if (i === parts.length) {
    if (Array.isArray(value) && expandLeaf) {
      if (value.length === 0) out.push(value);
      for (const el of value) out.push(el);
    } else if (value !== undefined) {
      out.push(value);
    }
    return;
  }
  const part = parts[i]!;
  if (Array.isArray(value)) {
    if (isDigits(part)) {
      const idx = Number(part);
      if (idx < value.length) collectPath(value[idx], parts, i + 1, out, expandLeaf);
    }
    for (const el of value) {
      if (isPlainObject(el)) collectPath(el[part], parts, i + 1, out, expandLeaf);
    }
    return;
  }
  if (isPlainObject(value) && Object.hasOwn(value, part)) {
    collectPath(value[part], parts, i + 1, out, expandLeaf);
  }
}

/** Single-valued lookup of a dotted path without array expansion (undefined when missing). */
export function getPath(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split('.')) {
    if (Array.isArray(current)) {
      if (!isDigits(part)) return undefined;
      current = current[Number(part)];
    } else if (isPlainObject(current)) {
      if (!Object.hasOwn(current, part)) return undefined;
      current = current[part];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Sets a dotted path, creating intermediate objects. */
export function setPath(doc: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  let current: Document = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const next = current[part];
    if (isPlainObject(next)) {
      current = next;
    } else {
      const created: Document = {};
      current[part] = created;
      current = created;
    }
  }
  current[parts[parts.length - 1]!] = value;
}
