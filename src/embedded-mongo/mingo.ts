// mingo configured to answer as mongod does: its operators, with the few whose results differ
// replaced, and the options every filter, projection, pipeline and update expression runs with.
import { Context, ProcessingMode } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import type { Options } from 'mingo/types';
import { resolve } from 'mingo/util';
import { badValue } from './errors.js';
import { type Document, isPlainObject, keyString } from './values.js';

type Predicate = (obj: unknown) => boolean;
type QueryOperatorFn = (selector: string, value: unknown, options: Options) => Predicate;

/**
 * `$in` compiled once into a hash set of canonical keys. mingo's own `$in` rebuilds a hash map for
 * every document tested, which is quadratic for large key lists.
 */
function compileIn(selector: string, value: unknown): Predicate {
  if (!Array.isArray(value)) throw badValue('$in needs an array');
  const keys = new Set<string>();
  const regexes: RegExp[] = [];
  for (const v of value) {
    if (v instanceof RegExp) regexes.push(v);
    else if (isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'))) {
      throw badValue('cannot nest $ under $in');
    } else keys.add(keyString(v));
  }
  const hasNull = keys.has('z');
  const matchOne = (v: unknown): boolean => {
    if (keys.has(keyString(v))) return true;
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

const $in: QueryOperatorFn = (selector, value) => compileIn(selector, value);
const $nin: QueryOperatorFn = (selector, value) => {
  const inner = compileIn(selector, value);
  return (obj) => !inner(obj);
};

type PipelineStageFn = (coll: unknown, expr: unknown, options: Options) => { filter(f: Predicate): unknown };

/** mongod's `$count` emits nothing for empty input; mingo emits `{ n: 0 }`. */
const $count: PipelineStageFn = (coll, expr, options) =>
  (pipelineOperators.$count as unknown as PipelineStageFn)(coll, expr, options).filter(
    (doc) => (doc as Document)[expr as string] !== 0,
  ) as never;

const CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: expressionOperators,
  pipeline: { ...pipelineOperators, $count } as unknown as typeof pipelineOperators,
  projection: projectionOperators,
  query: { ...queryOperators, $in, $nin } as unknown as typeof queryOperators,
  window: windowOperators,
});

export interface MingoExtras {
  variables?: Document;
  collectionResolver?: (name: string) => Document[];
}

export function mingoOptions(extras: MingoExtras = {}): Options {
  const opts: Record<string, unknown> = {
    context: CONTEXT,
    idKey: '_id',
    useStrictMode: true,
    scriptEnabled: false,
    failOnError: true,
    processingMode: ProcessingMode.CLONE_OFF,
  };
  if (extras.variables) opts.variables = extras.variables;
  if (extras.collectionResolver) opts.collectionResolver = extras.collectionResolver;
  return opts as unknown as Options;
}
