// Document validation: a collection's `validator` (query operators and `$jsonSchema`), with its
// `validationLevel` (off, strict, moderate: an update of a document that already failed is let
// through) and `validationAction` (error, or warn: accepted). Set by `create` and `collMod`, kept in
// the collection's options as mongod lists them, and checked on every insert, update, upsert,
// findAndModify, bulkWrite op and `$merge` write unless the command says
// `bypassDocumentValidation: true`. A rejected document fails with DocumentValidationFailure (121)
// and mongod's `errInfo: { failingDocumentId, details }`, explaining which rules it broke.
import { CommandError, ErrorCode } from './errors.js';
import { compileFilter, type Matcher } from './filter.js';
import { checkJsonSchema, schemaRulesNotSatisfied } from './json-schema.js';
import type { Collection } from './storage.js';
import { type Document, isPlainObject, MISSING, pathValues, typeName } from './values.js';

const LEVELS = ['off', 'strict', 'moderate'];
const ACTIONS = ['error', 'warn'];
/** Operators mongod refuses inside a validator. */
const FORBIDDEN_OPERATORS = ['$where', '$near', '$nearSphere', '$text', '$geoNear'];

/**
 * The validation options of a `create` or `collMod` command, checked as mongod checks them; with a
 * validator, the level and action default to strict and error, as mongod then lists them.
 */
export function validationOptions(cmd: Document, command: 'create' | 'collMod'): Document {
  const options: Document = {};
  if (cmd.validator !== undefined) {
    if (!isPlainObject(cmd.validator)) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        `BSON field '${command}.validator' is the wrong type '${typeName(cmd.validator)}', expected type 'object'`,
      );
    }
    compileValidator(cmd.validator);
    options.validator = cmd.validator;
  }
  for (const [field, allowed] of [
    ['validationLevel', LEVELS],
    ['validationAction', ACTIONS],
  ] as const) {
    const value = cmd[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !allowed.includes(value)) {
      throw new CommandError(
        ErrorCode.BadValue,
        `Enumeration value '${String(value)}' for field '${command}.${field}' is not a valid value.`,
      );
    }
    options[field] = value;
  }
  return options;
}

/** Applies validation options to a collection's options, filling in the defaults mongod lists. */
export function applyValidationOptions(target: Document, options: Document): void {
  Object.assign(target, options);
  if (target.validator !== undefined && Object.keys(target.validator as Document).length > 0) {
    target.validationLevel ??= 'strict';
    target.validationAction ??= 'error';
  }
}

function compileValidator(validator: Document): Matcher {
  const text = JSON.stringify(validator);
  for (const operator of FORBIDDEN_OPERATORS) {
    if (text.includes(`"${operator}"`)) {
      throw new CommandError(ErrorCode.InvalidOptions, `${operator} is not allowed in collection validators`);
    }
  }
  if (isPlainObject(validator.$jsonSchema)) checkJsonSchema(validator.$jsonSchema);
  return compileFilter(validator);
}

/** Each collection's validator, compiled once per validator document. */
const compiled = new WeakMap<Collection, { validator: Document; matcher: Matcher }>();

function validatorOf(coll: Collection): Matcher | undefined {
  const validator = coll.options.validator;
  if (!isPlainObject(validator) || Object.keys(validator).length === 0) return undefined;
  const cached = compiled.get(coll);
  if (cached?.validator === validator) return cached.matcher;
  const matcher = compileValidator(validator);
  compiled.set(coll, { validator, matcher });
  return matcher;
}

/**
 * Checks a document about to be written to `coll` against its validator; `previous` is the
 * document an update replaces (moderate lets an already invalid one through).
 */
export function validateWrite(
  coll: Collection,
  doc: Document,
  previous: Document | undefined,
  bypass: boolean | undefined,
): void {
  if (bypass) return;
  const level = coll.options.validationLevel ?? 'strict';
  if (level === 'off') return;
  const matcher = validatorOf(coll);
  if (!matcher || matcher.test(doc)) return;
  if (level === 'moderate' && previous && !matcher.test(previous)) return;
  // validationAction 'warn': mongod only logs the failure; the engine keeps no such log.
  if (coll.options.validationAction === 'warn') return;
  throw new CommandError(ErrorCode.DocumentValidationFailure, 'Document failed validation', {
    errInfo: { failingDocumentId: doc._id, details: explainFilter(coll.options.validator as Document, doc) },
  });
}

/** A filter as mongod splits it: each top-level operator, and each field's each operator, a clause. */
function clausesOf(filter: Document): Document[] {
  return Object.entries(filter).flatMap(([key, value]) => {
    const operators =
      !key.startsWith('$') && isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'));
    return operators
      ? Object.entries(value as Document).map(([op, arg]) => ({ [key]: { [op]: arg } }))
      : [{ [key]: value }];
  });
}

/** mongod's `errInfo.details` for a document `filter` does not match. */
export function explainFilter(filter: Document, doc: Document): Document {
  const clauses = clausesOf(filter);
  if (clauses.length === 1) return explainClause(clauses[0]!, doc);
  return { operatorName: '$and', clausesNotSatisfied: failingClauses(clauses, doc) };
}

function failingClauses(clauses: Document[], doc: Document): Document[] {
  return clauses.flatMap((clause, index) =>
    compileFilter(clause).test(doc) ? [] : [{ index, details: explainFilter(clause, doc) }],
  );
}

function explainClause(clause: Document, doc: Document): Document {
  const [key, arg] = Object.entries(clause)[0]!;
  switch (key) {
    case '$jsonSchema':
      return {
        operatorName: '$jsonSchema',
        schemaRulesNotSatisfied: schemaRulesNotSatisfied(arg as Document, doc),
      };
    case '$and':
      return { operatorName: '$and', clausesNotSatisfied: failingClauses(arg as Document[], doc) };
    case '$or':
      return {
        operatorName: '$or',
        clausesNotSatisfied: (arg as Document[]).map((sub, index) => ({
          index,
          details: explainFilter(sub, doc),
        })),
      };
    case '$nor':
      return {
        operatorName: '$nor',
        clausesNotSatisfied: (arg as Document[]).flatMap((sub, index) =>
          compileFilter(sub).test(doc)
            ? [
                {
                  index,
                  details: { operatorName: '$nor', specifiedAs: sub, reason: 'child expression matched' },
                },
              ]
            : [],
        ),
      };
    case '$expr':
      return {
        operatorName: '$expr',
        specifiedAs: clause,
        reason: 'expression did not match',
        expressionResult: false,
      };
  }
  if (key.startsWith('$')) return { operatorName: key, specifiedAs: clause };
  const operator = isPlainObject(arg) && Object.keys(arg)[0]?.startsWith('$') ? Object.keys(arg)[0]! : '$eq';
  const present = pathValues(doc, key).filter((v) => v !== MISSING);
  const base = { operatorName: operator, specifiedAs: clause };
  if (present.length === 0) return { ...base, reason: 'field was missing' };
  const considered = present.length === 1 ? { consideredValue: present[0] } : { consideredValues: present };
  switch (operator) {
    case '$type':
      return { ...base, reason: 'type did not match', ...considered, consideredType: typeName(present[0]) };
    case '$exists':
      return { ...base, reason: 'path had value', ...considered };
    case '$in':
      return { ...base, reason: 'no matching value found in array', ...considered };
    case '$nin':
      return { ...base, reason: 'matching value found in array', ...considered };
    case '$regex':
      return { ...base, reason: 'regular expression did not match', ...considered };
    default:
      return { ...base, reason: 'comparison failed', ...considered };
  }
}
