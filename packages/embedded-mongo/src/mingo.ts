// mingo configured to answer as mongod does: its operators, with the few whose results differ
// replaced, and the options every filter, projection, pipeline and update expression runs with.
import { Context, evalExpr, ProcessingMode } from 'mingo/core';
import { Lazy } from 'mingo/lazy';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import type { Options } from 'mingo/types';
import { ensureArray, flatten, resolve } from 'mingo/util';
import { Collation, collationKeyer } from './collation.js';
import { badValue } from './errors.js';
import { prepareFilter } from './filter-syntax.js';
import { checkJsonSchema, schemaRulesNotSatisfied } from './json-schema.js';
import { fromDouble, sumNumbers, toDouble } from './numbers.js';
import { checkProjectionKinds } from './projection-kinds.js';
import { regexExpressionOperators } from './regex-expressions.js';
import { sortDocuments } from './sort.js';
import {
  compareValues,
  type Document,
  isNumeric,
  isPlainObject,
  keyString,
  type StringComparator,
  typeName,
  typeOrder,
  valuesEqual,
} from './values.js';

type Predicate = (obj: unknown) => boolean;
type QueryOperatorFn = (selector: string, value: unknown, options: Options) => Predicate;

/**
 * The collation a filter, pipeline or expression runs under (mingoOptions' `collation`, which mingo
 * hands on to every operator and nested query); undefined for the simple one. Operators ask once,
 * when compiled, where they can.
 */
function collationOf(options: Options | undefined): Collation | undefined {
  const collation = (options as { collation?: unknown } | undefined)?.collation;
  return collation instanceof Collation ? collation : undefined;
}

/**
 * Whether a value equals one of `values` under a collation: a binary search of them sorted by it
 * (Intl has no sort keys to hash strings by).
 */
function collatedMembership(values: unknown[], strings: StringComparator): (v: unknown) => boolean {
  const compare = (a: unknown, b: unknown) => compareValues(a, b, strings);
  const sorted = values.slice().sort(compare);
  return (v) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compare(sorted[mid], v);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return false;
  };
}

/**
 * `$in` compiled once into a hash set of canonical keys (a sorted list under a collation). mingo's
 * own `$in` rebuilds a hash map for every document tested, which is quadratic for large key lists.
 */
function compileIn(selector: string, value: unknown, strings: StringComparator | undefined): Predicate {
  if (!Array.isArray(value)) throw badValue('$in needs an array');
  const keys = new Set<string>();
  const listed: unknown[] = [];
  const regexes: RegExp[] = [];
  for (const v of value) {
    if (v instanceof RegExp) regexes.push(v);
    else if (isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'))) {
      throw badValue('cannot nest $ under $in');
    } else {
      keys.add(keyString(v));
      listed.push(v);
    }
  }
  const hasNull = keys.has('z');
  const isListed = strings ? collatedMembership(listed, strings) : (v: unknown) => keys.has(keyString(v));
  // Regular expressions ignore the collation, as on mongod.
  const matchOne = (v: unknown): boolean => {
    if (isListed(v)) return true;
    if (regexes.length > 0 && typeof v === 'string') {
      for (const re of regexes) {
        re.lastIndex = 0;
        if (re.test(v)) return true;
      }
    }
    return false;
  };
  return (obj: unknown) => {
    const lhs = resolve(obj as Document, selector, { unwrapArray: true });
    if (lhs === undefined || lhs === null) return hasNull;
    if (matchOne(lhs)) return true;
    if (Array.isArray(lhs)) {
      for (const el of lhs) {
        if (matchOne(el)) return true;
        if (Array.isArray(el)) for (const inner of el) if (matchOne(inner)) return true;
      }
    }
    return false;
  };
}

const $in: QueryOperatorFn = (selector, value, options) =>
  compileIn(selector, value, collationOf(options)?.compare);
const $nin: QueryOperatorFn = (selector, value, options) => {
  const inner = compileIn(selector, value, collationOf(options)?.compare);
  return (obj) => !inner(obj);
};

// mingo compares with its own rules: numbers only with JS numbers, objects regardless of field
// order, values of different types never. The comparison operators below use the engine's BSON
// comparison instead (values.ts), so Int32, Int64, Double and Decimal128 compare by value; under
// a collation, strings compare by it.

type FieldTest = (lhs: unknown, value: unknown, depth: number, strings?: StringComparator) => boolean;

/** A query operator over the values at `selector` (array elements included, as mingo resolves them). */
function fieldOperator(test: FieldTest): QueryOperatorFn {
  return (selector, value, options) => {
    const depth = selector.split('.').length - 1;
    const strings = collationOf(options)?.compare;
    return (obj) => test(resolve(obj as Document, selector, { unwrapArray: true }), value, depth, strings);
  };
}

function equals(lhs: unknown, value: unknown, depth: number, strings?: StringComparator): boolean {
  if (valuesEqual(lhs, value, strings)) return true;
  if (!Array.isArray(lhs)) return false;
  const equal = (v: unknown) => valuesEqual(v, value, strings);
  return lhs.some(equal) || flatten(lhs, depth).some(equal);
}

/** `$lt` and friends: only values of the same BSON type bracket compare (mongod's type bracketing). */
function ordered(accept: (c: number) => boolean): FieldTest {
  return (lhs, value, _depth, strings) => {
    const order = typeOrder(value);
    const candidates = Array.isArray(lhs) ? (Array.isArray(value) ? [lhs, ...lhs] : lhs) : [lhs];
    return candidates.some((v) => typeOrder(v) === order && accept(compareValues(v, value, strings)));
  };
}

const TYPE_CODES: Record<number, string> = {
  1: 'double',
  2: 'string',
  3: 'object',
  4: 'array',
  5: 'bindata',
  6: 'undefined',
  7: 'objectid',
  8: 'bool',
  9: 'date',
  10: 'null',
  11: 'regex',
  13: 'javascript',
  14: 'symbol',
  16: 'int',
  17: 'timestamp',
  18: 'long',
  19: 'decimal',
  [-1]: 'minkey',
  127: 'maxkey',
};
const NUMBER_TYPES = new Set(['int', 'long', 'double', 'decimal']);

function hasType(value: unknown, alias: unknown): boolean {
  const code = toDouble(alias);
  const wanted =
    code !== undefined ? TYPE_CODES[code] : typeof alias === 'string' ? alias.toLowerCase() : undefined;
  if (wanted === undefined) throw badValue(`Unknown type name alias: ${String(alias)}`);
  const actual = typeName(value).toLowerCase();
  return actual === wanted || (wanted === 'number' && NUMBER_TYPES.has(actual));
}

/** `$type`: the value or, for an array, the array itself or any of its elements. */
function typeMatches(lhs: unknown, value: unknown): boolean {
  const aliases = Array.isArray(value) ? value : [value];
  const candidates = Array.isArray(lhs) ? [lhs, ...lhs] : [lhs];
  return candidates.some((v) => v !== undefined && aliases.some((a) => hasType(v, a)));
}

const comparisonQueryOperators = {
  $eq: fieldOperator(equals),
  $ne: fieldOperator((lhs, value, depth, strings) => !equals(lhs, value, depth, strings)),
  $gt: fieldOperator(ordered((c) => c > 0)),
  $gte: fieldOperator(ordered((c) => c >= 0)),
  $lt: fieldOperator(ordered((c) => c < 0)),
  $lte: fieldOperator(ordered((c) => c <= 0)),
  $type: fieldOperator(typeMatches),
};

const mingoAll = queryOperators.$all as unknown as QueryOperatorFn;

/**
 * `$all` under a collation: every listed value equal to the field's (mongod's rewrite of `$all` into
 * `$eq`s); with regular expressions or `$elemMatch`, or without a collation, mingo's own.
 */
const $all: QueryOperatorFn = (selector, value, options) => {
  const plain = Array.isArray(value) && value.every((v) => !(v instanceof RegExp) && !isPlainObject(v));
  if (!collationOf(options) || !plain || value.length === 0) return mingoAll(selector, value, options);
  const tests = value.map((v) => comparisonQueryOperators.$eq(selector, v, options));
  return (obj) => tests.every((test) => test(obj));
};

/** The query operators the engine implements itself (the only option they read is the collation). */
const engineQueryOperators: Record<string, QueryOperatorFn> = { ...comparisonQueryOperators, $in, $nin };

/**
 * A filter whose every field is compared with the engine's own query operators (`{f: v}`, `$eq`,
 * `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$type`, `$in`, `$nin`), compiled into the predicate mingo's
 * Query would build from those very operators, without mingo: its Query copies the whole operator
 * context for every filter, which cost more than matching. Null for any other filter (top-level
 * operators, regular expressions, mingo's operators), which mingo's Query compiles.
 */
export function compileFieldFilter(filter: Document, collation?: Collation): Predicate | null {
  const options = (collation ? { collation } : {}) as Options;
  const predicates: Predicate[] = [];
  for (const [field, expr] of Object.entries(filter)) {
    if (field.startsWith('$') || expr instanceof RegExp) return null;
    // As mingo normalises a field's condition: operators when any key is one, else equality.
    const operators =
      isPlainObject(expr) && Object.keys(expr).some((key) => key.startsWith('$')) ? expr : { $eq: expr };
    for (const [operator, value] of Object.entries(operators)) {
      const compile = engineQueryOperators[operator];
      if (!compile) return null;
      predicates.push(compile(field, value, options));
    }
  }
  return (doc) => predicates.every((test) => test(doc));
}

type ExpressionFn = (obj: unknown, expr: unknown, options: Options) => unknown;

/** Aggregation comparisons: every value compares with every other in BSON order. */
function comparison(result: (c: number) => unknown): ExpressionFn {
  return (obj, expr, options) => {
    if (!Array.isArray(expr) || expr.length !== 2)
      throw badValue('comparison expects an array of 2 arguments');
    const [a, b] = evalExpr(obj, expr, options) as unknown[];
    return result(compareValues(a, b, collationOf(options)?.compare));
  };
}

const mingoInExpression = expressionOperators.$in as unknown as ExpressionFn;

/** The `$in` expression under a collation (mingo's own compares strings as they are). */
const $inExpression: ExpressionFn = (obj, expr, options) => {
  const strings = collationOf(options)?.compare;
  if (!strings || !Array.isArray(expr) || expr.length !== 2) return mingoInExpression(obj, expr, options);
  const [item, list] = evalExpr(obj, expr, options) as unknown[];
  if (!Array.isArray(list)) return mingoInExpression(obj, expr, options);
  return list.some((v) => valuesEqual(v, item, strings));
};

const comparisonExpressionOperators = {
  $eq: comparison((c) => c === 0),
  $ne: comparison((c) => c !== 0),
  $gt: comparison((c) => c > 0),
  $gte: comparison((c) => c >= 0),
  $lt: comparison((c) => c < 0),
  $lte: comparison((c) => c <= 0),
  $cmp: comparison((c) => Math.sign(c)),
  $in: $inExpression,
};

/** mingo's arithmetic only knows JS numbers: its operands are handed over as such. */
function plainNumber(value: unknown): unknown {
  return typeof value === 'object' && isNumeric(value) ? toDouble(value) : value;
}

const ARITHMETIC = {
  $add: expressionOperators.$add,
  $subtract: expressionOperators.$subtract,
  $multiply: expressionOperators.$multiply,
  $divide: expressionOperators.$divide,
  $mod: expressionOperators.$mod,
  $abs: expressionOperators.$abs,
  $ceil: expressionOperators.$ceil,
  $floor: expressionOperators.$floor,
  $round: expressionOperators.$round,
  $trunc: expressionOperators.$trunc,
  $sqrt: expressionOperators.$sqrt,
  $pow: expressionOperators.$pow,
  $exp: expressionOperators.$exp,
  $ln: expressionOperators.$ln,
  $log: expressionOperators.$log,
  $log10: expressionOperators.$log10,
};

const arithmeticExpressionOperators = Object.fromEntries(
  Object.entries(ARITHMETIC).map(([name, operator]) => {
    const original = operator as unknown as ExpressionFn;
    const fn: ExpressionFn = (obj, expr, options) => {
      if (!Array.isArray(expr))
        return original(obj, { $literal: plainNumber(evalExpr(obj, expr, options)) }, options);
      const args = evalExpr(obj, expr, options) as unknown[];
      return original(
        obj,
        args.map((v) => ({ $literal: plainNumber(v) })),
        options,
      );
    };
    return [name, fn];
  }),
);

type AccumulatorFn = (coll: Document[], expr: unknown, options: Options) => unknown;
const pushed = accumulatorOperators.$push as unknown as AccumulatorFn;

/** The extreme value of a group in BSON order, null and missing ignored. */
function extreme(sign: 1 | -1): AccumulatorFn {
  return (coll, expr, options) => {
    let best: unknown = null;
    const strings = collationOf(options)?.compare;
    for (const v of pushed(coll, expr, options) as unknown[]) {
      if (v === null || v === undefined) continue;
      if (best === null || compareValues(v, best, strings) * sign > 0) best = v;
    }
    return best;
  };
}

const numericAccumulators = {
  $sum: ((coll, expr, options) =>
    sumNumbers(
      isNumeric(expr) ? coll.map(() => expr) : (pushed(coll, expr, options) as unknown[]),
    )) as AccumulatorFn,
  $avg: ((coll, expr, options) => {
    const numbers = (pushed(coll, expr, options) as unknown[]).filter(isNumeric);
    if (numbers.length === 0) return null;
    return fromDouble(numbers.reduce((s: number, v) => s + (toDouble(v) as number), 0) / numbers.length);
  }) as AccumulatorFn,
  $min: extreme(-1),
  $max: extreme(1),
};

/** The part of mingo's lazy sequence (mingo/lazy) the stages below use. */
interface Sequence {
  filter(f: Predicate): unknown;
  map(f: (doc: Document) => Document): unknown;
  transform(f: (docs: Document[]) => unknown): unknown;
  collect(): Document[];
}
type PipelineStageFn = (coll: Sequence, expr: unknown, options: Options) => Sequence;

/** mongod's `$count` emits nothing for empty input; mingo emits `{ n: 0 }`. */
const $count: PipelineStageFn = (coll, expr, options) =>
  (pipelineOperators.$count as unknown as PipelineStageFn)(coll, expr, options).filter(
    (doc) => (doc as Document)[expr as string] !== 0,
  ) as never;

const $match: PipelineStageFn = (coll, expr, options) =>
  (pipelineOperators.$match as unknown as PipelineStageFn)(
    coll,
    isPlainObject(expr) ? prepareFilter(expr) : expr,
    options,
  );

/** `$project` with mongod's errors for a mix of inclusions and exclusions (projection.ts). */
const $project: PipelineStageFn = (coll, expr, options) => {
  if (isPlainObject(expr)) checkProjectionKinds(expr);
  return (pipelineOperators.$project as unknown as PipelineStageFn)(coll, expr, options);
};

/** `$sort` in BSON order (arrays by their smallest or largest element, as find sorts). */
const $sort: PipelineStageFn = (coll, spec, options) =>
  coll.transform((docs) => Lazy(sortDocuments(docs, spec, collationOf(options)))) as Sequence;

const mingoGroup = pipelineOperators.$group as unknown as PipelineStageFn;

/**
 * `$group` under a collation: keys equal under it form one group, whose `_id` is the first key
 * seen, as on mongod. mingo hashes keys as they are, so the documents are partitioned here and
 * each partition's accumulators are mingo's own `$group` of it.
 */
const $group: PipelineStageFn = (coll, expr, options) => {
  const collation = collationOf(options);
  if (!collation || !isPlainObject(expr) || !('_id' in expr)) return mingoGroup(coll, expr, options);
  const { _id: idExpression, ...accumulators } = expr;
  return coll.transform((docs) => {
    const keyOf = collationKeyer(collation);
    const groups = new Map<string, { id: unknown; members: Document[] }>();
    for (const doc of docs) {
      const id = evalExpr(doc, idExpression, options) ?? null;
      const key = keyOf(id);
      const group = groups.get(key);
      if (group) group.members.push(doc);
      else groups.set(key, { id, members: [doc] });
    }
    return Lazy(
      [...groups.values()].map(({ id, members }) => {
        const oneGroup = { ...accumulators, _id: null };
        const [computed] = mingoGroup(Lazy(members) as unknown as Sequence, oneGroup, options).collect();
        return { ...computed, _id: id }; // `_id` keeps its place, the first
      }),
    );
  }) as Sequence;
};

const mingoLookup = pipelineOperators.$lookup as unknown as PipelineStageFn;

/**
 * `$lookup` by `localField`/`foreignField` under a collation: local and foreign values equal under
 * it join (mingo's join hashes them as they are). Matches keep the foreign collection's order; a
 * `$lookup` with a pipeline runs it under the collation through mingo's own.
 */
const $lookup: PipelineStageFn = (coll, expr, options) => {
  const collation = collationOf(options);
  const resolver = (options as { collectionResolver?: (name: string) => Document[] }).collectionResolver;
  if (
    !collation ||
    !resolver ||
    !isPlainObject(expr) ||
    typeof expr.from !== 'string' ||
    typeof expr.localField !== 'string' ||
    typeof expr.foreignField !== 'string' ||
    typeof expr.as !== 'string' ||
    expr.pipeline !== undefined
  )
    return mingoLookup(coll, expr, options);
  const { localField, foreignField, as } = expr;
  const keyOf = collationKeyer(collation);
  const foreign = resolver(expr.from);
  const byKey = new Map<string, Set<number>>();
  foreign.forEach((doc, position) => {
    for (const v of ensureArray(resolve(doc, foreignField) ?? null)) {
      const key = keyOf(v);
      const positions = byKey.get(key);
      if (positions) positions.add(position);
      else byKey.set(key, new Set([position]));
    }
  });
  return coll.map((doc) => {
    const positions = new Set<number>();
    for (const v of ensureArray(resolve(doc, localField) ?? null))
      for (const position of byKey.get(keyOf(v)) ?? []) positions.add(position);
    return { ...doc, [as]: [...positions].sort((a, b) => a - b).map((position) => foreign[position]) };
  }) as Sequence;
};

const CONTEXT = Context.init({
  accumulator: { ...accumulatorOperators, ...numericAccumulators } as unknown as typeof accumulatorOperators,
  expression: {
    ...expressionOperators,
    ...arithmeticExpressionOperators,
    ...comparisonExpressionOperators,
    ...regexExpressionOperators,
  } as unknown as typeof expressionOperators,
  pipeline: {
    ...pipelineOperators,
    $count,
    $group,
    $lookup,
    $match,
    $project,
    $sort,
  } as unknown as typeof pipelineOperators,
  projection: projectionOperators,
  query: {
    ...queryOperators,
    ...comparisonQueryOperators,
    $all,
    $in,
    $nin,
  } as unknown as typeof queryOperators,
  window: windowOperators,
});

export interface MingoExtras {
  variables?: Document;
  collectionResolver?: (name: string) => Document[];
  /** A non-simple collation: strings compare by it in filters, expressions and stages. */
  collation?: Collation;
}

export function mingoOptions(extras: MingoExtras = {}): Options {
  const opts: Record<string, unknown> = {
    context: CONTEXT,
    idKey: '_id',
    useStrictMode: true,
    scriptEnabled: false,
    failOnError: true,
    processingMode: ProcessingMode.CLONE_OFF,
    // mingo's `$jsonSchema` query operator asks for a validator: mongod's dialect (json-schema.ts).
    jsonSchemaValidator: (schema: unknown) => {
      checkJsonSchema(schema);
      return (doc: unknown) => schemaRulesNotSatisfied(schema, doc).length === 0;
    },
  };
  if (extras.variables) opts.variables = extras.variables;
  if (extras.collectionResolver) opts.collectionResolver = extras.collectionResolver;
  if (extras.collation) opts.collation = extras.collation;
  return opts as unknown as Options;
}
