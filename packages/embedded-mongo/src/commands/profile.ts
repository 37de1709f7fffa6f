// The database profiler, as mongod's: the `profile` command sets a database's level (0 off, 1 slow
// operations, 2 all), `slowms`, `sampleRate` and `filter`; profiled operations are written to
// `<db>.system.profile`, an ordinary collection readable with find and aggregate. mongod caps it
// at 1 MiB; here too the oldest entries are dropped once the entries pass 1 MiB of BSON.
// Settings live in memory, as mongod's (a restart turns profiling off); the level and filter are
// per database, slowms and sampleRate the server's.
import { BSON, ObjectId } from 'bson';
import { CommandError, ErrorCode } from '../errors.js';
import { compileFilter, type Matcher } from '../filter.js';
import type { QueryRequest, QueryResult } from '../plan-executor.js';
import type { PlanNode } from '../planner.js';
import type { Collection, Engine } from '../storage.js';
import { type Document, isPlainObject, typeName } from '../values.js';
import { type CommandContext, type CommandHandler, type ProfileHook, toNumber } from './context.js';

export const PROFILE_COLLECTION = 'system.profile';
/** mongod's default size of system.profile. */
const PROFILE_BYTES = 1024 * 1024;
/** mongod profiles a command document larger than this as `{ $truncated: ... }`. */
const COMMAND_BYTES = 50 * 1024;

/** A database's profiler settings; `slowms` and `sampleRate` are the server's (all databases). */
interface DbSettings {
  level: number;
  filter?: { spec: Document; matcher: Matcher };
}

interface EngineSettings {
  slowms: number;
  sampleRate: number;
  byDb: Map<string, DbSettings>;
}

const settingsByEngine = new WeakMap<Engine, EngineSettings>();
/** Bytes held by each system.profile collection, to keep it within PROFILE_BYTES. */
const bytesHeld = new WeakMap<Collection, number>();

function settingsOf(engine: Engine): EngineSettings {
  let settings = settingsByEngine.get(engine);
  if (!settings) {
    settings = { slowms: 100, sampleRate: 1, byDb: new Map() };
    settingsByEngine.set(engine, settings);
  }
  return settings;
}

function levelOf(engine: Engine, dbName: string): number {
  return settingsByEngine.get(engine)?.byDb.get(dbName)?.level ?? 0;
}

function numberArg(cmd: Document, field: string): number | undefined {
  const value = cmd[field];
  if (value === undefined) return undefined;
  const n = toNumber(value);
  if (n === undefined || Number.isNaN(n)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'profile.${field}' is the wrong type '${typeName(value)}', expected type 'double'`,
    );
  }
  return n;
}

/**
 * `{ profile: <level>, slowms?, sampleRate?, filter? }`: replies with the settings it replaced.
 * As mongod: a level outside 0..2 only reads them, and other fields are ignored (its IDL parses
 * this command with `strict: false`, so it is not listed in fields.ts).
 */
const profile: CommandHandler = (cmd, ctx) => {
  const level = numberArg(cmd, 'profile')!;
  const slowms = numberArg(cmd, 'slowms');
  const sampleRate = numberArg(cmd, 'sampleRate');
  if (sampleRate !== undefined && !(sampleRate >= 0 && sampleRate <= 1)) {
    throw new CommandError(ErrorCode.BadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive");
  }
  const filter = cmd.filter;
  if (filter !== undefined && filter !== 'unset' && !isPlainObject(filter)) {
    throw new CommandError(ErrorCode.BadValue, "Expected an object, or the string 'unset'.");
  }
  const settings = settingsOf(ctx.engine);
  const was = settings.byDb.get(ctx.dbName) ?? { level: 0 };
  const reply: Document = { was: was.level, slowms: settings.slowms, sampleRate: settings.sampleRate };
  if (was.filter) reply.filter = was.filter.spec;
  if (was.filter || filter !== undefined) {
    reply.note =
      'When a filter expression is set, slowms and sampleRate are not used for profiling and slow-query log lines.';
  }
  const next: DbSettings = { ...was };
  if (level >= 0 && level <= 2) next.level = Math.trunc(level);
  if (filter === 'unset') delete next.filter;
  else if (isPlainObject(filter)) next.filter = { spec: filter, matcher: compileFilter(filter) };
  settings.byDb.set(ctx.dbName, next);
  if (slowms !== undefined) settings.slowms = Math.trunc(slowms);
  if (sampleRate !== undefined) settings.sampleRate = sampleRate;
  return reply;
};

export const profileCommands: Record<string, CommandHandler> = { profile };

// ------------------------------------------------------------------ plan summaries

/** mongod's BSONObj::toString of a key pattern: `{ orgId: 1, name: "hashed" }`. */
function keyPatternString(key: Document): string {
  const parts = Object.entries(key).map(([f, v]) => `${f}: ${typeof v === 'string' ? JSON.stringify(v) : v}`);
  return `{ ${parts.join(', ')} }`;
}

function leaves(node: PlanNode): string[] {
  switch (node.stage) {
    case 'COLLSCAN':
      return ['COLLSCAN'];
    case 'IXSCAN':
    case 'TEXT':
      return [`IXSCAN ${keyPatternString(node.index.spec.key)}`];
    case 'OR':
    case 'SORT_MERGE':
      return node.inputs.flatMap(leaves);
    case 'FETCH':
    case 'SORT':
      return leaves(node.input);
  }
}

/** A query mongod answers by its _id lookup fast path (IDHACK): `{ _id: <value> }`, no sort or skip. */
function isIdHack(request: QueryRequest): boolean {
  const filter = request.filter;
  if (!isPlainObject(filter) || Object.keys(filter).length !== 1 || !('_id' in filter)) return false;
  const id = filter._id;
  const operators = isPlainObject(id) && Object.keys(id).some((k) => k.startsWith('$'));
  const sorted = isPlainObject(request.sort) && Object.keys(request.sort).length > 0;
  return !operators && !Array.isArray(id) && !sorted && !request.skip && request.hint === undefined;
}

/**
 * The plan's leaves as mongod's `planSummary`: "IXSCAN { a: 1 }", "COLLSCAN", or "IDHACK" for an
 * _id lookup by find, update, delete or findAndModify (`idHack`).
 */
export function planSummary(result: QueryResult, request: QueryRequest, idHack: boolean): string {
  if (idHack && isIdHack(request)) return 'IDHACK';
  return leaves(result.plan.root).join(', ');
}

// ------------------------------------------------------------------ recording

interface Entry {
  op: string;
  ns: string;
  command: Document;
  fields: Document;
}

/** What one command does, as its handler reports it; written to system.profile when it ends. */
export class OpProfile implements ProfileHook {
  readonly entries: Entry[];
  private statements = 0;

  constructor(
    readonly op: string,
    private readonly ns: string,
    command: Document,
  ) {
    this.entries = [{ op, ns, command, fields: {} }];
  }

  private get current(): Entry {
    return this.entries[this.entries.length - 1]!;
  }

  statement(op: 'update' | 'remove', command: Document): void {
    const entry = { op, ns: this.ns, command, fields: {} };
    if (this.statements++ === 0) this.entries[0] = entry;
    else this.entries.push(entry);
  }

  plan(result: QueryResult, request: QueryRequest): void {
    const f = this.current.fields;
    f.keysExamined = ((f.keysExamined as number) ?? 0) + result.stats.keysExamined;
    f.docsExamined = ((f.docsExamined as number) ?? 0) + result.stats.docsExamined;
    const name = Object.keys(this.current.command)[0]?.toLowerCase();
    const idHack = this.current.op !== 'command' || name === 'findandmodify';
    f.planSummary = planSummary(result, request, idHack);
    // mongod's flag for a sort the plan had to do itself, the index giving no order.
    if (!result.plan.sorted) f.hasSortStage = true;
  }

  set(fields: Document): void {
    Object.assign(this.current.fields, fields);
  }
}

const OPS: Record<string, string> = {
  find: 'query',
  getMore: 'getmore',
  insert: 'insert',
  update: 'update',
  delete: 'remove',
};

/** An OpProfile for the command when its database profiles anything, else undefined. */
export function startProfile(ctx: CommandContext, name: string, cmd: Document): OpProfile | undefined {
  if (levelOf(ctx.engine, ctx.dbName) === 0) return undefined;
  const target = name === 'getMore' ? cmd.collection : cmd[name];
  // Reading the profile does not add to it.
  if (target === PROFILE_COLLECTION) return undefined;
  const ns = `${ctx.dbName}.${typeof target === 'string' ? target : '$cmd'}`;
  return new OpProfile(OPS[name] ?? 'command', ns, cmd);
}

function truncated(command: Document): Document {
  if (BSON.calculateObjectSize(command) <= COMMAND_BYTES) return command;
  return { $truncated: JSON.stringify(command).slice(0, 1024) };
}

/** Writes the operation's entries, if its database's settings select it. */
export function finishProfile(
  ctx: CommandContext,
  profile: OpProfile,
  reply: Document,
  started: number,
): void {
  const settings = settingsOf(ctx.engine);
  const db = settings.byDb.get(ctx.dbName) ?? { level: 0 };
  const millis = Date.now() - started;
  const cursor = isPlainObject(reply.cursor) ? reply.cursor : undefined;
  const batch = cursor?.firstBatch ?? cursor?.nextBatch;
  const outcome: Document = {};
  if (Array.isArray(batch)) outcome.nreturned = batch.length;
  if (cursor) outcome.cursorExhausted = Number(cursor.id) === 0;
  if (profile.op === 'insert' && typeof reply.n === 'number') outcome.ninserted = reply.n;
  if (reply.ok === 0)
    Object.assign(outcome, { ok: 0, errMsg: reply.errmsg, errName: reply.codeName, errCode: reply.code });
  for (const entry of profile.entries) {
    // mongod's entries have no _id (system.profile has no _id index); the engine's collections
    // always index _id, so each entry gets one.
    const doc: Document = {
      _id: new ObjectId(),
      op: entry.op,
      ns: entry.ns,
      command: truncated(entry.command),
      ...entry.fields,
      ...outcome,
      numYield: 0,
      protocol: 'op_msg',
      millis,
      ts: new Date(),
      client: ctx.connection.remoteAddress ?? '127.0.0.1',
      allUsers: [],
      user: '',
    };
    if (selected(settings, db, doc))
      write(ctx.engine.db(ctx.dbName).ensureCollection(PROFILE_COLLECTION).collection, doc);
  }
}

/** Level 2 profiles everything; level 1 what the filter selects, else a sample of slow operations. */
function selected(settings: EngineSettings, db: DbSettings, entry: Document): boolean {
  if (db.level === 2) return true;
  if (db.level !== 1) return false;
  if (db.filter) return db.filter.matcher.test(entry);
  return (entry.millis as number) > settings.slowms && Math.random() < settings.sampleRate;
}

/** Appends an entry, dropping the oldest while the collection holds more than PROFILE_BYTES. */
function write(coll: Collection, doc: Document): void {
  coll.insert(doc);
  let held = (bytesHeld.get(coll) ?? 0) + BSON.calculateObjectSize(doc);
  for (const [seq, old] of coll.docs) {
    if (held <= PROFILE_BYTES || coll.docs.size === 1) break;
    held -= BSON.calculateObjectSize(old);
    coll.delete(seq);
  }
  bytesHeld.set(coll, held);
}
