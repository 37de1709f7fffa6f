// Query execution on top of mingo: a tiny planner that uses hash indexes for equality/$in on a
// single indexed field, sorting with mongod's BSON order, projection, pipelines.
import { Aggregator } from 'mingo/aggregator';
import { ProcessingMode } from 'mingo/core';
import type { Options } from 'mingo/types';
import { toCommandError } from './errors.js';
import { compileFilter } from './filter.js';
import { type MingoExtras, mingoOptions } from './mingo.js';
import type { Collection } from './storage.js';
import { type Document, isPlainObject, keyString } from './values.js';

export { compileProjection } from './projection.js';
export { parseSort, sortMatches } from './sort.js';

function isIndexableScalar(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return !Number.isNaN(v);
    case 'object': {
      if (v === null || Array.isArray(v) || v instanceof RegExp) return false;
      if (v instanceof Date) return true;
      const tag = (v as { _bsontype?: string })._bsontype;
      return tag === 'ObjectId' || tag === 'Long' || tag === 'Int32' || tag === 'Double';
    }
    default:
      return false;
  }
}

/** Values a condition requires by plain equality / `$eq` / `$in`, or null when not index-friendly. */
function equalityValues(cond: unknown): unknown[] | null {
  if (isIndexableScalar(cond)) return [cond];
  if (!isPlainObject(cond)) return null;
  const keys = Object.keys(cond);
  if (keys.length !== 1) return null;
  const v = cond[keys[0]!];
  if (keys[0] === '$eq') return isIndexableScalar(v) ? [v] : null;
  if (keys[0] === '$in') return Array.isArray(v) && v.every(isIndexableScalar) ? v : null;
  return null;
}

/**
 * Candidates from a compound index when the filter gives each of its fields one value, e.g. the
 * outbox's `{kind, webhookId, recordingId}` upsert on its (partial) unique index; the whole filter
 * is still checked on them.
 */
function exactCompoundLookup(coll: Collection, equalities: ReadonlyMap<string, string>): number[] | null {
  if (equalities.size < 2) return null;
  for (const index of coll.indexes.values()) {
    if (index.fields.length < 2 || !index.coversQuery(equalities)) continue;
    const keys = index.fields.map((f) => equalities.get(f));
    if (keys.some((k) => k === undefined)) continue;
    return [...index.lookupExact(index.compoundKey(keys as string[]))].sort((a, b) => a - b);
  }
  return null;
}

export interface MatchOptions {
  /** Stop after this many matches (only meaningful when no sort is applied afterwards). */
  limit?: number;
  extras?: MingoExtras;
}

export interface Match {
  seq: number;
  doc: Document;
}

/**
 * Returns matching documents in natural (insertion) order. Equality or `$in` on a field with a
 * single-field index (always true for `_id`) is answered from the hash index; the rest of the filter
 * is then checked with mingo. Otherwise the collection is scanned.
 */
export function matchDocuments(
  coll: Collection | undefined,
  filter: unknown,
  options: MatchOptions = {},
): Match[] {
  const out: Match[] = [];
  if (!coll) {
    compileFilter(filter, options.extras); // still validate
    return out;
  }
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
  let candidates: number[] | null = null;
  let residualFilter: unknown = filter;
  // Fields the filter gives exactly one value (keyStrings), for index selection.
  const equalities = new Map<string, string>();
  if (isPlainObject(filter))
    for (const [field, cond] of Object.entries(filter)) {
      const values = field.startsWith('$') ? null : equalityValues(cond);
      if (values?.length === 1) equalities.set(field, keyString(values[0]));
    }
  const exact = exactCompoundLookup(coll, equalities);
  if (exact) candidates = exact;
  else if (isPlainObject(filter)) {
    let best: { field: string; seqs: Set<number>; size: number } | null = null;
    for (const [field, cond] of Object.entries(filter)) {
      if (field.startsWith('$')) continue;
      const values = equalityValues(cond);
      if (!values) continue;
      const index = coll.equalityIndex(field, equalities);
      if (!index) continue;
      let size = 0;
      const keys = values.map((v) => keyString(v));
      for (const k of keys) size += index.count(k);
      if (best && best.size <= size) continue;
      const seqs = new Set<number>();
      for (const k of keys) for (const seq of index.lookup(k)) seqs.add(seq);
      best = { field, seqs, size };
    }
    if (best) {
      candidates = [...best.seqs].sort((a, b) => a - b);
      if (!best.field.includes('.')) {
        const rest: Document = { ...filter };
        delete rest[best.field];
        residualFilter = rest;
      }
    }
  }
  const matcher = compileFilter(residualFilter, options.extras);
  if (candidates) {
    for (const seq of candidates) {
      const doc = coll.docs.get(seq);
      if (doc && matcher.test(doc)) {
        out.push({ seq, doc });
        if (out.length >= limit) break;
      }
    }
    return out;
  }
  for (const [seq, doc] of coll.docs) {
    if (matcher.test(doc)) {
      out.push({ seq, doc });
      if (out.length >= limit) break;
    }
  }
  return out;
}

/** Runs an aggregation pipeline with mingo. Input documents are cloned so stages cannot alter storage. */
export function runPipeline(input: Document[], pipeline: Document[], extras: MingoExtras = {}): Document[] {
  try {
    const opts = {
      ...(mingoOptions(extras) as unknown as Document),
      processingMode: ProcessingMode.CLONE_INPUT,
    };
    return new Aggregator(pipeline, opts as unknown as Options).run(input) as Document[];
  } catch (err) {
    throw toCommandError(err);
  }
}
