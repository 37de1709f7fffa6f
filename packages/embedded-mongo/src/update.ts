// Update documents: operator updates (applied with mingo's updater, plus the checks mongod does
// that mingo skips), replacement documents, pipeline updates, and upsert seed documents.
import { ObjectId } from 'bson';
import { update as mingoUpdate } from 'mingo/updater';
import { cloneDeep, isEqual } from 'mingo/util';
import { badValue, CommandError, ErrorCode, failedToParse, toCommandError, typeMismatch } from './errors.js';
import { mingoOptions } from './mingo.js';
import { ArithmeticError, arithmetic, zeroLike } from './numbers.js';
import { runPipeline } from './query.js';
import {
  cloneValue,
  compareValues,
  type Document,
  exactKey,
  formatValue,
  getPath,
  idFirst,
  isNumeric,
  isPlainObject,
  keyString,
  setPath,
  typeName,
  valuesEqual,
} from './values.js';

const UPDATE_OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$setOnInsert',
  '$currentDate',
  '$push',
  '$addToSet',
  '$pop',
  '$pull',
  '$pullAll',
  '$bit',
]);

const PIPELINE_UPDATE_STAGES = new Set([
  '$addFields',
  '$set',
  '$project',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
]);

const CREATING_OPERATORS = new Set([
  '$set',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$currentDate',
  '$push',
  '$addToSet',
]);
const ARRAY_OPERATORS = new Set(['$push', '$addToSet', '$pop', '$pull', '$pullAll']);

export type ParsedUpdate =
  | { kind: 'replacement'; doc: Document }
  | { kind: 'operators'; ops: Document }
  | { kind: 'pipeline'; stages: Document[] };

export function parseUpdate(u: unknown): ParsedUpdate {
  if (Array.isArray(u)) {
    for (const stage of u) {
      const keys = isPlainObject(stage) ? Object.keys(stage) : [];
      if (keys.length !== 1 || !PIPELINE_UPDATE_STAGES.has(keys[0]!)) {
        throw new CommandError(
          ErrorCode.FailedToParse,
          `Invalid pipeline update stage: ${keys[0] ?? formatValue(stage)}. Only $addFields, $set, $project, $unset, $replaceRoot and $replaceWith are allowed`,
        );
      }
    }
    return { kind: 'pipeline', stages: u as Document[] };
  }
  if (!isPlainObject(u)) throw typeMismatch('Update argument must be either an object or an array');
  const keys = Object.keys(u);
  if (keys.length > 0 && keys[0]!.startsWith('$')) {
    for (const op of keys) {
      if (!UPDATE_OPERATORS.has(op)) {
        throw failedToParse(
          `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`,
        );
      }
      if (!isPlainObject(u[op])) {
        throw failedToParse(
          `Modifiers operate on fields but we found type ${typeName(u[op])} instead. For example: {$mod: {<field>: ...}} not {${op}: ${formatValue(u[op])}}`,
        );
      }
    }
    return { kind: 'operators', ops: u };
  }
  for (const key of keys) {
    if (key.startsWith('$')) {
      throw new CommandError(
        52,
        `The dollar ($) prefixed field '${key}' in '${key}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
      );
    }
  }
  return { kind: 'replacement', doc: u };
}

function isDigits(s: string): boolean {
  return /^\d+$/.test(s);
}

/** mongod refuses to create a field inside a scalar (or a named field inside an array). */
function checkPathViable(doc: Document, path: string): void {
  const parts = path.split('.');
  let current: unknown = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    if (Array.isArray(current)) current = isDigits(part) ? current[Number(part)] : undefined;
    else if (isPlainObject(current)) current = current[part];
    else return;
    if (current === undefined || current === null) return;
    const next = parts[i + 1]!;
    if (Array.isArray(current)) {
      if (!isDigits(next)) {
        throw new CommandError(
          ErrorCode.PathNotViable,
          `Cannot create field '${next}' in element {${part}: ${formatValue(current)}}`,
        );
      }
    } else if (!isPlainObject(current)) {
      throw new CommandError(
        ErrorCode.PathNotViable,
        `Cannot create field '${next}' in element {${part}: ${formatValue(current)}}`,
      );
    }
  }
}

function validateOperators(doc: Document, ops: Document): void {
  const idText = formatValue({ _id: doc._id });
  for (const [op, fields] of Object.entries(ops)) {
    for (const [path, arg] of Object.entries(fields as Document)) {
      if (path.includes('$')) continue; // positional paths are resolved by mingo
      if (CREATING_OPERATORS.has(op)) checkPathViable(doc, path);
      const current = getPath(doc, path);
      if (op === '$inc' || op === '$mul') {
        if (!isNumeric(arg)) {
          const verb = op === '$inc' ? 'increment' : 'multiply';
          throw typeMismatch(`Cannot ${verb} with non-numeric argument: {${path}: ${formatValue(arg)}}`);
        }
        if (current !== undefined && !isNumeric(current)) {
          throw typeMismatch(
            `Cannot apply ${op} to a value of non-numeric type. ${idText} has the field '${path}' of non-numeric type ${typeName(current)}`,
          );
        }
      } else if (ARRAY_OPERATORS.has(op) && current !== undefined && !Array.isArray(current)) {
        if (op === '$push' || op === '$addToSet') {
          throw badValue(
            `The field '${path}' must be an array but is of type ${typeName(current)} in document ${idText}`,
          );
        }
        throw badValue(`Cannot apply ${op} to a non-array value`);
      } else if (op === '$rename') {
        if (typeof arg !== 'string' || arg.length === 0)
          throw badValue("The 'to' field for $rename must be a string");
        checkPathViable(doc, arg);
      }
    }
  }
}

function hasPositional(ops: Document): boolean {
  for (const fields of Object.values(ops)) {
    for (const path of Object.keys(fields as Document)) if (/(^|\.)\$(\.|$)/.test(path)) return true;
  }
  return false;
}

/** mingo's $addToSet keeps duplicates of `$each` when the array does not exist yet; mongod does not. */
function fixAddToSet(doc: Document, ops: Document): Document {
  const add = ops.$addToSet as Document | undefined;
  if (!add) return ops;
  let changed: Document | undefined;
  for (const [path, arg] of Object.entries(add)) {
    if (!isPlainObject(arg) || !Array.isArray(arg.$each) || getPath(doc, path) !== undefined) continue;
    const seen = new Set<string>();
    const each = arg.$each.filter((v) => {
      const k = keyString(v);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    changed ??= { ...add };
    changed[path] = { ...arg, $each: each };
  }
  return changed ? { ...ops, $addToSet: changed } : ops;
}

/**
 * `$inc`, `$mul`, `$min` and `$max` on plain paths, computed here with mongod's numeric types and
 * BSON order (numbers.ts, values.ts) and handed to mingo as `$set`; mingo's own versions only know
 * JS numbers. Positional paths are left to mingo.
 */
function computeNumericOperators(doc: Document, ops: Document): Document {
  const idText = formatValue({ _id: doc._id });
  let out = ops;
  for (const op of ['$inc', '$mul', '$min', '$max']) {
    const fields = ops[op] as Document | undefined;
    if (!fields) continue;
    const rest: Document = {};
    const set: Document = { ...((out.$set as Document | undefined) ?? {}) };
    for (const [path, arg] of Object.entries(fields)) {
      if (path.includes('$') || Object.hasOwn(set, path)) {
        rest[path] = arg;
        continue;
      }
      const current = getPath(doc, path);
      if (op === '$min' || op === '$max') {
        const c = current === undefined ? 0 : compareValues(arg, current);
        if (current === undefined || (op === '$min' ? c < 0 : c > 0)) set[path] = cloneValue(arg);
        continue;
      }
      if (current === undefined) {
        set[path] = op === '$inc' ? arg : zeroLike(arg);
        continue;
      }
      try {
        set[path] = arithmetic(op === '$inc' ? 'add' : 'multiply', current, arg);
      } catch (err) {
        if (!(err instanceof ArithmeticError)) throw err;
        throw badValue(
          `Failed to apply ${op} operations to current value (${formatValue(current)}) for document ${idText}: ${err.message}`,
        );
      }
    }
    out = { ...out, $set: set };
    if (Object.keys(rest).length > 0) out[op] = rest;
    else delete out[op];
  }
  if (out.$set && Object.keys(out.$set as Document).length === 0) delete out.$set;
  return out;
}

/** A top-level field name mingo would take as it is: not `_id`, no path, no positional, no prototype key. */
const PLAIN_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * `$set` and `$unset` of distinct top-level fields (what most updates are, after the numeric
 * operators became `$set`), applied to `doc` exactly as mingo's updater applies them (its equality,
 * its deep copy) but without it: mingo builds its operator context afresh for every update, which
 * cost more than the rest of an update. Returns whether the document changed (as `exactKey` of the
 * whole document would tell, field by field), or undefined, touching nothing, for any other update.
 */
function applyTopLevel(doc: Document, ops: Document): boolean | undefined {
  const set = ops.$set as Document | undefined;
  const unset = ops.$unset as Document | undefined;
  if (Object.keys(ops).length !== (set ? 1 : 0) + (unset ? 1 : 0)) return undefined;
  const plain = (field: string) => field !== '_id' && PLAIN_FIELD.test(field) && !PROTOTYPE_KEYS.has(field);
  const setFields = set ? Object.keys(set) : [];
  const unsetFields = unset ? Object.keys(unset) : [];
  if (!setFields.every(plain) || !unsetFields.every(plain)) return undefined;
  if (set && unsetFields.some((field) => Object.hasOwn(set, field))) return undefined;
  let changed = false;
  for (const field of setFields) {
    const before = doc[field];
    if (isEqual(before, set![field])) continue;
    const after = cloneDeep(set![field]);
    doc[field] = after;
    // An undefined field does not count in exactKey: it is as good as absent.
    if (
      before === undefined
        ? after !== undefined
        : after === undefined || surelyDiffer(before, after) || exactKey(before) !== exactKey(after)
    )
      changed = true;
  }
  for (const field of unsetFields) {
    if (doc[field] !== undefined) changed = true;
    delete doc[field];
  }
  return changed;
}

/**
 * Values mingo's isEqual found unequal that exactKey would find unequal too, known without it
 * (exactKey copies a long string whole): null and a value, or two strings.
 */
const surelyDiffer = (a: unknown, b: unknown): boolean =>
  a === null || b === null || (typeof a === 'string' && typeof b === 'string');

export interface ApplyOptions {
  arrayFilters?: Document[] | undefined;
  /** The update's query, needed for the positional `$` operator. */
  query?: Document | undefined;
  /** True when building the document inserted by an upsert ($setOnInsert applies). */
  isInsert?: boolean;
  /** `$$name` variables of a pipeline update: the command's `let` and the statement's constants. */
  variables?: Document | undefined;
}

function prepareOperators(doc: Document, ops: Document, isInsert: boolean): Document {
  const out: Document = {};
  for (const [op, fields] of Object.entries(ops)) {
    if (op === '$setOnInsert') continue;
    out[op] = fields;
  }
  if (isInsert && ops.$setOnInsert) {
    const set: Document = { ...((out.$set as Document | undefined) ?? {}) };
    for (const [path, value] of Object.entries(ops.$setOnInsert as Document)) {
      if (path in set) {
        throw new CommandError(
          ErrorCode.ConflictingUpdateOperators,
          `Updating the path '${path}' would create a conflict at '${path}'`,
        );
      }
      set[path] = value;
    }
    out.$set = set;
  }
  // mingo rejects any write to `_id`; mongod allows setting it to its current value (and, on insert,
  // to anything). Handle `_id` here and keep it away from mingo.
  const set = out.$set as Document | undefined;
  if (set && Object.hasOwn(set, '_id')) {
    const value = set._id;
    if (isInsert) doc._id = cloneValue(value);
    else if (!valuesEqual(value, doc._id)) {
      throw new CommandError(
        ErrorCode.ImmutableField,
        "Performing an update on the path '_id' would modify the immutable field '_id'",
      );
    }
    const rest = { ...set };
    delete rest._id;
    out.$set = rest;
  }
  for (const op of Object.keys(out)) if (Object.keys(out[op] as Document).length === 0) delete out[op];
  return out;
}

/**
 * Applies an update to a copy of `original`. Returns the new document (with `_id` first) and
 * whether anything changed. Throws CommandError with mongod's codes on invalid updates.
 */
export function applyUpdate(
  original: Document,
  parsed: ParsedUpdate,
  options: ApplyOptions = {},
): { doc: Document; changed: boolean } {
  let next: Document;
  if (parsed.kind === 'replacement') {
    next = cloneValue(parsed.doc);
    if (Object.hasOwn(next, '_id')) {
      if (!options.isInsert && !valuesEqual(next._id, original._id)) {
        throw new CommandError(
          ErrorCode.ImmutableField,
          `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(next._id)}`,
        );
      }
    } else if (original._id !== undefined) {
      next = { _id: original._id, ...next };
    }
  } else if (parsed.kind === 'pipeline') {
    const [result] = runPipeline([original], parsed.stages, { variables: options.variables });
    next = result ?? {};
    if (!Object.hasOwn(next, '_id') && original._id !== undefined) next = { _id: original._id, ...next };
    else if (!options.isInsert && !valuesEqual(next._id, original._id)) {
      throw new CommandError(
        ErrorCode.ImmutableField,
        `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(next._id)}`,
      );
    }
  } else {
    // A copy of the top level: enough when only top-level fields are replaced (applyTopLevel);
    // mingo changes nested values in place, so it gets a deep copy.
    next = { ...original };
    let ops = fixAddToSet(next, prepareOperators(next, parsed.ops, options.isInsert === true));
    validateOperators(next, ops);
    ops = computeNumericOperators(next, ops);
    const changed = applyTopLevel(next, ops);
    if (changed !== undefined) return { doc: idFirst(next), changed };
    next = cloneValue(next);
    if (Object.keys(ops).length > 0) {
      try {
        const condition = hasPositional(ops) && options.query ? options.query : {};
        mingoUpdate(next, ops, options.arrayFilters ?? [], condition, {
          cloneMode: 'deep',
          queryOptions: mingoOptions(),
        });
      } catch (err) {
        const e = toCommandError(err);
        if (
          /array field for '\.\$'/.test(e.message) ||
          /positional operator found no match/.test(e.message)
        ) {
          throw badValue('The positional operator did not find the match needed from the query.');
        }
        throw e;
      }
    }
  }
  next = idFirst(next);
  return { doc: next, changed: exactKey(next) !== exactKey(original) };
}

/** Equality fields of a query copied into the document an upsert inserts. */
function extractEqualities(query: Document, out: Document): void {
  for (const [key, value] of Object.entries(query)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const sub of value) if (isPlainObject(sub)) extractEqualities(sub, out);
      continue;
    }
    if (key.startsWith('$')) continue;
    if (value instanceof RegExp) continue;
    if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      if (Object.hasOwn(value, '$eq')) setPath(out, key, cloneValue(value.$eq));
      else if (Array.isArray(value.$in) && value.$in.length === 1 && Object.keys(value).length === 1) {
        setPath(out, key, cloneValue(value.$in[0]));
      }
      continue;
    }
    setPath(out, key, cloneValue(value));
  }
}

/** Builds the document an upsert inserts when nothing matched. */
export function buildUpsertDocument(
  query: Document,
  parsed: ParsedUpdate,
  options: Pick<ApplyOptions, 'arrayFilters' | 'variables'> = {},
): Document {
  const seed: Document = {};
  extractEqualities(query, seed);
  let doc: Document;
  if (parsed.kind === 'replacement') {
    doc = cloneValue(parsed.doc);
    if (!Object.hasOwn(doc, '_id') && seed._id !== undefined) doc = { _id: seed._id, ...doc };
  } else {
    doc = applyUpdate(seed, parsed, { ...options, isInsert: true }).doc;
  }
  if (doc._id === undefined) doc = { _id: new ObjectId(), ...doc };
  return idFirst(doc);
}

/** Validation mongod applies to every stored document. */
export function validateStoredDocument(doc: Document): void {
  if (Array.isArray(doc._id)) throw badValue("can't use an array for _id");
  if (doc._id instanceof RegExp) throw badValue("can't use a regex for _id");
  if (isPlainObject(doc._id)) {
    for (const key of Object.keys(doc._id)) {
      if (key.startsWith('$'))
        throw badValue(`_id fields may not contain '$'-prefixed fields: ${key} is not valid for storage.`);
    }
  }
}
