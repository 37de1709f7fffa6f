// The query planner: turns a filter (+ sort) into candidate plans over the collection's indexes,
// in the shape of mongod's query plans (IXSCAN with per-field index bounds, FETCH, OR,
// SORT_MERGE, SORT, COLLSCAN). plan-executor.ts runs them and picks the winner by a trial.
// Index bounds only narrow the documents looked at: every fetched document is checked against the
// whole filter, so a plan can be loose but never wrong.
import type { Collation } from './collation.js';
import { CommandError, ErrorCode } from './errors.js';
import {
  compareKeyValues,
  FULL_INTERVAL,
  type Index,
  type Interval,
  isPoint,
  MAX_KEY,
  MIN_KEY,
  TypeEdge,
} from './indexes.js';
import type { Collection } from './storage.js';
import { TextIndex } from './text-index.js';
import { parseTextSearch, type TextFilter, type TextSearch } from './text-query.js';
import { compareValues, type Document, isNumeric, isPlainObject, keyString, typeOrder } from './values.js';

export interface SortKey {
  path: string;
  dir: 1 | -1;
  /** By `{$meta: "textScore"}` (from high to low). */
  textScore?: boolean;
}

export type PlanNode =
  | { stage: 'COLLSCAN'; direction: 1 | -1 }
  | { stage: 'IXSCAN'; index: Index; bounds: Interval[][]; direction: 1 | -1 }
  | { stage: 'OR'; inputs: PlanNode[] }
  | { stage: 'SORT_MERGE'; sort: SortKey[]; inputs: PlanNode[] }
  | { stage: 'FETCH'; input: PlanNode }
  | { stage: 'SORT'; sort: SortKey[]; input: PlanNode }
  /** A `$text` search: the text index's postings, then its documents (mongod's TEXT_MATCH). */
  | { stage: 'TEXT'; index: TextIndex; search: TextSearch; residual: Document };

/** A filter split into the conditions on single fields (after flattening `$and`) and its `$or`s. */
interface Conjunction {
  fields: Array<{ path: string; cond: unknown }>;
  ors: Document[][];
}

function flatten(filter: Document, into: Conjunction): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) if (isPlainObject(part)) flatten(part, into);
    } else if (key === '$or' && Array.isArray(value) && value.every(isPlainObject)) {
      if (value.length === 1) flatten(value[0] as Document, into);
      else into.ors.push(value as Document[]);
    } else if (!key.startsWith('$')) {
      into.fields.push({ path: key, cond: value });
    }
  }
}

function conjunctionOf(filter: unknown): Conjunction {
  const out: Conjunction = { fields: [], ors: [] };
  if (isPlainObject(filter)) flatten(filter, out);
  return out;
}

/** Whether a value is, or holds, a string: what a collation compares. */
function holdsString(value: unknown): boolean {
  if (typeof value === 'string') return true;
  if (Array.isArray(value)) return value.some(holdsString);
  return isPlainObject(value) && Object.values(value).some(holdsString);
}

/**
 * The conditions an index without the query's collation can bound (mongod's rule): those comparing
 * no string. A binary index holds "ping" far from "PING", which a case-insensitive query matches.
 */
function withoutStringComparisons(fields: Conjunction['fields']): Conjunction['fields'] {
  const out: Conjunction['fields'] = [];
  for (const { path, cond } of fields) {
    if (!isPlainObject(cond) || Object.keys(cond).some((k) => !k.startsWith('$'))) {
      if (!holdsString(cond)) out.push({ path, cond });
      continue;
    }
    const kept = Object.entries(cond).filter(([, value]) => !holdsString(value));
    if (kept.length > 0) out.push({ path, cond: Object.fromEntries(kept) });
  }
  return out;
}

const NUMBER_ORDER = 3;
const STRING_ORDER = 4;

/** Values an index can look up by equality: no arrays, documents, regexes or NaN. */
function isKeyScalar(v: unknown, allowNull: boolean): boolean {
  if (v === null) return allowNull;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return !Number.isNaN(v);
    case 'object': {
      if (Array.isArray(v) || v instanceof RegExp) return false;
      if (v instanceof Date) return true;
      const tag = (v as { _bsontype?: string })._bsontype;
      if (tag === 'Decimal128') return !Number.isNaN(Number.parseFloat(String(v)));
      return tag === 'ObjectId' || tag === 'Long' || tag === 'Int32' || tag === 'Double';
    }
    default:
      return false;
  }
}

const point = (v: unknown): Interval => ({ lo: v, loInc: true, hi: v, hiInc: true });

/** Sorted, duplicate-free point intervals for `$in`. */
function points(values: unknown[]): Interval[] {
  const sorted = values.slice().sort(compareValues);
  return sorted.filter((v, i) => i === 0 || compareValues(sorted[i - 1], v) !== 0).map(point);
}

/** `{$gt: v}` & co within v's type bracket, as mongod bounds them; null when not indexable. */
function rangeInterval(op: string, v: unknown): Interval | null {
  if (!isKeyScalar(v, false)) return null;
  const order = typeOrder(v);
  const numeric = order === NUMBER_ORDER;
  if (numeric && !isNumeric(v)) return null;
  const bottom = numeric ? Number.NEGATIVE_INFINITY : new TypeEdge(order, -1);
  const top = numeric ? Number.POSITIVE_INFINITY : new TypeEdge(order, 1);
  // As mongod shows them: strings end before the first object (`("a", {})`), the others inclusive.
  const topInc = order !== STRING_ORDER;
  switch (op) {
    case '$gt':
      return { lo: v, loInc: false, hi: top, hiInc: topInc };
    case '$gte':
      return { lo: v, loInc: true, hi: top, hiInc: topInc };
    case '$lt':
      return { lo: bottom, loInc: true, hi: v, hiInc: false };
    default:
      return { lo: bottom, loInc: true, hi: v, hiInc: true };
  }
}

/**
 * The constraints one condition puts on a field, each a union of intervals: `{a: {$gt: 1, $lt: 5}}`
 * gives two. They may only be intersected when the field is not multikey (an array can satisfy
 * each with a different element).
 */
function constraintsOf(cond: unknown, allowNull: boolean): Interval[][] {
  if (!isPlainObject(cond) || Object.keys(cond).some((k) => !k.startsWith('$'))) {
    return isKeyScalar(cond, allowNull) ? [[point(cond)]] : [];
  }
  const out: Interval[][] = [];
  for (const [op, v] of Object.entries(cond)) {
    if (op === '$eq' && isKeyScalar(v, allowNull)) out.push([point(v)]);
    else if (op === '$in' && Array.isArray(v) && v.every((x) => isKeyScalar(x, allowNull)))
      out.push(points(v));
    else if (op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') {
      const iv = rangeInterval(op, v);
      if (iv) out.push([iv]);
    }
  }
  return out;
}

// The higher low end and the lower high end of two intervals: only that end, as intersect spreads
// both into one interval.
function maxLow(a: Interval, b: Interval): Pick<Interval, 'lo' | 'loInc'> {
  const c = compareKeyValues(a.lo, b.lo);
  const from = c > 0 ? a : b;
  return { lo: from.lo, loInc: c === 0 ? a.loInc && b.loInc : from.loInc };
}

function minHigh(a: Interval, b: Interval): Pick<Interval, 'hi' | 'hiInc'> {
  const c = compareKeyValues(a.hi, b.hi);
  const to = c < 0 ? a : b;
  return { hi: to.hi, hiInc: c === 0 ? a.hiInc && b.hiInc : to.hiInc };
}

/** Intersection of two sorted disjoint interval lists. */
function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a)
    for (const y of b) {
      const iv = { ...maxLow(x, y), ...minHigh(x, y) };
      const c = compareKeyValues(iv.lo, iv.hi);
      if (c < 0 || (c === 0 && iv.loInc && iv.hiInc)) out.push(iv);
    }
  return out;
}

/** Index bounds for each field of `index` from the conjunction's field conditions. */
function boundsFor(index: Index, fields: Conjunction['fields']): Interval[][] {
  return index.fields.map((path, i) => {
    // A sparse index lacks documents missing the field, and the keys of a dotted path through
    // an array of documents lacking it are not all null: no index lookups of null there.
    const allowNull = !index.sparse && !path.includes('.');
    const constraints = fields
      .filter((f) => f.path === path)
      .flatMap((f) => constraintsOf(f.cond, allowNull));
    if (constraints.length === 0) return [FULL_INTERVAL];
    if (index.multikey[i]) return constraints[0]!;
    return constraints.reduce(intersect);
  });
}

const isFull = (ivs: Interval[]): boolean => ivs.length === 1 && ivs[0] === FULL_INTERVAL;
const isSinglePoint = (ivs: Interval[]): boolean => ivs.length === 1 && isPoint(ivs[0]!);

/** Most combinations of `$in` values scanned one by one and merged to give a sort. */
const MAX_EXPLODED_SCANS = 200;

/**
 * The scans of `index` that return documents in `sort` order, or null when it cannot: the sort
 * fields follow the index order (all forwards or all backwards, skipping fields fixed by
 * equality), none of them is multikey. Leading fields bounded by several points (`$in`) are split
 * into one scan per combination, merged in order (mongod's SORT_MERGE "explode for sort").
 */
function sortedScans(index: Index, bounds: Interval[][], sort: SortKey[]): PlanNode | null {
  let direction = 0;
  let i = 0;
  let explodeUpTo = 0;
  const pointFixed = (path: string) => index.fields.some((f, j) => f === path && isSinglePoint(bounds[j]!));
  for (const key of sort) {
    while (i < index.fields.length && index.fields[i] !== key.path && bounds[i]!.every(isPoint)) {
      if (!isSinglePoint(bounds[i]!)) {
        if (direction !== 0) return null; // several points between sort fields: order lost
        explodeUpTo = i + 1;
      }
      i++;
    }
    if (i < index.fields.length && index.fields[i] === key.path && !index.multikey[i]) {
      const want = key.dir * index.directions[i]!;
      if (direction !== 0 && direction !== want) return null;
      direction = want;
      i++;
    } else if (!pointFixed(key.path)) return null;
  }
  const dir = (direction || 1) as 1 | -1;
  if (explodeUpTo === 0) return { stage: 'IXSCAN', index, bounds, direction: dir };
  let combos: Interval[][][] = [bounds];
  for (let f = 0; f < explodeUpTo; f++)
    combos = combos.flatMap((b) => b[f]!.map((iv) => b.map((ivs, j) => (j === f ? [iv] : ivs))));
  if (combos.length > MAX_EXPLODED_SCANS) return null;
  const inputs: PlanNode[] = combos.map((b) => ({ stage: 'IXSCAN', index, bounds: b, direction: dir }));
  return inputs.length === 1 ? inputs[0]! : { stage: 'SORT_MERGE', sort, inputs };
}

/** Fields with exactly one value (keyString) in the conjunction: to tell whether a partial index applies. */
function equalitiesOf(fields: Conjunction['fields']): Map<string, string> {
  const out = new Map<string, string>();
  for (const { path, cond } of fields) {
    const constraints = constraintsOf(cond, true);
    if (constraints.length === 1 && isSinglePoint(constraints[0]!))
      out.set(path, keyString(constraints[0]![0]!.lo));
  }
  return out;
}

/** Fields the conjunction asks to exist (`$exists: true`): to tell whether a partial index applies. */
function existingOf(fields: Conjunction['fields']): Set<string> {
  return new Set(
    fields.filter(({ cond }) => isPlainObject(cond) && cond.$exists === true).map(({ path }) => path),
  );
}

/** Indexes the planner may use: ordered, not hidden. */
function plannable(coll: Collection): Index[] {
  return [...coll.indexes.values()].filter((index) => index.ordered && index.spec.hidden !== true);
}

interface IndexPlan {
  /** Index access (IXSCAN / SORT_MERGE of IXSCANs), in sort order when `sorted`. */
  node: PlanNode;
  sorted: boolean;
  /** Leading fields bounded by points, then whether the next one is bounded: for ranking branches. */
  points: number;
  ranged: boolean;
}

/** The access path `index` offers for `fields` (+ sort), or null when it does not help. */
function indexPlan(
  index: Index,
  fields: Conjunction['fields'],
  sort: SortKey[],
  forced = false,
): IndexPlan | null {
  if (!forced && index.isPartial && !index.coversQuery(equalitiesOf(fields), existingOf(fields))) return null;
  const bounds = boundsFor(index, fields);
  const leadBounded = !isFull(bounds[0]!);
  const sorted = sort.length > 0 ? sortedScans(index, bounds, sort) : null;
  // An index with no condition on its first field only helps to give the sort, and then only
  // when it holds every document.
  if (!forced && !leadBounded && !(sorted && !index.sparse && !index.isPartial)) return null;
  let pointCount = 0;
  while (pointCount < bounds.length && bounds[pointCount]!.every(isPoint)) pointCount++;
  return {
    node: sorted ?? { stage: 'IXSCAN', index, bounds, direction: 1 },
    sorted: sorted !== null,
    points: pointCount,
    ranged: pointCount < bounds.length && !isFull(bounds[pointCount]!),
  };
}

/** Best plan for one `$or` branch by a static ranking (sorted first, then most selective bounds). */
function bestBranchPlan(indexes: Index[], fields: Conjunction['fields'], sort: SortKey[]): IndexPlan | null {
  let best: IndexPlan | null = null;
  const rank = (p: IndexPlan) => (p.sorted ? 1000 : 0) + p.points * 2 + (p.ranged ? 1 : 0);
  for (const index of indexes) {
    const plan = indexPlan(index, fields, sort);
    if (plan && (plan.points > 0 || plan.ranged) && (!best || rank(plan) > rank(best))) best = plan;
  }
  return best;
}

export interface Candidate {
  root: PlanNode;
  /** Whether the plan returns documents in the requested order (no blocking SORT). */
  sorted: boolean;
}

function finish(access: PlanNode, sorted: boolean, sort: SortKey[]): Candidate {
  const fetches = access.stage === 'COLLSCAN' || access.stage === 'TEXT';
  const fetched: PlanNode = fetches ? access : { stage: 'FETCH', input: access };
  if (sort.length === 0 || sorted) return { root: fetched, sorted: true };
  return { root: { stage: 'SORT', sort, input: fetched }, sorted: false };
}

export interface PlanRequest {
  filter: unknown;
  sort: SortKey[];
  /** `$natural` direction when the sort or hint asks for one: a collection scan. */
  natural?: 1 | -1;
  hint?: unknown;
  /** The filter's `$text`: always answered from the text index. */
  text?: TextFilter;
  /** The query's collation, when not the simple one. */
  collation?: Collation;
}

/** The plan of a `$text` query: mongod has no other for it. */
function textPlan(coll: Collection, request: PlanRequest, text: TextFilter): Candidate {
  const index = [...coll.indexes.values()].find((i) => i instanceof TextIndex);
  if (!index) throw new CommandError(ErrorCode.IndexNotFound, 'text index required for $text query');
  const hint = request.hint;
  if (
    hint !== undefined &&
    hint !== null &&
    hint !== index.name &&
    keyString(hint) !== keyString(index.spec.key)
  )
    throw new CommandError(
      ErrorCode.BadValue,
      `a $text query can only use the text index (${index.name}), not the hinted one`,
    );
  const search = parseTextSearch(text.params, index.text.defaultLanguage);
  return finish({ stage: 'TEXT', index, search, residual: text.residual }, false, request.sort);
}

/**
 * Candidate plans for a query, for the executor's trial: one per index that helps, and one union
 * of index scans per `$or` whose branches all have one. A collection scan when nothing applies.
 */
export function candidatePlans(coll: Collection, request: PlanRequest): Candidate[] {
  const { sort } = request;
  if (request.text) return [textPlan(coll, request, request.text)];
  const conj = conjunctionOf(request.filter);
  const indexes = plannable(coll);
  // An index serves string comparisons, and gives an order, only under the query's own collation
  // (mongod's rule). The engine's indexes are all binary (README: index collation is refused), so
  // under a collation they bound only the other conditions and a SORT stage orders the results.
  const collated = request.collation !== undefined;
  const indexable = (fields: Conjunction['fields']) => (collated ? withoutStringComparisons(fields) : fields);
  const indexSort = collated ? [] : sort;
  const fields = indexable(conj.fields);
  const hint = request.hint;
  if (request.natural !== undefined || (isPlainObject(hint) && '$natural' in hint)) {
    const dir = request.natural ?? (Number((hint as Document).$natural) < 0 ? -1 : 1);
    return [finish({ stage: 'COLLSCAN', direction: dir }, false, sort)];
  }
  if (hint !== undefined && hint !== null) {
    const index = coll.findIndex(hint as string | Document);
    if (index?.ordered) {
      const plan = indexPlan(index, fields, indexSort, true)!;
      return [finish(plan.node, plan.sorted, sort)];
    }
  }
  const out: Candidate[] = [];
  for (const index of indexes) {
    const plan = indexPlan(index, fields, indexSort);
    if (plan) out.push(finish(plan.node, plan.sorted, sort));
  }
  for (const branches of conj.ors) {
    const plans: IndexPlan[] = [];
    for (const branch of branches) {
      // The conditions around the $or hold for every branch: they narrow its scan too.
      const branchConj = conjunctionOf(branch);
      if (branchConj.ors.length > 0) break;
      const plan = bestBranchPlan(indexes, [...indexable(branchConj.fields), ...fields], indexSort);
      if (!plan) break;
      plans.push(plan);
    }
    if (plans.length !== branches.length) continue;
    const merged = indexSort.length > 0 && plans.every((p) => p.sorted);
    const inputs = plans.map((p) => p.node);
    out.push(finish(merged ? { stage: 'SORT_MERGE', sort, inputs } : { stage: 'OR', inputs }, merged, sort));
  }
  if (out.length === 0) out.push(finish({ stage: 'COLLSCAN', direction: 1 }, false, sort));
  return out;
}

// ------------------------------------------------------------------ explain

function formatBound(v: unknown): string {
  if (v === MIN_KEY) return 'MinKey';
  if (v === MAX_KEY) return 'MaxKey';
  if (v instanceof TypeEdge) {
    const low = v.side < 0;
    switch (v.order) {
      case 4:
        return low ? '""' : '{}';
      case 8:
        return `ObjectId('${(low ? '0' : 'f').repeat(24)}')`;
      case 9:
        return low ? 'false' : 'true';
      case 10:
        return low ? 'new Date(-9223372036854775808)' : 'new Date(9223372036854775807)';
      default:
        return low ? 'MinKey' : 'MaxKey';
    }
  }
  if (v === null) return 'null';
  if (typeof v === 'number') {
    if (v === Number.POSITIVE_INFINITY) return 'inf.0';
    if (v === Number.NEGATIVE_INFINITY) return '-inf.0';
    return String(v);
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  const tag = (v as { _bsontype?: string })._bsontype;
  if (tag === 'ObjectId') return `ObjectId('${(v as { toHexString(): string }).toHexString()}')`;
  return String(v);
}

/** mongod's interval strings per field, in the order the scan walks them (`[inf.0, 5)` backwards). */
function formatBounds(index: Index, bounds: Interval[][], direction: 1 | -1): Document {
  const out: Document = {};
  index.fields.forEach((field, i) => {
    const forwards = index.directions[i]! * direction === 1;
    const ivs = forwards ? bounds[i]! : bounds[i]!.slice().reverse();
    out[field] = ivs.map((iv) =>
      forwards
        ? `${iv.loInc ? '[' : '('}${formatBound(iv.lo)}, ${formatBound(iv.hi)}${iv.hiInc ? ']' : ')'}`
        : `${iv.hiInc ? '[' : '('}${formatBound(iv.hi)}, ${formatBound(iv.lo)}${iv.loInc ? ']' : ')'}`,
    );
  });
  return out;
}

/** A sort as its spec: `{a: 1, score: {$meta: "textScore"}}`. */
export const sortPattern = (sort: SortKey[]): Document =>
  Object.fromEntries(sort.map((k) => [k.path, k.textScore ? { $meta: 'textScore' } : k.dir]));

/** mongod's shape of a text plan: TEXT_MATCH over FETCH over one index scan per term. */
function explainText(node: Extract<PlanNode, { stage: 'TEXT' }>): Document {
  const { index, search, residual } = node;
  const scans = search.terms.map(() => ({
    stage: 'IXSCAN',
    keyPattern: index.spec.key,
    indexName: index.name,
    isMultiKey: true,
    isUnique: false,
    isSparse: false,
    isPartial: index.isPartial,
    indexVersion: 2,
    direction: 'backward',
    indexBounds: {},
  }));
  return {
    stage: 'TEXT_MATCH',
    indexPrefix: {},
    indexName: index.name,
    parsedTextQuery: {
      terms: [...search.positive].sort(),
      negatedTerms: [...search.negated].sort(),
      phrases: search.phrases,
      negatedPhrases: search.negatedPhrases,
    },
    textIndexVersion: 3,
    inputStage: {
      stage: 'FETCH',
      ...(Object.keys(residual).length > 0 ? { filter: residual } : {}),
      inputStage: scans.length === 1 ? scans[0] : { stage: 'TEXT_OR', inputStages: scans },
    },
  };
}

/** A plan in the shape of explain's `queryPlanner.winningPlan`; `filter` is shown on FETCH / COLLSCAN. */
export function explainPlan(node: PlanNode, filter: Document): Document {
  const hasFilter = Object.keys(filter).length > 0;
  switch (node.stage) {
    case 'COLLSCAN':
      return {
        stage: 'COLLSCAN',
        ...(hasFilter ? { filter } : {}),
        direction: node.direction === 1 ? 'forward' : 'backward',
      };
    case 'IXSCAN': {
      const { index } = node;
      return {
        stage: 'IXSCAN',
        keyPattern: index.spec.key,
        indexName: index.name,
        isMultiKey: index.multikey.some(Boolean),
        multiKeyPaths: Object.fromEntries(index.fields.map((f, i) => [f, index.multikey[i] ? [f] : []])),
        isUnique: index.unique,
        isSparse: index.sparse,
        isPartial: index.isPartial,
        indexVersion: 2,
        direction: node.direction === 1 ? 'forward' : 'backward',
        indexBounds: formatBounds(index, node.bounds, node.direction),
      };
    }
    case 'FETCH':
      return { stage: 'FETCH', ...(hasFilter ? { filter } : {}), inputStage: explainPlan(node.input, {}) };
    case 'OR':
      return { stage: 'OR', inputStages: node.inputs.map((n) => explainPlan(n, {})) };
    case 'SORT_MERGE':
      return {
        stage: 'SORT_MERGE',
        sortPattern: sortPattern(node.sort),
        inputStages: node.inputs.map((n) => explainPlan(n, {})),
      };
    case 'TEXT':
      return explainText(node);
    case 'SORT':
      return {
        stage: 'SORT',
        sortPattern: sortPattern(node.sort),
        type: 'simple',
        inputStage: explainPlan(node.input, filter),
      };
  }
}
