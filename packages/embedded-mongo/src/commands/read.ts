// Read commands: find, getMore, killCursors, count, distinct, aggregate, explain.
import { ObjectId } from 'bson';
import { type Collation, collationKeyer } from '../collation.js';
import { CommandError, ErrorCode, failedToParse } from '../errors.js';
import { evaluateLet } from '../let.js';
import { mergeInto, parseMerge } from '../merge.js';
import { explainQuery, type QueryRequest, runQuery } from '../plan-executor.js';
import { compileProjection, runPipeline } from '../query.js';
import { readFields } from '../read-fields.js';
import { Collection, type Engine, viewNotCollection } from '../storage.js';
import { textFilterOf } from '../text-query.js';
import {
  pipelineUsesTextScore,
  projectsTextScore,
  TEXT_SCORE_FIELD,
  textScoreUnavailable,
  withoutTextScoreField,
  withTextScoreField,
} from '../text-score.js';
import { validateWrite } from '../validation.js';
import { compareValues, type Document, isPlainObject, keyString, MISSING, pathValues } from '../values.js';
import { collectionDocuments, readableCollection } from '../views.js';
import {
  type CommandContext,
  type CommandHandler,
  checkDeadline,
  collectionArg,
  cursorBatchSize,
  cursorReply,
  letVariables,
  nonNegative,
  operationCollation,
  optionalBoolean,
  optionalDocument,
  optionalInteger,
  requiredArray,
} from './context.js';
import { SERVER_VERSION } from './handshake.js';
import { statsStageInput } from './stats.js';

const find: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const filter = optionalDocument(cmd, 'filter') ?? {};
  const sort = optionalDocument(cmd, 'sort');
  const projection = optionalDocument(cmd, 'projection');
  const variables = letVariables(cmd);
  const skip = nonNegative(cmd, 'skip', optionalInteger(cmd, 'skip')) ?? 0;
  let limit = optionalInteger(cmd, 'limit') ?? 0;
  let singleBatch = optionalBoolean(cmd, 'singleBatch') ?? false;
  if (limit < 0) {
    limit = -limit;
    singleBatch = true;
  }
  const batchSize = nonNegative(cmd, 'batchSize', optionalInteger(cmd, 'batchSize'));
  const coll = readableCollection(ctx.engine, ctx.dbName, name);
  const collation = operationCollation(cmd, coll);
  // The projection's positional `$` and `$elemMatch` match under the collation too.
  const extras = { ...(variables && { variables }), ...(collation && { collation }) };
  // A $text query's scores, by document, for a projection of {$meta: "textScore"}.
  const scores =
    textFilterOf(filter) && projectsTextScore(projection) ? new Map<Document, number>() : undefined;
  const transform = compileProjection(projection, filter, extras, scores && ((doc) => scores.get(doc)));
  checkHint(coll, cmd.hint);
  const fields = readFields(filter, { sort, projection });
  const request: QueryRequest = { filter, fields, sort, skip, limit, hint: cmd.hint, extras, collation };
  const result = runQuery(coll, request);
  if (scores) for (const m of result.matches) scores.set(m.doc, m.score ?? 0);
  ctx.profile?.plan(result, request);
  const docs = result.matches.map((m) => m.doc);
  checkDeadline(ctx);
  const batch = ctx.engine.cursors.open(`${ctx.dbName}.${name}`, docs, {
    batchSize,
    singleBatch,
    transform,
    noCursorTimeout: optionalBoolean(cmd, 'noCursorTimeout'),
  });
  return cursorReply(batch, 'firstBatch');
};

/** mongod rejects hints naming an index that does not exist. */
function checkHint(coll: Collection | undefined, hint: unknown): void {
  if (!coll || hint === undefined || hint === null) return;
  if (typeof hint === 'string' || (isPlainObject(hint) && !('$natural' in hint))) {
    if (!coll.findIndex(hint as string | Document)) {
      throw new CommandError(ErrorCode.BadValue, 'hint provided does not correspond to an existing index');
    }
  }
}

const getMore: CommandHandler = (cmd, ctx) => {
  const collection = cmd.collection;
  if (typeof collection !== 'string') {
    throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'getMore.collection' is the wrong type");
  }
  if (cmd.maxTimeMS !== undefined) {
    // Only tailable awaitData cursors take a getMore time limit, and the engine has none.
    throw new CommandError(
      ErrorCode.BadValue,
      'cannot set maxTimeMS on getMore command for a non-awaitData cursor',
    );
  }
  const batchSize = nonNegative(cmd, 'batchSize', optionalInteger(cmd, 'batchSize'));
  const batch = ctx.engine.cursors.getMore(cmd.getMore, `${ctx.dbName}.${collection}`, batchSize);
  return cursorReply(batch, 'nextBatch');
};

const killCursors: CommandHandler = (cmd, ctx) => {
  if (typeof cmd.killCursors !== 'string') {
    throw new CommandError(ErrorCode.InvalidNamespace, 'killCursors requires a collection name');
  }
  const ids = requiredArray(cmd, 'cursors');
  const cursorsKilled: unknown[] = [];
  const cursorsNotFound: unknown[] = [];
  for (const id of ids) {
    if (ctx.engine.cursors.kill(id)) cursorsKilled.push(id);
    else cursorsNotFound.push(id);
  }
  return { cursorsKilled, cursorsNotFound, cursorsAlive: [], cursorsUnknown: [] };
};

const count: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const query = optionalDocument(cmd, 'query') ?? {};
  const skip = nonNegative(cmd, 'skip', optionalInteger(cmd, 'skip')) ?? 0;
  const limit = Math.abs(optionalInteger(cmd, 'limit') ?? 0);
  const coll = readableCollection(ctx.engine, ctx.dbName, name);
  const collation = operationCollation(cmd, coll);
  checkHint(coll, cmd.hint);
  if (!coll) return { n: 0 };
  if (Object.keys(query).length === 0) {
    ctx.profile?.set({ planSummary: 'RECORD_STORE_FAST_COUNT' });
    const n = Math.max(0, coll.count - skip);
    return { n: limit > 0 ? Math.min(n, limit) : n };
  }
  const fields = readFields(query, { keep: [] });
  const request: QueryRequest = { filter: query, fields, skip, limit, hint: cmd.hint, collation };
  const result = runQuery(coll, request);
  ctx.profile?.plan(result, request);
  checkDeadline(ctx);
  return { n: result.matches.length };
};

const distinct: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const key = cmd.key;
  if (typeof key !== 'string') {
    throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'distinct.key' is missing or not a string");
  }
  const query = optionalDocument(cmd, 'query') ?? {};
  const coll = readableCollection(ctx.engine, ctx.dbName, name);
  const collation = operationCollation(cmd, coll);
  // Values equal under the collation are one value: the first found stands for them.
  const keyOf = collation ? collationKeyer(collation) : keyString;
  const seen = new Map<string, unknown>();
  const request: QueryRequest = { filter: query, fields: readFields(query, { keep: [key] }), collation };
  const result = runQuery(coll, request);
  ctx.profile?.plan(result, request);
  for (const { doc } of result.matches) {
    for (const v of pathValues(doc, key)) {
      if (v === MISSING) continue;
      const k = keyOf(v);
      if (!seen.has(k)) seen.set(k, v);
    }
  }
  checkDeadline(ctx);
  return { values: [...seen.values()].sort((a, b) => compareValues(a, b, collation?.compare)) };
};

/** Collection lookup for `$lookup` & co: copies, so pipeline stages cannot alter stored documents. */
function resolverFor(engine: Engine, dbName: string): (name: string) => Document[] {
  return (name) => collectionDocuments(engine, dbName, name);
}

/** `$out`: replace the target collection's contents (keeping its indexes) with the results. */
function writeOut(ctx: CommandContext, target: unknown, docs: Document[]): void {
  const { engine, dbName } = ctx;
  let outDb = dbName;
  let outColl: unknown = target;
  if (isPlainObject(target)) {
    outDb = typeof target.db === 'string' ? target.db : dbName;
    outColl = target.coll;
  }
  if (typeof outColl !== 'string') throw failedToParse('$out stage requires a collection name');
  const db = engine.db(outDb);
  const existing = db.collection(outColl);
  if (existing?.isView) throw viewNotCollection(existing.ns);
  const replacement = new Collection(engine.records, outDb, outColl, existing?.options ?? {});
  for (const spec of existing?.indexSpecs() ?? []) if (spec.name !== '_id_') replacement.createIndex(spec);
  for (const raw of docs) {
    const doc = raw._id === undefined ? { _id: new ObjectId(), ...raw } : raw;
    validateWrite(replacement, doc, undefined, ctx.bypassDocumentValidation);
    replacement.insert(doc);
  }
  if (!existing) db.ensureCollection(outColl);
  db.collections.set(outColl, replacement);
}

/**
 * The query a pipeline starts with, as mongod pushes it down: a leading `$match`, then `$sort`,
 * then `$limit`; `rest` is what the pipeline still has to run on its results.
 */
function pipelineQuery(
  pipeline: Document[],
  variables: Document | undefined,
  collation: Collation | undefined,
): { request: QueryRequest; rest: Document[] } {
  const request: QueryRequest = { filter: {}, extras: variables ? { variables } : {}, collation };
  let i = 0;
  if (isPlainObject(pipeline[0]?.$match)) request.filter = pipeline[i++]!.$match;
  const sort = pipeline[i]?.$sort;
  if (isPlainObject(sort) && Object.values(sort).every((d) => d === 1 || d === -1)) {
    request.sort = sort;
    i++;
    const limit = pipeline[i]?.$limit;
    if (typeof limit === 'number' && Number.isInteger(limit) && limit > 0) {
      request.limit = limit;
      i++;
    }
  }
  return { request, rest: pipeline.slice(i) };
}

/** explain of an aggregation: the pushed-down query's plan, then the stages left (as `$cursor`). */
function explainPipeline(
  coll: Collection | undefined,
  ns: string,
  pushed: { request: QueryRequest; rest: Document[] },
  verbosity: string,
): Document {
  const query = explainQuery(coll, ns, pushed.request, verbosity);
  return pushed.rest.length === 0 ? query : { stages: [{ $cursor: query }, ...pushed.rest] };
}

const aggregate: CommandHandler = (cmd, ctx) => {
  const target = cmd.aggregate;
  const pipeline = requiredArray(cmd, 'pipeline') as Document[];
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new CommandError(
        ErrorCode.TypeMismatch,
        "Each element of the 'pipeline' array must be an object",
      );
    }
  }
  const explain = optionalBoolean(cmd, 'explain') ?? false;
  if (!explain && cmd.cursor === undefined) {
    throw failedToParse("The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const batchSize = cursorBatchSize(cmd);
  const variables = letVariables(cmd);
  const finalStage = pipeline[pipeline.length - 1];
  const merge = finalStage && '$merge' in finalStage ? parseMerge(finalStage.$merge, ctx.dbName) : undefined;
  for (const stage of pipeline.slice(0, -1)) {
    for (const writer of ['$out', '$merge']) {
      if (writer in stage)
        throw new CommandError(40601, `${writer} can only be the final stage in the pipeline`);
    }
  }
  for (const stage of pipeline.slice(1)) {
    if (isPlainObject(stage.$match) && textFilterOf(stage.$match))
      throw new CommandError(17313, '$match with $text is only allowed as the first pipeline stage');
  }
  let input: Document[] = [];
  let stages = pipeline;
  /** Whether the stages read the score of the $text search (see text-score.ts). */
  let scored = false;
  let ns: string;
  let collation: Collation | undefined;
  if (typeof target === 'string') {
    const name = collectionArg(cmd, ctx);
    ns = `${ctx.dbName}.${name}`;
    const coll = readableCollection(ctx.engine, ctx.dbName, name);
    collation = operationCollation(cmd, coll);
    const stats = statsStageInput(stages[0], ctx.engine, ctx.dbName, name);
    if (stats) {
      input = stats;
      stages = stages.slice(1);
    } else {
      const pushed = pipelineQuery(stages, variables, collation);
      if (explain) return explainPipeline(coll, ns, pushed, 'queryPlanner');
      const result = runQuery(coll, pushed.request);
      ctx.profile?.plan(result, pushed.request);
      stages = pushed.rest;
      scored = pipelineUsesTextScore(stages);
      if (scored && !textFilterOf(pushed.request.filter)) throw textScoreUnavailable();
      input = scored
        ? result.matches.map((m) => ({ ...m.doc, [TEXT_SCORE_FIELD]: m.score }))
        : result.matches.map((m) => m.doc);
      if (scored) stages = withTextScoreField(stages);
    }
    checkDeadline(ctx);
  } else if (target === 1) {
    ns = `${ctx.dbName}.$cmd.aggregate`;
    collation = operationCollation(cmd, undefined);
    if (stages[0] && '$listLocalSessions' in stages[0]) {
      input = ctx.engine.sessions.list(stages[0].$listLocalSessions);
      stages = stages.slice(1);
    }
  } else {
    throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'aggregate' must be a collection name or 1");
  }
  if (explain) {
    return { queryPlanner: { namespace: ns, winningPlan: { stage: 'COLLSCAN' } }, stages: pipeline };
  }
  const last = stages[stages.length - 1];
  let outTarget: unknown;
  if (last && '$out' in last) {
    outTarget = last.$out;
    stages = stages.slice(0, -1);
  }
  if (merge) stages = stages.slice(0, -1);
  const run = runPipeline(input, stages, {
    collectionResolver: resolverFor(ctx.engine, ctx.dbName),
    ...(variables ? { variables } : {}),
    ...(collation && { collation }),
  });
  const results = scored ? withoutTextScoreField(run) : run;
  checkDeadline(ctx);
  if (outTarget !== undefined || merge) {
    if (merge) mergeInto(ctx, merge, results);
    else writeOut(ctx, outTarget, results);
    return cursorReply(ctx.engine.cursors.open(ns, [], {}), 'firstBatch');
  }
  return cursorReply(ctx.engine.cursors.open(ns, results, { batchSize }), 'firstBatch');
};

const explain: CommandHandler = (cmd, ctx) => {
  const inner = optionalDocument(cmd, 'explain');
  if (!inner) throw failedToParse('explain requires a command document');
  const innerName = Object.keys(inner)[0] ?? '';
  const collection = typeof inner[innerName] === 'string' ? String(inner[innerName]) : '$cmd';
  const ns = `${ctx.dbName}.${collection}`;
  const coll = ctx.engine.collection(ctx.dbName, collection);
  const verbosity = typeof cmd.verbosity === 'string' ? cmd.verbosity : 'allPlansExecution';
  const collation = operationCollation(inner, coll);
  let plan: Document;
  if (innerName === 'aggregate' && Array.isArray(inner.pipeline)) {
    const variables = evaluateLet(isPlainObject(inner.let) ? inner.let : undefined);
    const pushed = pipelineQuery(inner.pipeline as Document[], variables, collation);
    plan = explainPipeline(coll, ns, pushed, verbosity);
  } else {
    const limit = typeof inner.limit === 'number' ? Math.abs(inner.limit) : 0;
    const skip = typeof inner.skip === 'number' ? inner.skip : 0;
    const filter = (innerName === 'find' ? inner.filter : inner.query) ?? {};
    const sort = innerName === 'find' ? inner.sort : undefined;
    plan = explainQuery(coll, ns, { filter, sort, skip, limit, hint: inner.hint, collation }, verbosity);
  }
  return { ...plan, command: inner, serverInfo: { host: 'embedded', version: SERVER_VERSION } };
};

export const readCommands: Record<string, CommandHandler> = {
  find,
  getMore,
  killCursors,
  count,
  distinct,
  aggregate,
  explain,
};
