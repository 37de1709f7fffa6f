// A query filter checked and prepared as mongod's MatchExpressionParser reads it, before mingo
// compiles it: the argument types of the operators mingo would take silently (`$size: "x"`,
// `$mod: [1]`, `$or: []`...) refused with mongod's BadValue, and every regular expression (a regex
// value, `$regex` with `$options`, inside `$in`, `$nin`, `$all`, `$not`) compiled through pcre.ts,
// so mingo only ever sees JavaScript RegExps that match as PCRE would. Unchanged parts are shared.
import { badValue } from './errors.js';
import { compileQueryRegex, isBsonRegex, regexParts } from './pcre.js';
import { type Document, isNumeric, isPlainObject } from './values.js';

/** Top-level operators that take no field filter of this parser (mingo and the engine handle them). */
const OPAQUE_TOP_LEVEL = new Set([
  '$expr',
  '$where',
  '$text',
  '$comment',
  '$jsonSchema',
  '$sampleRate',
  '$alwaysTrue',
  '$alwaysFalse',
]);

const FIELD_OPERATORS = new Set([
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$all',
  '$elemMatch',
  '$size',
  '$exists',
  '$type',
  '$mod',
  '$regex',
  '$options',
  '$not',
  '$bitsAllSet',
  '$bitsAllClear',
  '$bitsAnySet',
  '$bitsAnyClear',
  '$geoWithin',
  '$geoIntersects',
  '$near',
  '$nearSphere',
  '$within',
  '$maxDistance',
  '$minDistance',
  '$comment',
]);

function isRegexValue(value: unknown): value is RegExp {
  return value instanceof RegExp || isBsonRegex(value);
}

function compiledRegex(value: RegExp): RegExp {
  const { pattern, options } = regexParts(value);
  return compileQueryRegex(pattern, options);
}

/** `list` with `f` applied to each element: the same array when nothing changed. */
function mapShared(list: unknown[], f: (v: unknown) => unknown): unknown[] {
  const out = list.map(f);
  return out.every((v, i) => v === list[i]) ? list : out;
}

const compiledIfRegex = (v: unknown): unknown => (isRegexValue(v) ? compiledRegex(v) : v);

function checkMod(value: unknown): void {
  if (!Array.isArray(value)) throw badValue('malformed mod, needs to be an array');
  if (value.length < 2) throw badValue('malformed mod, not enough elements');
  if (value.length > 2) throw badValue('malformed mod, too many elements');
  if (!isNumeric(value[0])) throw badValue('malformed mod, divisor not a number');
  if (!isNumeric(value[1])) throw badValue('malformed mod, remainder not a number');
}

/** `{ $regex, $options }` of one field as one compiled RegExp under `$regex`. */
function prepareRegexOperator(operators: Document): Document {
  const { $regex: regex, $options: options, ...rest } = operators;
  if (regex === undefined) throw badValue('$options needs a $regex');
  if (options !== undefined && typeof options !== 'string') throw badValue('$options has to be a string');
  let pattern: string;
  let letters = options ?? '';
  if (typeof regex === 'string') pattern = regex;
  else if (isRegexValue(regex)) {
    const parts = regexParts(regex);
    if (parts.options !== '' && letters !== '') throw badValue('options set in both $regex and $options');
    pattern = parts.pattern;
    letters = parts.options || letters;
  } else throw badValue('$regex has to be a string');
  return { ...rest, $regex: compileQueryRegex(pattern, letters) };
}

/** A field's operator object (`{ $gt: 1, $lt: 5 }`) checked, its regexes compiled. */
function prepareOperators(operators: Document): Document {
  let out = operators;
  const set = (key: string, value: unknown) => {
    if (value === operators[key]) return;
    if (out === operators) out = { ...operators };
    out[key] = value;
  };
  if ('$regex' in operators || '$options' in operators) out = prepareRegexOperator(operators);
  for (const [operator, value] of Object.entries(operators)) {
    if (!FIELD_OPERATORS.has(operator)) throw badValue(`unknown operator: ${operator}`);
    switch (operator) {
      case '$in':
      case '$nin':
      case '$all':
        if (!Array.isArray(value)) throw badValue(`${operator} needs an array`);
        set(operator, mapShared(value, operator === '$all' ? prepareAllElement : compiledIfRegex));
        break;
      case '$not':
        if (isRegexValue(value)) set(operator, compiledRegex(value));
        else if (isPlainObject(value)) {
          if (Object.keys(value).length === 0) throw badValue('$not cannot be empty');
          set(operator, prepareOperators(value));
        } else throw badValue('$not needs a regex or a document');
        break;
      case '$elemMatch':
        if (!isPlainObject(value)) throw badValue('$elemMatch needs an Object');
        set(operator, prepareElemMatch(value));
        break;
      case '$size':
        if (!isNumeric(value)) throw badValue('$size needs a number');
        break;
      case '$mod':
        checkMod(value);
        break;
    }
  }
  return out;
}

function prepareAllElement(value: unknown): unknown {
  if (isRegexValue(value)) return compiledRegex(value);
  if (isPlainObject(value) && isPlainObject(value.$elemMatch)) {
    const inner = prepareElemMatch(value.$elemMatch);
    return inner === value.$elemMatch ? value : { ...value, $elemMatch: inner };
  }
  return value;
}

/** `$elemMatch`'s argument: operators on the element itself, or a filter on its fields. */
function prepareElemMatch(value: Document): Document {
  const keys = Object.keys(value);
  const onElement = keys.length > 0 && keys.every((k) => FIELD_OPERATORS.has(k));
  return onElement ? prepareOperators(value) : prepareFilter(value);
}

function prepareFieldCondition(condition: unknown): unknown {
  if (isRegexValue(condition)) return compiledRegex(condition);
  if (isPlainObject(condition) && Object.keys(condition)[0]?.startsWith('$')) {
    return prepareOperators(condition);
  }
  return condition;
}

function prepareSubFilters(operator: string, value: unknown): Document[] {
  if (!Array.isArray(value)) throw badValue(`${operator} must be an array`);
  if (value.length === 0) throw badValue('$and/$or/$nor must be a nonempty array');
  return mapShared(value, (sub) => {
    if (!isPlainObject(sub)) throw badValue('$or/$and/$nor entries need to be full objects');
    return prepareFilter(sub);
  }) as Document[];
}

/** The filter with mongod's syntax checked and its regexes compiled (see the top of this file). */
export function prepareFilter(filter: Document): Document {
  let out = filter;
  for (const [key, value] of Object.entries(filter)) {
    let next: unknown = value;
    if (key === '$and' || key === '$or' || key === '$nor') next = prepareSubFilters(key, value);
    else if (key.startsWith('$')) {
      if (!OPAQUE_TOP_LEVEL.has(key)) {
        throw badValue(
          `unknown top level operator: ${key}. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.`,
        );
      }
    } else next = prepareFieldCondition(value);
    if (next !== value) {
      if (out === filter) out = { ...filter };
      out[key] = next;
    }
  }
  return out;
}
