// Sorting with mongod's semantics, for find and for the aggregation `$sort` stage.
import type { Collation } from './collation.js';
import { badValue } from './errors.js';
import { toDouble } from './numbers.js';
import { isTextScoreMeta } from './text-score.js';
import {
  compareValues,
  type Document,
  EMPTY_ARRAY,
  isPlainObject,
  MISSING,
  pathValues,
  type StringComparator,
} from './values.js';

/** `textScore`: `{$meta: "textScore"}`, the score of a `$text` search, from high to low. */
type SortKey = { path: string; dir: 1 | -1; textScore?: boolean };

/** Validates a sort spec; returns null for "natural order", or the list of keys. */
export function parseSort(spec: unknown): { keys: SortKey[]; natural: 1 | -1 } | null {
  if (spec === undefined || spec === null) return null;
  if (!isPlainObject(spec)) throw badValue('sort must be an object');
  const keys: SortKey[] = [];
  let natural: 1 | -1 = 1;
  for (const [path, raw] of Object.entries(spec)) {
    if (isTextScoreMeta(raw)) {
      keys.push({ path, dir: -1, textScore: true });
      continue;
    }
    if (isPlainObject(raw)) throw badValue(`$meta sort by ${JSON.stringify(raw)} is not supported`);
    const dir = toDouble(raw) ?? Number(raw);
    if (dir !== 1 && dir !== -1) {
      throw badValue('$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    }
    if (path === '$natural') natural = dir;
    else keys.push({ path, dir });
  }
  if (keys.length === 0 && natural === 1) return null;
  return { keys, natural };
}

/**
 * The value a document sorts by: an array's smallest element ascending, its largest descending.
 * An empty array sorts before null and missing (as BSON undefined, per the manual's sort order).
 */
function sortValue(doc: Document, path: string, dir: 1 | -1, strings?: StringComparator): unknown {
  const values = pathValues(doc, path);
  let best: unknown = MISSING;
  let first = true;
  for (let v of values) {
    if (Array.isArray(v) && v.length === 0) v = EMPTY_ARRAY;
    if (first) {
      best = v;
      first = false;
    } else {
      const c = compareValues(v, best, strings);
      if ((dir === 1 && c < 0) || (dir === -1 && c > 0)) best = v;
    }
  }
  return best;
}

/**
 * Stable sort with mongod semantics (arrays sort by their min/max element, missing == null);
 * strings by `collation` when there is one.
 */
export function sortMatches<T extends { doc: Document; score?: number }>(
  items: T[],
  spec: unknown,
  collation?: Collation,
): T[] {
  const parsed = parseSort(spec);
  if (!parsed) return items;
  if (parsed.keys.length === 0) return parsed.natural === -1 ? items.slice().reverse() : items;
  const base = parsed.natural === -1 ? items.slice().reverse() : items;
  const strings = collation?.compare;
  const decorated = base.map((item) => ({
    item,
    keys: parsed.keys.map((k) => (k.textScore ? item.score : sortValue(item.doc, k.path, k.dir, strings))),
  }));
  decorated.sort((a, b) => {
    for (let i = 0; i < parsed.keys.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i], strings);
      if (c !== 0) return c * parsed.keys[i]!.dir;
    }
    return 0;
  });
  return decorated.map((d) => d.item);
}

/** Sorts plain documents (the aggregation `$sort` stage). */
export function sortDocuments(docs: Document[], spec: unknown, collation?: Collation): Document[] {
  return sortMatches(
    docs.map((doc) => ({ doc })),
    spec,
    collation,
  ).map((m) => m.doc);
}
