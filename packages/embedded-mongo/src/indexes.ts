// Index metadata, the keys a document gives, and how a scan of index bounds reads the entries: kept
// in LMDB in BSON order (index-store.ts) for range scans in either direction (the planner), and for
// a unique index's duplicates.
import { CommandError, ErrorCode } from './errors.js';
import { type Entry, type IndexStore, keyTooLong, LONGEST_INDEX_KEY } from './index-store.js';
import { encodeKey, typeBracket } from './key-string.js';
import { toDouble } from './numbers.js';
import {
  compareValues,
  type Document,
  formatValue,
  isPlainObject,
  keyString,
  MISSING,
  pathValues,
  typeName,
  typeOrder,
} from './values.js';

export interface IndexSpec extends Document {
  v: number;
  key: Document;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
}

export class IndexKey {
  private hash: string | undefined;
  /** The values as key-string bytes in the index's directions (an ordered index's keys only). */
  bytes: Buffer | undefined;

  /** `values`: the key values in index field order; missing fields are `null`. */
  constructor(readonly values: unknown[]) {}

  /**
   * Canonical string of the values (equal for equal keys), made when first asked for: only unique
   * indexes, multikey de-duplication and updates need it, and most keys are never asked.
   */
  get key(): string {
    this.hash ??=
      this.values.length === 1 ? keyString(this.values[0]) : JSON.stringify(this.values.map(keyString));
    return this.hash;
  }
}

export const ID_INDEX_NAME = '_id_';

/** mongod's generated index name: `{ a: 1, b: -1 }` → `a_1_b_-1`. */
export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, dir]) => `${field}_${String(dir)}`)
    .join('_');
}

/** Index types a key pattern may name by a string (mongod's index plugins). */
const INDEX_PLUGINS = new Set(['text', 'hashed', '2d', '2dsphere', 'geoHaystack', 'wildcard', 'columnstore']);

/** mongod's checks of a key pattern (index_key_validate.cpp): CannotCreateIndex, its messages. */
export function validateKeyPattern(key: unknown): asserts key is Document {
  const cannot = (message: string) => new CommandError(ErrorCode.CannotCreateIndex, message);
  if (!isPlainObject(key)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `The field 'key' must be an object, but got ${typeName(key)}`,
    );
  }
  if (Object.keys(key).length === 0) throw cannot('Index keys cannot be empty.');
  for (const [field, dir] of Object.entries(key)) {
    if (typeof dir === 'string') {
      if (dir === '') throw cannot('Values in the index key pattern cannot be empty strings');
      if (!INDEX_PLUGINS.has(dir)) throw cannot(`Unknown index plugin '${dir}'`);
    } else {
      const direction = toDouble(dir); // 1, 1.0 (pymongo sends doubles), Long(1)...
      if (direction === undefined) {
        throw cannot(
          `Values in v:2 index key pattern cannot be of type ${typeName(dir)}. Only numbers > 0, numbers < 0, and strings are allowed.`,
        );
      }
      if (Number.isNaN(direction)) throw cannot('Values in the index key pattern cannot be NaN.');
      if (direction === 0) throw cannot('Values in the index key pattern cannot be 0.');
    }
    // `$**` only as a text index's wildcard (all strings of the document).
    if (field === '$**' && dir === 'text') continue;
    if (field === '') throw cannot('Index keys cannot be an empty field.');
    const parts = field.split('.');
    if (parts.includes('')) throw cannot('Index keys cannot contain an empty field.');
    if (parts.some((part, i) => part.startsWith('$') && !(i > 0 && ['$db', '$id', '$ref'].includes(part)))) {
      throw cannot("Index key contains an illegal field name: field name starts with '$'.");
    }
  }
}

/** The fields mongod knows in an index specification (index_key_validate.cpp's allowedFieldNames). */
const INDEX_SPEC_FIELDS = new Set([
  'key',
  'name',
  'v',
  'ns',
  'background',
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'hidden',
  'collation',
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'bits',
  'min',
  'max',
  'bucketSize',
  'coarsestIndexedLevel',
  'finestIndexedLevel',
  'wildcardProjection',
  'columnstoreProjection',
  'columnstoreCompressor',
  'storageEngine',
  'dropDups',
  'prepareUnique',
  'clustered',
  'originalSpec',
]);

/** Of those, the options the engine keeps no index for: it refuses them (InvalidOptions, 72). */
export const INDEX_OPTIONS_NOT_KEPT = new Set([
  'bucketSize',
  'coarsestIndexedLevel',
  'finestIndexedLevel',
  'columnstoreProjection',
  'columnstoreCompressor',
  'dropDups',
  'clustered',
  'originalSpec',
]);

/** What an `_id` index specification may hold besides its key. */
const ID_INDEX_SPEC_FIELDS = new Set(['key', 'name', 'v', 'ns', 'collation', '_id']);

/**
 * mongod's checks of a createIndexes specification before it looks at the collection: unknown
 * fields (InvalidIndexSpecificationOption, 197), the key pattern, what an `_id` index may hold
 * (197), and options of another index type (`weights` off a text index: CannotCreateIndex).
 */
export function validateIndexSpec(spec: Document): asserts spec is Document & { key: Document } {
  const shown = () => formatValue(spec);
  for (const field of Object.keys(spec)) {
    if (!INDEX_SPEC_FIELDS.has(field)) {
      throw new CommandError(
        ErrorCode.InvalidIndexSpecificationOption,
        `The field '${field}' is not valid for an index specification. Specification: ${shown()}`,
      );
    }
  }
  const key = spec.key;
  validateKeyPattern(key);
  const values = Object.values(key);
  const plugin = values.find((v): v is string => typeof v === 'string');
  const wildcard = Object.keys(key).some((field) => field === '$**' || field.endsWith('.$**')) && !plugin;
  if (spec.weights !== undefined && plugin !== 'text') {
    throw new CommandError(
      ErrorCode.CannotCreateIndex,
      `Invalid index specification ${shown()}; the field 'weights' can only be specified with text indexes`,
    );
  }
  if (spec.wildcardProjection !== undefined && !wildcard) {
    throw new CommandError(
      ErrorCode.BadValue,
      "The field 'wildcardProjection' is only allowed in 'wildcard' indexes",
    );
  }
  const idIndex = Object.keys(key).length === 1 && key._id === 1;
  if (idIndex) {
    for (const field of Object.keys(spec)) {
      if (!ID_INDEX_SPEC_FIELDS.has(field)) {
        throw new CommandError(
          ErrorCode.InvalidIndexSpecificationOption,
          `The field '${field}' is not valid for an _id index specification. Specification: ${shown()}`,
        );
      }
    }
  }
}

/**
 * The edge of a BSON type bracket: before (side -1) or after (side 1) every value of the type
 * whose canonical order is `order` (values.ts typeOrder). Range bounds stop at their type's edge
 * as mongod's do (`{$gt: 5}` never reaches strings).
 */
export class TypeEdge {
  constructor(
    readonly order: number,
    readonly side: -1 | 1,
  ) {}
}

/** Below / above every value: `[MinKey, MaxKey]`. */
export const MIN_KEY = new TypeEdge(0, -1);
export const MAX_KEY = new TypeEdge(99, 1);

/** Compares index key values (BSON order) where either side may be a TypeEdge. */
export function compareKeyValues(a: unknown, b: unknown): number {
  const ea = a instanceof TypeEdge;
  const eb = b instanceof TypeEdge;
  if (!ea && !eb) return compareValues(a, b);
  const oa = ea ? a.order : typeOrder(a);
  const ob = eb ? b.order : typeOrder(b);
  if (oa !== ob) return oa < ob ? -1 : 1;
  return (ea ? a.side : 0) - (eb ? b.side : 0);
}

/** One interval of key values for one field, in value order (lo <= hi). */
export interface Interval {
  lo: unknown;
  loInc: boolean;
  hi: unknown;
  hiInc: boolean;
}

export const FULL_INTERVAL: Interval = { lo: MIN_KEY, loInc: true, hi: MAX_KEY, hiInc: true };

export function isPoint(iv: Interval): boolean {
  return iv.loInc && iv.hiInc && !(iv.lo instanceof TypeEdge) && compareKeyValues(iv.lo, iv.hi) === 0;
}

export function inInterval(v: unknown, iv: Interval): boolean {
  const lo = compareKeyValues(v, iv.lo);
  if (lo < 0 || (lo === 0 && !iv.loInc)) return false;
  const hi = compareKeyValues(v, iv.hi);
  return hi < 0 || (hi === 0 && iv.hiInc);
}

/** Each field's direction (1 or -1) in a key pattern; other kinds (hashed, text...) count as 1. */
export function directionsOf(key: Document): number[] {
  return Object.values(key).map((direction) => ((toDouble(direction) ?? 1) < 0 ? -1 : 1));
}

/** A position after every key that begins with the bytes before it (index-store.ts). */
const AFTER_ALL = Buffer.of(0xff);

/** Per-field intervals to scan, plus the key / record counters an execution reports. */
export interface ScanStats {
  keysExamined: number;
}

/** Above this many equality combinations a compound scan walks the remaining fields' ranges instead. */
const MAX_POINT_COMBINATIONS = 1000;

/**
 * Where `bound` (a value, or a type's edge) of a field in `direction` stands among key bytes: before
 * every key whose field holds it, or after them all (`after`). An edge stands between types.
 */
function keyPosition(bound: unknown, direction: number, after: boolean): Buffer {
  if (!(bound instanceof TypeEdge)) {
    const bytes = encodeKey([bound], [direction]);
    return after ? Buffer.concat([bytes, AFTER_ALL]) : bytes;
  }
  // In the index's order a descending field's edges swap sides.
  const treeSide = bound.side * direction;
  if (bound.order <= MIN_KEY.order || bound.order >= MAX_KEY.order)
    return treeSide > 0 ? AFTER_ALL : Buffer.alloc(0);
  const bracket = typeBracket(bound.order);
  const first = direction > 0 ? bracket : 0xff - bracket;
  return Buffer.of(treeSide > 0 ? first + 1 : first);
}

export class Index {
  readonly spec: IndexSpec;
  readonly fields: string[];
  /** Per-field direction (1 or -1) of the key pattern; other kinds (hashed, text, ...) are not ordered. */
  readonly directions: number[];
  readonly unique: boolean;
  readonly sparse: boolean;
  /** Per field: whether some document gave it several keys (an array), as mongod's multikeyPaths. */
  readonly multikey: boolean[];
  protected readonly partial: ((doc: Document) => boolean) | undefined;
  /** Its entries: undefined for an index that keeps its own (text). */
  readonly entries: IndexStore | undefined;
  /** What readRoots() gives, asked once (at the first update). */
  private roots: string[] | null | undefined;

  /** `entries`: where its entries are kept; none for a text index, which keeps its own. */
  constructor(
    spec: IndexSpec,
    partialMatcher: ((doc: Document) => boolean) | undefined,
    entries?: IndexStore,
  ) {
    this.spec = spec;
    this.fields = Object.keys(spec.key);
    this.directions = directionsOf(spec.key);
    this.unique = spec.unique === true || spec.name === ID_INDEX_NAME;
    this.sparse = spec.sparse === true;
    this.multikey = this.fields.map(() => false);
    this.partial = partialMatcher;
    this.entries = entries;
  }

  /** Where its entries are, named in its collection's catalog entry. */
  get storageId(): string {
    return this.entries!.storageId;
  }

  get name(): string {
    return this.spec.name;
  }

  get isPartial(): boolean {
    return this.partial !== undefined;
  }

  /** Whether the key pattern is all ascending/descending fields (not hashed, text or geo). */
  get ordered(): boolean {
    return Object.values(this.spec.key).every((dir) => toDouble(dir) !== undefined);
  }

  /** Keys a document contributes to this index (empty when sparse/partial excludes it). */
  keysFor(doc: Document): IndexKey[] {
    if (this.partial && !this.partial(doc)) return [];
    const n = this.fields.length;
    const perField = new Array<unknown[]>(n);
    let multiIdx = -1;
    let missing = 0;
    for (let i = 0; i < n; i++) {
      const vals = pathValues(doc, this.fields[i]!);
      perField[i] = vals;
      if (vals.length > 1) {
        if (multiIdx >= 0) {
          const names = [this.fields[multiIdx], this.fields[i]];
          throw new CommandError(171, `cannot index parallel arrays [${names[1]}] [${names[0]}]`);
        }
        multiIdx = i;
      } else if (vals[0] === MISSING) missing++;
    }
    if (this.sparse && missing === n) return [];
    if (multiIdx < 0)
      return this.encoded([new IndexKey(perField.map((vals) => (vals[0] === MISSING ? null : vals[0])))]);
    // One key per distinct element of the array field.
    const keys: IndexKey[] = [];
    const seen = new Set<string>();
    for (const variant of perField[multiIdx]!) {
      const key = new IndexKey(
        perField.map((vals, i) => {
          const v = i === multiIdx ? variant : vals[0];
          return v === MISSING ? null : v;
        }),
      );
      if (seen.has(key.key)) continue;
      seen.add(key.key);
      keys.push(key);
    }
    return this.encoded(keys);
  }

  /** `keys` with their bytes, refused when one is longer than the store keeps. */
  private encoded(keys: IndexKey[]): IndexKey[] {
    if (!this.entries) return keys;
    for (const key of keys) {
      key.bytes = encodeKey(key.values, this.directions);
      if (key.bytes.length > LONGEST_INDEX_KEY) throw keyTooLong(this.name, key.bytes.length);
    }
    return keys;
  }

  add(seq: number, keys: IndexKey[]): void {
    // An empty or one-element array is one key but sorts unlike it: multikey as well.
    for (let i = 0; i < this.fields.length; i++)
      if (
        !this.multikey[i] &&
        keys.some((k) => Array.isArray(k.values[i]) || k.values[i] !== keys[0]!.values[i])
      )
        this.multikey[i] = true;
    for (const key of keys) this.entries!.add(key.bytes!, seq);
  }

  remove(seq: number, keys: IndexKey[]): void {
    for (const key of keys) this.entries!.remove(key.bytes!, seq);
  }

  /**
   * Whether a replacement of `before` by `after` certainly leaves this index's keys alone, known
   * without making them: when it kept every top-level field the keys (or the partial filter) read.
   * Stored documents are never changed in place and an update copies only what it changes, so a
   * field holding the very same value as before holds the same keys.
   */
  keysUnchanged(before: Document, after: Document): boolean {
    this.roots ??= this.readRoots();
    return this.roots?.every((root) => before[root] === after[root]) ?? false;
  }

  /** The top-level fields whose values decide this index's keys; null when that is not known. */
  protected readRoots(): string[] | null {
    const partial = this.spec.partialFilterExpression;
    const filtered = partial === undefined ? [] : filterRoots(partial);
    return filtered && [...new Set([...this.fields.map(rootOf), ...filtered])];
  }

  /** For unique indexes: the first key already owned by another record. */
  conflict(keys: IndexKey[], self?: number): IndexKey | undefined {
    if (!this.unique) return undefined;
    for (const k of keys) for (const seq of this.entries!.records(k.bytes!)) if (seq !== self) return k;
    return undefined;
  }

  /**
   * Whether a query with these equality conditions, and these fields it asks to exist, only asks
   * for documents this index holds.
   */
  coversQuery(equalities: ReadonlyMap<string, string>, existing: ReadonlySet<string>): boolean {
    if (!this.partial) return true;
    const expression = this.spec.partialFilterExpression ?? {};
    // Two forms are recognised, which the query must repeat: `{field: value}`, and
    // `{field: {$exists: true}}` (the query saying `$exists: true` on the field, or an equality).
    return Object.entries(expression).every(([field, value]) => {
      if (isPlainObject(value))
        return (
          Object.keys(value).length === 1 &&
          value.$exists === true &&
          (existing.has(field) || (equalities.has(field) && equalities.get(field) !== keyString(null)))
        );
      return equalities.get(field) === keyString(value);
    });
  }

  /**
   * Record ids of the keys within `bounds` (one sorted, disjoint interval list per field, in value
   * order), in index order (`direction` 1) or reverse (-1). Leading fields bounded by points are
   * scanned one combination at a time; the first other field's intervals are scanned as ranges and
   * later fields are checked on each key (`undefined` for a key out of bounds, so the caller can
   * count the work). Records of a multikey index may come more than once.
   */
  *scan(bounds: Interval[][], direction: 1 | -1, stats: ScanStats): Generator<Entry | undefined> {
    const n = this.fields.length;
    // Tree-order intervals per field: a descending field walks its value intervals backwards.
    const treeOrder = bounds.map((ivs, i) =>
      this.directions[i] === 1
        ? ivs
        : ivs
            .slice()
            .reverse()
            .map((iv) => ({ lo: iv.hi, loInc: iv.hiInc, hi: iv.lo, hiInc: iv.loInc })),
    );
    let prefix = 0;
    let combinations = 1;
    while (
      prefix < n - 1 &&
      bounds[prefix]!.every(isPoint) &&
      combinations * bounds[prefix]!.length <= MAX_POINT_COMBINATIONS
    ) {
      combinations *= bounds[prefix]!.length;
      prefix++;
    }
    const ranges: Array<{ low: Buffer; high: Buffer }> = [];
    const walk = (i: number, values: unknown[]): void => {
      for (const iv of treeOrder[i]!) {
        if (i < prefix) {
          walk(i + 1, [...values, iv.lo]);
          continue;
        }
        const leading = encodeKey(values, this.directions);
        const direction = this.directions[i]!;
        ranges.push({
          low: Buffer.concat([leading, keyPosition(iv.lo, direction, !iv.loInc)]),
          high: Buffer.concat([leading, keyPosition(iv.hi, direction, iv.hiInc)]),
        });
      }
    };
    walk(0, []);
    if (direction === -1) ranges.reverse();
    for (const { low, high } of ranges) {
      for (const entry of this.entries!.scan(low, high, direction)) {
        stats.keysExamined++;
        let inBounds = true;
        for (let i = prefix + 1; i < n && inBounds; i++) {
          const ivs = bounds[i]!;
          if (ivs[0] === FULL_INTERVAL) continue;
          inBounds = ivs.some((iv) => inInterval(entry.values[i], iv));
        }
        yield inBounds ? entry : undefined;
      }
    }
  }

  /** Forgets the entries of an index not committed yet (a build that failed). */
  clear(): void {
    this.entries?.forget();
    this.multikey.fill(false);
  }

  /** Formats `{ a: 1, b: "x" }` for an E11000 message. */
  formatKey(values: unknown[]): string {
    return `{ ${this.fields.map((f, i) => `${f}: ${formatValue(values[i])}`).join(', ')} }`;
  }

  keyValue(values: unknown[]): Document {
    const out: Document = {};
    this.fields.forEach((f, i) => {
      out[f] = values[i];
    });
    return out;
  }
}

/** The top-level field of a dotted path. */
export const rootOf = (path: string): string => path.split('.', 1)[0]!;

/** The top-level fields a filter reads, through $and/$or/$nor; null for anything else ($expr...). */
export function filterRoots(filter: Document): string[] | null {
  const roots: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (!key.startsWith('$')) roots.push(rootOf(key));
    else if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
      for (const clause of value) {
        const inner = isPlainObject(clause) ? filterRoots(clause) : null;
        if (inner === null) return null;
        roots.push(...inner);
      }
    } else return null;
  }
  return roots;
}

/** Options that must match for two specs with the same key pattern to be "the same index". */
export function sameIndexOptions(a: IndexSpec, b: IndexSpec): boolean {
  return (
    (a.unique === true) === (b.unique === true) &&
    (a.sparse === true) === (b.sparse === true) &&
    keyString(a.partialFilterExpression) === keyString(b.partialFilterExpression) &&
    keyString(a.expireAfterSeconds) === keyString(b.expireAfterSeconds) &&
    keyString(a.collation) === keyString(b.collation) &&
    keyString(a.weights) === keyString(b.weights) &&
    a.default_language === b.default_language &&
    a.language_override === b.language_override
  );
}
