// The aggregation expressions $regexMatch, $regexFind and $regexFindAll as mongod evaluates them:
// the regex compiled through pcre.ts (PCRE's syntax and options, mongod's errors), `idx` counted in
// code points, unmatched captures null. mingo's own hand the pattern to `new RegExp` as it is.
import { evalExpr } from 'mingo/core';
import type { Options } from 'mingo/types';
import { CommandError } from './errors.js';
import { compileExpressionRegex, isBsonRegex, type PcreRegExp, regexParts } from './pcre.js';
import { type Document, isPlainObject, typeName } from './values.js';

interface RegexMatch {
  match: string;
  idx: number;
  captures: Array<string | null>;
}

/** The compiled regex and the input, or null when either is null or missing. */
function evaluate(obj: unknown, expr: unknown, options: Options, operator: string) {
  if (!isPlainObject(expr)) {
    throw new CommandError(
      51103,
      `${operator} expects an object of named arguments but found: ${typeName(expr)}`,
    );
  }
  for (const key of Object.keys(expr)) {
    if (key !== 'input' && key !== 'regex' && key !== 'options') {
      throw new CommandError(31024, `${operator} found an unknown argument: ${key}`);
    }
  }
  if (!('input' in expr)) throw new CommandError(31022, `${operator} requires 'input' parameter`);
  if (!('regex' in expr)) throw new CommandError(31023, `${operator} requires 'regex' parameter`);
  const args = evalExpr(obj, expr, options) as Document;
  const { input, regex, options: letters } = args;
  if (letters !== undefined && letters !== null && typeof letters !== 'string') {
    throw new CommandError(51106, `${operator} needs 'options' to be of type string`);
  }
  let pattern: string;
  let optionLetters = typeof letters === 'string' ? letters : '';
  if (regex === undefined || regex === null) return null;
  if (typeof regex === 'string') pattern = regex;
  else if (regex instanceof RegExp || isBsonRegex(regex)) {
    const parts = regexParts(regex);
    if (parts.options !== '' && optionLetters !== '') {
      throw new CommandError(
        51107,
        `${operator} found regex option(s) specified in both 'regex' and 'option' fields`,
      );
    }
    pattern = parts.pattern;
    optionLetters = parts.options || optionLetters;
  } else {
    throw new CommandError(51105, `${operator} needs 'regex' to be of type string or regex`);
  }
  const re = compileExpressionRegex(pattern, optionLetters, operator);
  if (input === undefined || input === null) return null;
  if (typeof input !== 'string') {
    throw new CommandError(51104, `${operator} needs 'input' to be of type string`);
  }
  return { re, input };
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Every match from the start, as mongod's $regexFindAll steps: past an empty match by one character. */
function* matches(re: PcreRegExp, input: string): Generator<RegexMatch> {
  const scanner = new RegExp(re.source, `${re.flags}g`);
  let from = 0;
  let codePoints = 0;
  let counted = 0;
  while (from <= input.length) {
    scanner.lastIndex = from;
    const m = scanner.exec(input);
    if (!m) return;
    codePoints += codePointLength(input.slice(counted, m.index));
    counted = m.index;
    yield {
      match: m[0],
      idx: codePoints,
      captures: re.captureIndexes.map((i) => m[i] ?? null),
    };
    from = m.index + m[0].length;
    if (m[0].length === 0) from += (input.codePointAt(from) ?? 0) > 0xffff ? 2 : 1;
  }
}

type ExpressionFn = (obj: unknown, expr: unknown, options: Options) => unknown;

export const regexExpressionOperators: Record<string, ExpressionFn> = {
  $regexMatch: (obj, expr, options) => {
    const state = evaluate(obj, expr, options, '$regexMatch');
    return state ? state.re.test(state.input) : false;
  },
  $regexFind: (obj, expr, options) => {
    const state = evaluate(obj, expr, options, '$regexFind');
    if (!state) return null;
    return matches(state.re, state.input).next().value ?? null;
  },
  $regexFindAll: (obj, expr, options) => {
    const state = evaluate(obj, expr, options, '$regexFindAll');
    return state ? [...matches(state.re, state.input)] : [];
  },
};
