// Read commands: find, getMore, killCursors, count, distinct, aggregate, explain.
import { ObjectId } from 'bson';
import { CommandError, ErrorCode, failedToParse } from '../errors.js';
import { compileFilter } from '../filter.js';
import { compileProjection, matchDocuments, parseSort, runPipeline, sortMatches } from '../query.js';
import { Collection, type Engine } from '../storage.js';
import {
  cloneValue,
  compareValues,
  type Document,
  isPlainObject,
  keyString,
  MISSING,
  pathValues,
} from '../values.js';
import {
  type CommandHandler,
  checkDeadline,
  collectionArg,
  cursorBatchSize,
  cursorReply,
  nonNegative,
  optionalBoolean,
  optionalDocument,
  optionalInteger,
  requiredArray,
} from './context.js';
import { statsStageInput } from './stats.js';

const find: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const filter = optionalDocument(cmd, 'filter') ?? {};
  const sort = optionalDocument(cmd, 'sort');
  const projection = optionalDocument(cmd, 'projection');
  const variables = optionalDocument(cmd, 'let');
  const skip = nonNegative(cmd, 'skip', optionalInteger(cmd, 'skip')) ?? 0;
  let limit = optionalInteger(cmd, 'limit') ?? 0;
  let singleBatch = optionalBoolean(cmd, 'singleBatch') ?? false;
  if (limit < 0) {
    limit = -limit;
    singleBatch = true;
  }
  const batchSize = nonNegative(cmd, 'batchSize', optionalInteger(cmd, 'batchSize'));
  const parsedSort = parseSort(sort);
  const extras = variables ? { variables } : {};
  const transform = compileProjection(projection, filter, extras);
  const coll = ctx.engine.collection(ctx.dbName, name);
  checkHint(coll, cmd.hint);
  const stopAfter = !parsedSort && limit > 0 ? skip + limit : undefined;
  const matches = sortMatches(matchDocuments(coll, filter, { limit: stopAfter, extras }), sort);
  checkDeadline(ctx);
  const docs = matches.slice(skip, limit > 0 ? skip + limit : undefined).map((m) => m.doc);
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
  const coll = ctx.engine.collection(ctx.dbName, name);
  checkHint(coll, cmd.hint);
  if (!coll) return { n: 0 };
  let n: number;
  if (Object.keys(query).length === 0) n = coll.count;
  else n = matchDocuments(coll, query, { limit: limit > 0 ? skip + limit : undefined }).length;
  checkDeadline(ctx);
  n = Math.max(0, n - skip);
  if (limit > 0) n = Math.min(n, limit);
  return { n };
};

const distinct: CommandHandler = (cmd, ctx) => {
  const name = collectionArg(cmd, ctx);
  const key = cmd.key;
  if (typeof key !== 'string') {
    throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'distinct.key' is missing or not a string");
  }
  const query = optionalDocument(cmd, 'query') ?? {};
  const coll = ctx.engine.collection(ctx.dbName, name);
  const seen = new Map<string, unknown>();
  for (const { doc } of matchDocuments(coll, query)) {
    for (const v of pathValues(doc, key)) {
      if (v === MISSING) continue;
      const k = keyString(v);
      if (!seen.has(k)) seen.set(k, v);
    }
  }
  checkDeadline(ctx);
  return { values: [...seen.values()].sort(compareValues) };
};

/** Collection lookup for `$lookup` & co: copies, so pipeline stages cannot alter stored documents. */
function resolverFor(engine: Engine, dbName: string): (name: string) => Document[] {
  return (name) => {
    const coll = engine.collection(dbName, name);
    return coll ? [...coll.docs.values()].map((d) => cloneValue(d)) : [];
  };
}

/** `$out`: replace the target collection's contents (keeping its indexes) with the results. */
function writeOut(engine: Engine, dbName: string, target: unknown, docs: Document[]): void {
  let outDb = dbName;
  let outColl: unknown = target;
  if (isPlainObject(target)) {
    outDb = typeof target.db === 'string' ? target.db : dbName;
    outColl = target.coll;
  }
  if (typeof outColl !== 'string') throw failedToParse('$out stage requires a collection name');
  const db = engine.db(outDb);
  const existing = db.collection(outColl);
  const replacement = new Collection(outDb, outColl, existing?.options ?? {});
  for (const spec of existing?.indexSpecs() ?? []) if (spec.name !== '_id_') replacement.createIndex(spec);
  for (const raw of docs) {
    const doc = raw._id === undefined ? { _id: new ObjectId(), ...raw } : raw;
    replacement.insert(doc);
  }
  if (!existing) db.ensureCollection(outColl);
  db.collections.set(outColl, replacement);
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
  const variables = optionalDocument(cmd, 'let');
  let input: Document[] = [];
  let stages = pipeline;
  let ns: string;
  if (typeof target === 'string') {
    const name = collectionArg(cmd, ctx);
    ns = `${ctx.dbName}.${name}`;
    const coll = ctx.engine.collection(ctx.dbName, name);
    const first = stages[0];
    const stats = statsStageInput(first, ctx.engine, ctx.dbName, name);
    if (stats) {
      input = stats;
      stages = stages.slice(1);
    } else if (first && isPlainObject(first.$match)) {
      input = matchDocuments(coll, first.$match, { extras: variables ? { variables } : {} }).map(
        (m) => m.doc,
      );
      stages = stages.slice(1);
    } else if (coll) {
      input = [...coll.docs.values()];
    }
    checkDeadline(ctx);
  } else if (target === 1) {
    ns = `${ctx.dbName}.$cmd.aggregate`;
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
  for (const stage of stages) {
    const op = Object.keys(stage)[0]!;
    if (op === '$out') throw new CommandError(40601, '$out can only be the final stage in the pipeline');
  }
  const results = runPipeline(input, stages, {
    collectionResolver: resolverFor(ctx.engine, ctx.dbName),
    ...(variables ? { variables } : {}),
  });
  checkDeadline(ctx);
  if (outTarget !== undefined) {
    writeOut(ctx.engine, ctx.dbName, outTarget, results);
    return cursorReply(ctx.engine.cursors.open(ns, [], {}), 'firstBatch');
  }
  return cursorReply(ctx.engine.cursors.open(ns, results, { batchSize }), 'firstBatch');
};

const explain: CommandHandler = (cmd, ctx) => {
  const inner = optionalDocument(cmd, 'explain');
  if (!inner) throw failedToParse('explain requires a command document');
  const innerName = Object.keys(inner)[0] ?? '';
  const collection = typeof inner[innerName] === 'string' ? String(inner[innerName]) : '$cmd';
  if (innerName === 'find' || innerName === 'count' || innerName === 'distinct') {
    compileFilter(inner.filter ?? inner.query);
  }
  return {
    queryPlanner: {
      namespace: `${ctx.dbName}.${collection}`,
      parsedQuery: inner.filter ?? inner.query ?? {},
      winningPlan: { stage: 'COLLSCAN' },
      rejectedPlans: [],
    },
    command: inner,
    serverInfo: { host: 'embedded', version: '7.0.0' },
  };
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
