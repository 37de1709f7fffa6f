// The `$merge` stage: writes an aggregation's results into a collection (of the same database or
// another; the source itself too, since the results are computed before anything is written).
// Each result is matched with the target's document of equal `on` fields (`_id` by default; other
// fields need a unique index on exactly them, mongod's 51183 otherwise), then `whenMatched`
// (replace, keepExisting, merge, fail, or an update pipeline reading `$$new` and `let`) or
// `whenNotMatched` (insert, discard, fail) decides. Writes go through the validators and unique
// indexes as inserts and updates do: a duplicate key fails the command with 11000, and what was
// written before a failure stays, as on mongod. The aggregate then answers an empty cursor.
import { ObjectId } from 'bson';
import { evalExpr } from 'mingo/core';
import type { CommandContext } from './commands/context.js';
import { insertDocument, replaceDocument } from './commands/write.js';
import { CommandError, ErrorCode, failedToParse, toCommandError } from './errors.js';
import { mingoOptions } from './mingo.js';
import { runQuery } from './plan-executor.js';
import { applyUpdate, parseUpdate } from './update.js';
import {
  type Document,
  formatValue,
  idFirst,
  isPlainObject,
  keyString,
  MISSING,
  pathValues,
  typeName,
} from './values.js';

const WHEN_MATCHED = ['replace', 'keepExisting', 'merge', 'fail'];
const WHEN_NOT_MATCHED = ['insert', 'discard', 'fail'];

export interface MergeSpec {
  db: string;
  coll: string;
  on: string[];
  whenMatched: string | Document[];
  whenNotMatched: string;
  let: Document | undefined;
}

function enumeration(field: string, value: unknown, allowed: string[]): string {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new CommandError(
      ErrorCode.BadValue,
      `Enumeration value '${formatValue(value)}' for field '${field}' is not a valid value.`,
    );
  }
  return value;
}

/** The `$merge` stage's specification, checked as mongod parses it (before the pipeline runs). */
export function parseMerge(raw: unknown, dbName: string): MergeSpec {
  const spec: Document = typeof raw === 'string' ? { into: raw } : isPlainObject(raw) ? raw : {};
  if (typeof raw !== 'string' && !isPlainObject(raw)) {
    throw new CommandError(51182, `$merge only supports a string or object argument, not ${typeName(raw)}`);
  }
  for (const field of Object.keys(spec)) {
    if (!['into', 'on', 'let', 'whenMatched', 'whenNotMatched'].includes(field)) {
      throw new CommandError(ErrorCode.Location40415, `BSON field '$merge.${field}' is an unknown field.`);
    }
  }
  const into = spec.into;
  let db = dbName;
  let coll: unknown = into;
  if (isPlainObject(into)) {
    db = typeof into.db === 'string' ? into.db : dbName;
    coll = into.coll;
  }
  if (into === undefined) {
    throw new CommandError(
      ErrorCode.Location40414,
      "BSON field '$merge.into' is missing but a required field",
    );
  }
  if (typeof coll !== 'string' || coll.length === 0) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `Invalid $merge target collection: ${formatValue(into)}`,
    );
  }
  const onRaw = spec.on ?? '_id';
  const on = typeof onRaw === 'string' ? [onRaw] : onRaw;
  if (!Array.isArray(on) || on.some((f) => typeof f !== 'string')) {
    throw new CommandError(51186, "$merge 'on' field must be either a string or an array of strings");
  }
  if (on.length === 0)
    throw new CommandError(51187, "If explicitly specifying $merge 'on', must include at least one field");
  if (new Set(on).size !== on.length) throw new CommandError(31465, "Found a duplicate field in $merge 'on'");
  const whenMatched = Array.isArray(spec.whenMatched)
    ? (spec.whenMatched as Document[])
    : enumeration('whenMatched', spec.whenMatched ?? 'merge', WHEN_MATCHED);
  const whenNotMatched = enumeration('whenNotMatched', spec.whenNotMatched ?? 'insert', WHEN_NOT_MATCHED);
  if (spec.let !== undefined && !Array.isArray(whenMatched)) {
    throw new CommandError(51199, `Cannot use 'let' variables with 'whenMatched: ${whenMatched}' mode`);
  }
  if (spec.let !== undefined && !isPlainObject(spec.let)) {
    throw failedToParse("$merge 'let' must be an object");
  }
  if (Array.isArray(whenMatched)) parseUpdate(whenMatched); // refuses stages an update pipeline cannot have
  return { db, coll, on: on as string[], whenMatched, whenNotMatched, let: spec.let as Document | undefined };
}

/** The values of the `on` fields of a result: each present, single, not null (mongod's 51132/51185). */
function onValues(doc: Document, on: string[]): unknown[] {
  return on.map((field) => {
    const values = pathValues(doc, field);
    const value = values.length === 1 ? values[0] : MISSING;
    if (Array.isArray(value) || values.length > 1) {
      throw new CommandError(51185, `$merge write error: 'on' field '${field}' is an array`);
    }
    if (value === MISSING || value === null || value === undefined) {
      throw new CommandError(
        51132,
        "$merge write error: 'on' field cannot be missing, null, undefined or an array",
      );
    }
    return value;
  });
}

/** Writes `results` into the target of `spec` (the `$merge` stage's effect). */
export function mergeInto(ctx: CommandContext, spec: MergeSpec, results: Document[]): void {
  const { collection: target } = ctx.engine.db(spec.db).ensureCollection(spec.coll);
  const byId = spec.on.length === 1 && spec.on[0] === '_id';
  if (!byId) requireUniqueIndex(target.indexSpecs(), spec.on);
  for (const raw of results) {
    const result = raw._id === undefined && byId ? { _id: new ObjectId(), ...raw } : raw;
    const values = onValues(result, spec.on);
    const filter = Object.fromEntries(spec.on.map((field, i) => [field, { $eq: values[i] }]));
    const match = runQuery(target, { filter, limit: 1 }).matches[0];
    if (!match) {
      if (spec.whenNotMatched === 'discard') continue;
      if (spec.whenNotMatched === 'fail') {
        throw new CommandError(
          13113,
          '$merge could not find a matching document in the target collection for at least one document in the source collection',
        );
      }
      insertDocument(
        ctx,
        target,
        idFirst(result._id === undefined ? { _id: new ObjectId(), ...result } : result),
      );
      continue;
    }
    const existing = match.doc;
    let next: Document;
    if (Array.isArray(spec.whenMatched)) {
      next = applyUpdate(
        existing,
        { kind: 'pipeline', stages: spec.whenMatched },
        {
          variables: mergeVariables(spec.let, result),
        },
      ).doc;
    } else if (spec.whenMatched === 'keepExisting') {
      continue;
    } else if (spec.whenMatched === 'fail') {
      insertDocument(ctx, target, result); // fails on the matched document's unique key: E11000
      continue;
    } else {
      if (result._id !== undefined && keyString(result._id) !== keyString(existing._id)) {
        throw new CommandError(
          ErrorCode.ImmutableField,
          "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'",
        );
      }
      next = spec.whenMatched === 'replace' ? { ...result, _id: existing._id } : { ...existing, ...result };
      next = idFirst(next);
    }
    replaceDocument(ctx, target, match, next);
  }
}

/** `$$new` (the result) by default, else the stage's `let`, evaluated against the result. */
function mergeVariables(letSpec: Document | undefined, result: Document): Document {
  if (letSpec === undefined) return { new: result };
  try {
    const options = mingoOptions();
    return Object.fromEntries(
      Object.entries(letSpec).map(([name, expr]) => [name, evalExpr(result, expr, options)]),
    );
  } catch (err) {
    throw toCommandError(err);
  }
}

/** `on` fields other than `_id` must be exactly the keys of a unique index (mongod's 51183). */
function requireUniqueIndex(specs: Document[], on: string[]): void {
  const wanted = [...on].sort().join('\0');
  const found = specs.some(
    (spec) =>
      spec.unique === true &&
      spec.partialFilterExpression === undefined &&
      Object.keys(spec.key as Document)
        .sort()
        .join('\0') === wanted,
  );
  if (!found) {
    throw new CommandError(51183, 'Cannot find index to verify that join fields will be unique');
  }
}
