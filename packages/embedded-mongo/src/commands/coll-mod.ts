// collMod: changes a collection's validation settings (validation.ts), one of its indexes
// (`hidden`, `expireAfterSeconds`, `prepareUnique`, then `unique: true`, which converts it once no
// duplicates remain, else CannotConvertIndexToUnique (359) with the `violations`), or a view's
// `viewOn` and `pipeline` (views.ts). The changes are made in place and the collection's
// catalogVersion bumped, so a durable store saves them with the command.
import { CommandError, ErrorCode, namespaceNotFound } from '../errors.js';
import { ID_INDEX_NAME, type Index } from '../indexes.js';
import { forgetPlans } from '../plan-cache.js';
import type { Collection } from '../storage.js';
import { applyValidationOptions, validationOptions } from '../validation.js';
import { type Document, isPlainObject, keyString } from '../values.js';
import { checkViewChain, viewDefinition } from '../views.js';
import { type CommandHandler, collectionArg, toNumber } from './context.js';
import { GENERIC_ARGUMENTS } from './fields.js';

const VALIDATION_FIELDS = ['validator', 'validationLevel', 'validationAction'];
const VIEW_FIELDS = ['viewOn', 'pipeline'];
/** collMod options of features the engine does not offer (README). */
const NOT_OFFERED = [
  'changeStreamPreAndPostImages',
  'expireAfterSeconds',
  'timeseries',
  'cappedSize',
  'cappedMax',
];
const INDEX_FIELDS = [
  'keyPattern',
  'name',
  'hidden',
  'expireAfterSeconds',
  'prepareUnique',
  'unique',
  'forceNonUnique',
];

function invalidOptions(message: string): CommandError {
  return new CommandError(ErrorCode.InvalidOptions, message);
}

const collMod: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  for (const field of Object.keys(cmd)) {
    if (field === 'collMod' || GENERIC_ARGUMENTS.has(field) || field === 'index' || field === 'dryRun')
      continue;
    if (NOT_OFFERED.includes(field)) {
      throw new CommandError(
        ErrorCode.NotImplemented,
        `collMod's ${field} is not supported by the embedded engine`,
      );
    }
    if (!VALIDATION_FIELDS.includes(field) && !VIEW_FIELDS.includes(field)) {
      throw new CommandError(ErrorCode.Location40415, `BSON field 'collMod.${field}' is an unknown field.`);
    }
  }
  const coll = ctx.engine.collection(ctx.dbName, name);
  if (!coll) throw namespaceNotFound(`ns does not exist: ${ctx.dbName}.${name}`);
  const changesView = VIEW_FIELDS.some((field) => cmd[field] !== undefined);
  const changesValidation = VALIDATION_FIELDS.some((field) => cmd[field] !== undefined);
  if (coll.isView) {
    if (changesValidation || cmd.index !== undefined) {
      throw invalidOptions(`option not supported on a view: ${changesValidation ? 'validator' : 'index'}`);
    }
    if (changesView) {
      if (cmd.viewOn === undefined || cmd.pipeline === undefined) {
        throw invalidOptions("must specify both 'viewOn' and 'pipeline' when modifying a view");
      }
      const definition = viewDefinition(cmd, 'collMod');
      checkViewChain(ctx.engine, ctx.dbName, name, definition.viewOn as string);
      Object.assign(coll.options, definition);
      coll.catalogVersion++;
    }
    return {};
  }
  if (changesView)
    throw invalidOptions(
      `option not supported on a collection: ${cmd.viewOn !== undefined ? 'viewOn' : 'pipeline'}`,
    );
  const reply: Document = {};
  if (cmd.index !== undefined) Object.assign(reply, modifyIndex(coll, cmd.index));
  if (changesValidation) {
    applyValidationOptions(coll.options, validationOptions(cmd, 'collMod'));
    coll.catalogVersion++;
  }
  return reply;
};

function findIndex(coll: Collection, spec: Document): Index {
  const { keyPattern, name } = spec;
  if ((keyPattern === undefined) === (name === undefined)) {
    throw invalidOptions('Must specify either index name or key pattern.');
  }
  const index =
    typeof name === 'string'
      ? coll.indexes.get(name)
      : isPlainObject(keyPattern)
        ? coll.findIndex(keyPattern)
        : undefined;
  if (!index) {
    const which = name !== undefined ? `name ${String(name)}` : `key pattern ${keyString(keyPattern)}`;
    throw new CommandError(ErrorCode.IndexNotFound, `cannot find index ${which} for ns ${coll.ns}`);
  }
  return index;
}

/** collMod's `index`: the changes it asks of one index, answered as mongod's `<option>_old/_new`. */
function modifyIndex(coll: Collection, raw: unknown): Document {
  if (!isPlainObject(raw))
    throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'collMod.index' must be an object");
  for (const field of Object.keys(raw)) {
    if (!INDEX_FIELDS.includes(field)) {
      throw new CommandError(
        ErrorCode.Location40415,
        `BSON field 'collMod.index.${field}' is an unknown field.`,
      );
    }
  }
  const { hidden, expireAfterSeconds, prepareUnique, unique } = raw;
  if ([hidden, expireAfterSeconds, prepareUnique, unique].every((v) => v === undefined)) {
    throw invalidOptions('no expireAfterSeconds, hidden, prepareUnique or unique field');
  }
  if (raw.forceNonUnique !== undefined) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      "collMod's forceNonUnique is not supported by the embedded engine",
    );
  }
  const index = findIndex(coll, raw);
  const spec = index.spec;
  const reply: Document = {};
  if (hidden !== undefined) {
    if (index.name === ID_INDEX_NAME) throw new CommandError(ErrorCode.BadValue, "can't hide _id index");
    const old = spec.hidden === true;
    if (old !== (hidden === true)) {
      if (hidden === true) spec.hidden = true;
      else delete spec.hidden;
      Object.assign(reply, { hidden_old: old, hidden_new: hidden === true });
    }
  }
  if (expireAfterSeconds !== undefined) {
    const seconds = toNumber(expireAfterSeconds);
    if (seconds === undefined || seconds < 0 || !Number.isInteger(seconds)) {
      throw invalidOptions('TTL index expireAfterSeconds must be a non-negative integer');
    }
    if (index.fields.length !== 1)
      throw invalidOptions('TTL indexes are single-field indexes, compound indexes do not support TTL');
    if (spec.expireAfterSeconds !== seconds) {
      if (spec.expireAfterSeconds !== undefined) reply.expireAfterSeconds_old = spec.expireAfterSeconds;
      reply.expireAfterSeconds_new = seconds;
      spec.expireAfterSeconds = seconds;
    }
  }
  if (prepareUnique !== undefined) {
    const old = spec.prepareUnique === true;
    if (old !== (prepareUnique === true) && !index.unique) {
      if (prepareUnique === true) spec.prepareUnique = true;
      else delete spec.prepareUnique;
      Object.assign(reply, { prepareUnique_old: old, prepareUnique_new: prepareUnique === true });
    }
  }
  if (unique !== undefined) {
    if (unique !== true)
      throw new CommandError(ErrorCode.BadValue, "'Unique: false' option is not supported");
    if (!index.unique) {
      if (spec.prepareUnique !== true) {
        throw invalidOptions(
          "Cannot make index unique with 'unique: true' unless 'prepareUnique' is set to true",
        );
      }
      const violations = duplicateKeyGroups(coll, index);
      if (violations.length > 0) {
        throw new CommandError(
          ErrorCode.CannotConvertIndexToUnique,
          'Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.',
          { violations },
        );
      }
      const { prepareUnique: _done, ...rest } = spec;
      coll.redefineIndex(index.name, { ...rest, unique: true });
      reply.unique_new = true;
    }
  }
  coll.catalogVersion++;
  forgetPlans(coll);
  return reply;
}

/** The `_id`s of the documents sharing a key of `index`, by key: mongod's `violations`. */
function duplicateKeyGroups(coll: Collection, index: Index): Document[] {
  const byKey = new Map<string, unknown[]>();
  for (const doc of coll.docs.values()) {
    for (const key of index.keysFor(doc)) {
      const ids = byKey.get(key.key);
      if (ids) ids.push(doc._id);
      else byKey.set(key.key, [doc._id]);
    }
  }
  return [...byKey.values()].filter((ids) => ids.length > 1).map((ids) => ({ ids }));
}

export const collModCommands: Record<string, CommandHandler> = { collMod };
