// Index metadata plus a hash map from index key to record ids. Used for unique enforcement
// (single-field and compound) and for equality / $in lookups on an index's leading field (a
// compound index keeps a second map by its leading field for that).
import { CommandError, ErrorCode } from './errors.js';
import { type Document, formatValue, isPlainObject, keyString, MISSING, pathValues } from './values.js';

export interface IndexSpec extends Document {
  v: number;
  key: Document;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
}

export interface IndexKey {
  /** Hash key (canonical string of the key values). */
  key: string;
  /** Key values in index field order; missing fields are `null`. */
  values: unknown[];
}

export const ID_INDEX_NAME = '_id_';

/** mongod's generated index name: `{ a: 1, b: -1 }` → `a_1_b_-1`. */
export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, dir]) => `${field}_${String(dir)}`)
    .join('_');
}

export function validateKeyPattern(key: unknown): asserts key is Document {
  if (!isPlainObject(key) || Object.keys(key).length === 0) {
    throw new CommandError(ErrorCode.BadValue, 'Index keys cannot be an empty field.');
  }
  for (const [field, dir] of Object.entries(key)) {
    if (field === '' || field.startsWith('$') || field.endsWith('.') || field.includes('..')) {
      throw new CommandError(ErrorCode.BadValue, `Index key contains an illegal field name: '${field}'`);
    }
    const ok =
      (typeof dir === 'number' && dir !== 0 && Number.isFinite(dir)) ||
      dir === 'text' ||
      dir === 'hashed' ||
      dir === '2d' ||
      dir === '2dsphere';
    if (!ok) {
      throw new CommandError(
        ErrorCode.BadValue,
        `Values in the index key pattern can't be ${formatValue(dir)}`,
      );
    }
  }
}

type Postings = number | Set<number>;

function addPosting(map: Map<string, Postings>, key: string, seq: number): void {
  const existing = map.get(key);
  if (existing === undefined) map.set(key, seq);
  else if (typeof existing === 'number') {
    if (existing !== seq) map.set(key, new Set([existing, seq]));
  } else existing.add(seq);
}

function removePosting(map: Map<string, Postings>, key: string, seq: number): void {
  const existing = map.get(key);
  if (existing === undefined) return;
  if (typeof existing === 'number') {
    if (existing === seq) map.delete(key);
  } else {
    existing.delete(seq);
    if (existing.size === 1) map.set(key, existing.values().next().value as number);
    else if (existing.size === 0) map.delete(key);
  }
}

function postingsOf(map: Map<string, Postings>, key: string): Iterable<number> {
  const existing = map.get(key);
  if (existing === undefined) return [];
  return typeof existing === 'number' ? [existing] : existing;
}

function postingsCount(map: Map<string, Postings>, key: string): number {
  const existing = map.get(key);
  if (existing === undefined) return 0;
  return typeof existing === 'number' ? 1 : existing.size;
}

export class Index {
  readonly spec: IndexSpec;
  readonly fields: string[];
  readonly unique: boolean;
  readonly sparse: boolean;
  private readonly partial: ((doc: Document) => boolean) | undefined;
  private entries = new Map<string, Postings>();
  /** Compound indexes: record ids by the leading field's value alone (keyString). */
  private leading = new Map<string, Postings>();

  constructor(spec: IndexSpec, partialMatcher?: (doc: Document) => boolean) {
    this.spec = spec;
    this.fields = Object.keys(spec.key);
    this.unique = spec.unique === true || spec.name === ID_INDEX_NAME;
    this.sparse = spec.sparse === true;
    this.partial = partialMatcher;
  }

  get name(): string {
    return this.spec.name;
  }

  /** True when lookups by `field` equality can use this index (see also `coversQuery`). */
  servesEquality(field: string): boolean {
    return this.fields[0] === field;
  }

  /** Keys a document contributes to this index (empty when sparse/partial excludes it). */
  keysFor(doc: Document): IndexKey[] {
    if (this.partial && !this.partial(doc)) return [];
    const perField = this.fields.map((field) => pathValues(doc, field));
    if (this.sparse && perField.every((vals) => vals.length === 1 && vals[0] === MISSING)) return [];
    if (perField.length === 1) {
      const seen = new Set<string>();
      const keys: IndexKey[] = [];
      for (const v of perField[0]!) {
        const key = keyString(v);
        if (seen.has(key)) continue;
        seen.add(key);
        keys.push({ key, values: [v === MISSING ? null : v] });
      }
      return keys;
    }
    const multi = perField.filter((vals) => vals.length > 1);
    if (multi.length > 1) {
      const names = this.fields.filter((_, i) => perField[i]!.length > 1);
      throw new CommandError(171, `cannot index parallel arrays [${names[1]}] [${names[0]}]`);
    }
    const keys: IndexKey[] = [];
    const seen = new Set<string>();
    const multiIdx = perField.findIndex((vals) => vals.length > 1);
    const variants = multiIdx === -1 ? [undefined] : perField[multiIdx]!;
    for (const variant of variants) {
      const values = perField.map((vals, i) => {
        const v = i === multiIdx ? variant : vals[0];
        return v === MISSING ? null : v;
      });
      const key = JSON.stringify(values.map(keyString));
      if (seen.has(key)) continue;
      seen.add(key);
      keys.push({ key, values });
    }
    return keys;
  }

  add(seq: number, keys: IndexKey[]): void {
    for (const { key, values } of keys) {
      addPosting(this.entries, key, seq);
      if (this.fields.length > 1) addPosting(this.leading, keyString(values[0]), seq);
    }
  }

  remove(seq: number, keys: IndexKey[]): void {
    for (const { key, values } of keys) {
      removePosting(this.entries, key, seq);
      if (this.fields.length > 1) removePosting(this.leading, keyString(values[0]), seq);
    }
  }

  /** For unique indexes: the first key already owned by another record. */
  conflict(keys: IndexKey[], self?: number): IndexKey | undefined {
    if (!this.unique) return undefined;
    for (const k of keys) {
      const existing = this.entries.get(k.key);
      if (existing === undefined) continue;
      if (typeof existing === 'number') {
        if (existing !== self) return k;
      } else {
        for (const seq of existing) if (seq !== self) return k;
      }
    }
    return undefined;
  }

  /**
   * The exact key a filter selects when it gives every field of this compound index a value
   * (`valueKeys`: the keyStrings of those values, in index field order); for `lookupExact`.
   */
  compoundKey(valueKeys: string[]): string {
    return JSON.stringify(valueKeys);
  }

  /** Record ids stored under an exact compound key. */
  lookupExact(key: string): Iterable<number> {
    return postingsOf(this.entries, key);
  }

  /** Whether a query with these equality conditions only asks for documents this index holds. */
  coversQuery(equalities: ReadonlyMap<string, string>): boolean {
    if (!this.partial) return true;
    const expression = this.spec.partialFilterExpression ?? {};
    // Only the plain `{field: value}` form is recognised: the query must repeat it exactly.
    return Object.entries(expression).every(
      ([field, value]) => !isPlainObject(value) && equalities.get(field) === keyString(value),
    );
  }

  /** Record ids whose leading field has the value of `key` (a keyString). */
  lookup(key: string): Iterable<number> {
    return postingsOf(this.fields.length > 1 ? this.leading : this.entries, key);
  }

  count(key: string): number {
    return postingsCount(this.fields.length > 1 ? this.leading : this.entries, key);
  }

  clear(): void {
    this.entries.clear();
    this.leading.clear();
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

/** Options that must match for two specs with the same key pattern to be "the same index". */
export function sameIndexOptions(a: IndexSpec, b: IndexSpec): boolean {
  return (
    (a.unique === true) === (b.unique === true) &&
    (a.sparse === true) === (b.sparse === true) &&
    keyString(a.partialFilterExpression) === keyString(b.partialFilterExpression) &&
    keyString(a.expireAfterSeconds) === keyString(b.expireAfterSeconds) &&
    keyString(a.collation) === keyString(b.collation)
  );
}
