// The database profiler, as mongod's: the `profile` command sets a database's level (0 off, 1 slow
// operations, 2 all), `slowms`, `sampleRate` and `filter`; profiled operations are written to
// `<db>.system.profile`, an ordinary collection readable with find and aggregate. mongod caps it
// at 1 MiB; here too the oldest entries are dropped once the entries pass 1 MiB of BSON.
// Settings live in memory, as mongod's (a restart turns profiling off).
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

interface Settings {
  level: number;
  slowms: number;
  sampleRate: number;
  filter?: { spec: Document; matcher: Matcher };
}

const DEFAULTS: Settings = { level: 0, slowms: 100, sampleRate: 1 };
const settingsByEngine = new WeakMap<Engine, Map<string, Settings>>();
/** Bytes held by each system.profile collection, to keep it within PROFILE_BYTES. */
const bytesHeld = new WeakMap<Collection, number>();

function settingsOf(engine: Engine, dbName: string): Settings {
  return settingsByEngine.get(engine)?.get(dbName) ?? DEFAULTS;
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

/** `{ profile: <level>, slowms?, sampleRate?, filter? }`: replies with the settings it replaced. */
const profile: CommandHandler = (cmd, ctx) => {
  const level = numberArg(cmd, 'profile')!;
  if (![-1, 0, 1, 2].includes(level)) throw new CommandError(ErrorCode.BadValue, 'Invalid profiling level');
  const slowms = numberArg(cmd, 'slowms');
  const sampleRate = numberArg(cmd, 'sampleRate');
  if (sampleRate !== undefined && !(sampleRate >= 0 && sampleRate <= 1)) {
    throw new CommandError(ErrorCode.BadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive");
  }
  const was = settingsOf(ctx.engine, ctx.dbName);
  const next: Settings = { ...was };
  if (level !== -1) next.level = level;
  if (slowms !== undefined) next.slowms = Math.trunc(slowms);
  if (sampleRate !== undefined) next.sampleRate = sampleRate;
  if (cmd.filter === 'unset') delete next.filter;
  else if (isPlainObject(cmd.filter)) next.filter = { spec: cmd.filter, matcher: compileFilter(cmd.filter) };
  else if (cmd.filter !== undefined) {
    throw new CommandError(ErrorCode.BadValue, "Expected an object or 'unset' for 'filter'");
  }
  const byDb = settingsByEngine.get(ctx.engine) ?? new Map<string, Settings>();
  settingsByEngine.set(ctx.engine, byDb);
  byDb.set(ctx.dbName, next);
  const reply: Document = { was: was.level, slowms: was.slowms, sampleRate: was.sampleRate };
  if (was.filter) {
    reply.filter = was.filter.spec;
    reply.note =
      'When a filter expression is set, slowms and sampleRate are not used for profiling and slow-query log lines.';
  }
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
    private readonly op: string,
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

  get kind(): string {
    return this.op;
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
  if (settingsOf(ctx.engine, ctx.dbName).level === 0) return undefined;
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
  const settings = settingsOf(ctx.engine, ctx.dbName);
  const millis = Date.now() - started;
  const cursor = isPlainObject(reply.cursor) ? reply.cursor : undefined;
  const batch = cursor?.firstBatch ?? cursor?.nextBatch;
  const outcome: Document = {};
  if (Array.isArray(batch)) outcome.nreturned = batch.length;
  if (cursor) outcome.cursorExhausted = Number(cursor.id) === 0;
  if (profile.kind === 'insert' && typeof reply.n === 'number') outcome.ninserted = reply.n;
  if (reply.ok === 0)
    Object.assign(outcome, { ok: 0, errMsg: reply.errmsg, errName: reply.codeName, errCode: reply.code });
  const coll = ctx.engine.db(ctx.dbName).ensureCollection(PROFILE_COLLECTION).collection;
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
    if (!selected(settings, doc)) continue;
    write(coll, doc);
  }
}

function selected(settings: Settings, entry: Document): boolean {
  if (settings.level === 2) return true;
  if (settings.level !== 1) return false;
  if (settings.filter) return settings.filter.matcher.test(entry);
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
