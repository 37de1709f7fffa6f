// mongod's plan cache, reduced: the plan a trial picked is remembered per query shape (the
// filter's fields and operators without their values, the sort, whether there is a limit) and
// per set of indexes and per collation, so the same query with other values skips the trial. A
// cached plan that then does far more work than when it won is forgotten, and the next run plans
// afresh.
import type { Collation } from './collation.js';
import type { PlanNode } from './planner.js';
import type { Collection } from './storage.js';
import { type Document, isPlainObject, typeOrder } from './values.js';

interface Entry {
  signature: string;
  works: number;
}

const caches = new WeakMap<Collection, Map<string, Entry>>();
const MAX_ENTRIES = 500;

function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (isPlainObject(value)) {
    const out: Document = {};
    for (const [k, v] of Object.entries(value)) out[k] = k === '$in' || k === '$nin' ? 'list' : shape(v);
    return out;
  }
  return typeOrder(value);
}

export function queryShape(
  coll: Collection,
  parts: {
    filter: unknown;
    sort: unknown;
    hint: unknown;
    limited: boolean;
    collation?: Collation | undefined;
  },
): string {
  const indexes = [...coll.indexes.keys()].join(',');
  return JSON.stringify([
    shape(parts.filter),
    parts.sort ?? null,
    parts.hint ?? null,
    parts.limited,
    indexes,
    parts.collation?.key ?? null,
  ]);
}

/** A plan's structure without its bounds: the same for every query of one shape. */
export function planSignature(node: PlanNode): string {
  switch (node.stage) {
    case 'COLLSCAN':
      return `COLLSCAN ${node.direction}`;
    case 'IXSCAN':
      return `IXSCAN ${node.index.name} ${node.direction}`;
    case 'TEXT':
      return `TEXT ${node.index.name}`;
    case 'OR':
    case 'SORT_MERGE':
      return `${node.stage}(${node.inputs.map(planSignature).join(',')})`;
    case 'FETCH':
    case 'SORT':
      return `${node.stage}(${planSignature(node.input)})`;
  }
}

export function cachedPlan(coll: Collection, shapeKey: string): Entry | undefined {
  return caches.get(coll)?.get(shapeKey);
}

export function rememberPlan(coll: Collection, shapeKey: string, entry: Entry): void {
  let cache = caches.get(coll);
  if (!cache) {
    cache = new Map();
    caches.set(coll, cache);
  }
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(shapeKey, entry);
}

export function forgetPlan(coll: Collection, shapeKey: string): void {
  caches.get(coll)?.delete(shapeKey);
}

/** Drops every plan of `coll`: an index of it changed in place (collMod's hidden, unique...). */
export function forgetPlans(coll: Collection): void {
  caches.delete(coll);
}
