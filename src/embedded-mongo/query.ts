// Query helpers on top of mingo: sorting with mongod's BSON order, projection, pipelines (the
// planner and executor that find documents are planner.ts and plan-executor.ts).
import { Aggregator } from 'mingo/aggregator';
import { ProcessingMode } from 'mingo/core';
import { Query } from 'mingo/query';
import type { Options } from 'mingo/types';
import { badValue, toCommandError } from './errors.js';
import { type MingoExtras, mingoOptions } from './mingo.js';
import { cloneValue, compareValues, type Document, isPlainObject, MISSING, pathValues } from './values.js';

type SortKey = { path: string; dir: 1 | -1 };

/** Validates a sort spec; returns null for "natural order", or the list of keys. */
export function parseSort(spec: unknown): { keys: SortKey[]; natural: 1 | -1 } | null {
  if (spec === undefined || spec === null) return null;
  if (!isPlainObject(spec)) throw badValue('sort must be an object');
  const keys: SortKey[] = [];
  let natural: 1 | -1 = 1;
  for (const [path, raw] of Object.entries(spec)) {
    const dir = typeof raw === 'number' ? raw : Number(raw);
    if (isPlainObject(raw)) throw badValue(`$meta sort by ${JSON.stringify(raw)} is not supported`);
    if (dir !== 1 && dir !== -1) {
      throw badValue('$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    }
    if (path === '$natural') natural = dir;
    else keys.push({ path, dir });
  }
  if (keys.length === 0 && natural === 1) return null;
  return { keys, natural };
}

function sortValue(doc: Document, path: string, dir: 1 | -1): unknown {
  const values = pathValues(doc, path);
  let best: unknown = MISSING;
  let first = true;
  for (let v of values) {
    if (Array.isArray(v) && v.length === 0) v = MISSING;
    if (first) {
      best = v;
      first = false;
    } else {
      const c = compareValues(v, best);
      if ((dir === 1 && c < 0) || (dir === -1 && c > 0)) best = v;
    }
  }
  return best;
}

/** Stable sort with mongod semantics (arrays sort by their min/max element, missing == null). */
export function sortMatches<T extends { doc: Document }>(items: T[], spec: unknown): T[] {
  const parsed = parseSort(spec);
  if (!parsed) return items;
  if (parsed.keys.length === 0) return parsed.natural === -1 ? items.slice().reverse() : items;
  const base = parsed.natural === -1 ? items.slice().reverse() : items;
  const decorated = base.map((item) => ({
    item,
    keys: parsed.keys.map((k) => sortValue(item.doc, k.path, k.dir)),
  }));
  decorated.sort((a, b) => {
    for (let i = 0; i < parsed.keys.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return c * parsed.keys[i]!.dir;
    }
    return 0;
  });
  return decorated.map((d) => d.item);
}

/**
 * Compiles a find-style projection into a per-document transform (documents are copied first).
 * Positional projections (`"arr.$": 1`) need the query, which is passed as `filter`.
 */
export function compileProjection(
  projection: unknown,
  filter?: Document,
  extras?: MingoExtras,
): ((doc: Document) => Document) | undefined {
  if (projection === undefined || projection === null) return undefined;
  if (!isPlainObject(projection)) throw badValue('projection must be an object');
  if (Object.keys(projection).length === 0) return undefined;
  if (Object.keys(projection).some((k) => k.endsWith('.$'))) {
    const query = new Query(filter ?? {}, mingoOptions(extras));
    return (doc) => {
      try {
        return (query.find([cloneValue(doc)], projection).all()[0] as Document | undefined) ?? {};
      } catch (err) {
        throw toCommandError(err);
      }
    };
  }
  const aggregator = new Aggregator([{ $project: projection }], mingoOptions());
  const transform = (doc: Document): Document => {
    try {
      return aggregator.run([cloneValue(doc)])[0] as Document;
    } catch (err) {
      throw toCommandError(err);
    }
  };
  transform({}); // surface invalid projections at compile time
  return transform;
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
