// Runs query plans (planner.ts) as pull-based stages. Each step yields a matching document or
// `undefined` ("needs more time", as mongod's NEED_TIME), so candidate plans can be run side by
// side in a trial: the first to produce a page of results (or finish) wins and carries on, like
// mongod's multi-planner. Every fetched document is checked against the whole filter.
import type { Collation } from './collation.js';
import { compileFilter, type Matcher } from './filter.js';
import { compareKeyValues, type ScanStats } from './indexes.js';
import type { MingoExtras } from './mingo.js';
import { cachedPlan, forgetPlan, planSignature, queryShape, rememberPlan } from './plan-cache.js';
import {
  type Candidate,
  candidatePlans,
  explainPlan,
  type PlanNode,
  type SortKey,
  sortPattern,
} from './planner.js';
import { parseSort, sortMatches } from './query.js';
import { comparedFields } from './read-fields.js';
import type { Collection } from './storage.js';
import { textFilterOf } from './text-query.js';
import { textScoreUnavailable } from './text-score.js';
import type { Document } from './values.js';

export interface Match {
  seq: number;
  doc: Document;
  /** A `$text` search's score of the document. */
  score?: number;
}

export interface ExecutionStats extends ScanStats {
  docsExamined: number;
}

interface Context {
  coll: Collection;
  /** The top-level fields the command reads of each document (read-fields.ts); undefined: all. */
  fields: ReadonlySet<string> | undefined;
  matcher: Matcher;
  sort: SortKey[];
  collation: Collation | undefined;
  stats: ExecutionStats;
  /**
   * A sort with a limit compares its documents by these fields alone and reads whole only those it
   * returns (comparedFields); undefined when there is no limit or the fields are not certain.
   */
  compared?: ReadonlySet<string> | undefined;
  /** In the comparing pass of such a sort, the fields it compares: reads give those (records.ts `part`). */
  parts?: ReadonlySet<string> | undefined;
}

/** A document as the stage reads it: as the command reads it, or the part a sort compares. */
function readDocument(ctx: Context, seq: number): Document | undefined {
  return ctx.parts ? ctx.coll.docs.part(seq, ctx.parts) : ctx.coll.docs.read(seq, ctx.fields);
}

/** A record from an index scan, with its sort key values (for SORT_MERGE). */
interface Keyed {
  seq: number;
  key: unknown[];
}

function* access(node: PlanNode, ctx: Context): Generator<Keyed | undefined> {
  switch (node.stage) {
    case 'IXSCAN': {
      const positions = ctx.sort.map((k) => node.index.fields.indexOf(k.path));
      for (const entry of node.index.scan(node.bounds, node.direction, ctx.stats))
        yield entry && { seq: entry.seq, key: positions.map((p) => entry.values[p]) };
      return;
    }
    case 'OR':
      for (const input of node.inputs) yield* access(input, ctx);
      return;
    case 'SORT_MERGE':
      yield* merge(node.inputs, node.sort, ctx);
      return;
    default:
      throw new Error(`${node.stage} is not an index access stage`);
  }
}

/** Merges inputs that are each in `sort` order into one stream in that order. */
function* merge(inputs: PlanNode[], sort: SortKey[], ctx: Context): Generator<Keyed | undefined> {
  const streams = inputs.map((input) => access(input, ctx));
  // undefined: pull the next record; null: that input is done.
  const heads: Array<Keyed | null | undefined> = inputs.map(() => undefined);
  const compare = (a: Keyed, b: Keyed) => {
    for (let i = 0; i < sort.length; i++) {
      const c = compareKeyValues(a.key[i], b.key[i]);
      if (c !== 0) return c * sort[i]!.dir;
    }
    return 0;
  };
  try {
    for (;;) {
      for (let i = 0; i < streams.length; i++) {
        while (heads[i] === undefined) {
          const next = streams[i]!.next();
          if (next.done) heads[i] = null;
          else if (next.value === undefined) yield undefined;
          else heads[i] = next.value;
        }
      }
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i];
        if (head && (best === -1 || compare(head, heads[best]!) < 0)) best = i;
      }
      if (best === -1) return;
      yield heads[best]!;
      heads[best] = undefined;
    }
  } finally {
    // Inputs read by hand are closed by hand: an index scan holds an LMDB read transaction until then.
    for (const stream of streams) stream.return(undefined);
  }
}

function* execute(node: PlanNode, ctx: Context): Generator<Match | undefined> {
  const { coll, matcher, stats } = ctx;
  switch (node.stage) {
    case 'COLLSCAN': {
      const records = ctx.parts
        ? coll.docs.parts(node.direction, ctx.parts)
        : coll.docs.entries(node.direction);
      for (const [seq, doc] of records) {
        stats.docsExamined++;
        yield matcher.test(doc) ? { seq, doc } : undefined;
      }
      return;
    }
    case 'FETCH': {
      // Multikey keys and overlapping $or branches can name a record more than once.
      const seen = new Set<number>();
      for (const item of access(node.input, ctx)) {
        if (!item || seen.has(item.seq)) {
          yield undefined;
          continue;
        }
        seen.add(item.seq);
        const doc = readDocument(ctx, item.seq);
        if (!doc) continue;
        stats.docsExamined++;
        yield matcher.test(doc) ? { seq: item.seq, doc } : undefined;
      }
      return;
    }
    case 'SORT': {
      // A text search sorted by its score alone reads its documents best first: a limit stops it.
      if (node.input.stage === 'TEXT' && node.sort.length === 1 && node.sort[0]!.textScore) {
        yield* textMatches(node.input, ctx, true);
        return;
      }
      const { compared } = ctx;
      const input = compared ? { ...ctx, parts: compared, compared: undefined } : ctx;
      const all: Match[] = [];
      for (const match of execute(node.input, input)) {
        if (match) all.push(match);
        yield undefined;
      }
      const sorted = sortMatches(all, sortPattern(node.sort), ctx.collation);
      if (!compared) {
        yield* sorted;
        return;
      }
      // The few returned, read as the command reads them: the sort read only what it compared.
      for (const match of sorted) {
        const doc = coll.docs.read(match.seq, ctx.fields);
        if (doc) yield { ...match, doc };
      }
      return;
    }
    case 'TEXT':
      yield* textMatches(node, ctx, false);
      return;
    default:
      yield* execute({ stage: 'FETCH', input: node }, ctx);
  }
}

/**
 * A `$text` search's matches, in the order of the index's candidates or best first (`byScore`,
 * equal scores in that order, as a sort of them would leave them). The index answers most
 * candidates; the others read their text, all of it.
 */
function* textMatches(
  node: Extract<PlanNode, { stage: 'TEXT' }>,
  ctx: Context,
  byScore: boolean,
): Generator<Match | undefined> {
  const { coll, matcher, stats } = ctx;
  const scores = node.index.candidates(node.search.terms, stats);
  const textMatch = node.index.matcher(node.search);
  const candidates = byScore ? [...scores].sort((a, b) => b[1] - a[1]) : scores;
  for (const [seq, score] of candidates) {
    const decided = textMatch.decide(seq);
    if (decided === false) {
      yield undefined;
      continue;
    }
    const doc = decided ? readDocument(ctx, seq) : coll.docs.read(seq, undefined);
    if (!doc) continue;
    stats.docsExamined++;
    yield (decided || textMatch.test(seq, doc)) && matcher.test(doc) ? { seq, doc, score } : undefined;
  }
}

export interface QueryRequest {
  filter: unknown;
  /** The top-level fields the command reads of each document (read-fields.ts); undefined: all. */
  fields?: ReadonlySet<string> | undefined;
  sort?: unknown;
  skip?: number;
  /** 0 or absent: no limit. */
  limit?: number;
  hint?: unknown;
  extras?: MingoExtras;
  /** The query's collation (collation.ts) when not the simple one: strings match and sort by it. */
  collation?: Collation | undefined;
}

export interface QueryResult {
  matches: Match[];
  plan: Candidate;
  candidates: Candidate[];
  stats: ExecutionStats;
}

const works = (stats: ExecutionStats) => stats.keysExamined + stats.docsExamined;

/** Work a trial gives each candidate before the most productive one is taken. */
const TRIAL_WORKS = 10_000;

/** A cached plan may work this many times what it won with before the candidates race again (mongod's internalQueryCacheEvictionRatio). */
const REPLAN_RATIO = 10;

/** A candidate plan being run: its matches so far, and whether it has given them all. */
interface Run {
  plan: Candidate;
  ctx: Context;
  steps: Generator<Match | undefined>;
  results: Match[];
  done: boolean;
}

/** Runs `run` until it has `page` matches or is done (true), or has spent `budget` works (false). */
function ranWithin(run: Run, page: number, budget: number): boolean {
  while (works(run.ctx.stats) <= budget) {
    const next = run.steps.next();
    if (next.done) {
      run.done = true;
      return true;
    }
    if (next.value) run.results.push(next.value);
    if (run.results.length >= page) return true;
  }
  return false;
}

/**
 * Runs a query: plans it, races the candidate plans until one has a page (skip + limit results,
 * or 101 as mongod's trial) or is done, and finishes that one. Matches come in the sort's order,
 * else in natural order, with skip and limit applied (a limit without a sort takes the first
 * matches in the plan's order).
 */
export function runQuery(coll: Collection | undefined, request: QueryRequest): QueryResult {
  const text = textFilterOf(request.filter);
  const { collation } = request;
  const extras = collation ? { ...request.extras, collation } : request.extras;
  const matcher = compileFilter(text ? text.residual : request.filter, extras);
  const stats = (): ExecutionStats => ({ keysExamined: 0, docsExamined: 0 });
  const parsed = parseSort(request.sort);
  const sort: SortKey[] = parsed?.keys ?? [];
  if (!text && sort.some((k) => k.textScore)) throw textScoreUnavailable();
  const skip = request.skip ?? 0;
  const limit = request.limit ?? 0;
  if (!coll) {
    const plan: Candidate = { root: { stage: 'COLLSCAN', direction: 1 }, sorted: true };
    return { matches: [], plan, candidates: [plan], stats: stats() };
  }
  const candidates = candidatePlans(coll, {
    filter: request.filter,
    sort,
    natural: parsed && sort.length === 0 ? parsed.natural : undefined,
    hint: request.hint,
    text,
    collation,
  });
  const wanted = limit > 0 ? skip + limit : Number.POSITIVE_INFINITY;
  const compared = limit > 0 && sort.length > 0 ? comparedFields(request.filter, request.sort) : undefined;
  const start = (plan: Candidate): Run => {
    const ctx: Context = { coll, fields: request.fields, matcher, sort, collation, stats: stats(), compared };
    return { plan, ctx, steps: execute(plan.root, ctx), results: [], done: false };
  };
  let runs = candidates.map(start);
  // Only a choice between plans is cached, so only then is the query's shape worked out.
  const shapeKey =
    runs.length > 1
      ? queryShape(coll, {
          filter: request.filter,
          sort: request.sort,
          hint: request.hint,
          limited: limit > 0,
          collation,
        })
      : undefined;
  const cached = shapeKey === undefined ? undefined : cachedPlan(coll, shapeKey);
  let fromCache = cached && runs.find((run) => planSignature(run.plan.root) === cached.signature);
  let winner = fromCache ?? runs[0]!;
  let trialWorks = 0;
  let trialDecided = false;
  const trialPage = Math.min(wanted, 101);
  try {
    // mongod's replanning: a cached plan has ten times the works it won with to give its page. One
    // that does not (other values of the same shape: a window of old meetings read newest first) is
    // forgotten and the candidates race again, rather than run to the end every time.
    if (fromCache && !ranWithin(fromCache, trialPage, Math.max(REPLAN_RATIO * cached!.works, 1000))) {
      forgetPlan(coll, shapeKey!);
      fromCache.steps.return(undefined);
      runs = candidates.map(start);
      fromCache = undefined;
      winner = runs[0]!;
    }
    if (runs.length > 1 && !fromCache) {
      trial: for (let work = 0; work < TRIAL_WORKS; work++)
        for (const run of runs) {
          const next = run.steps.next();
          if (next.done) run.done = true;
          else if (next.value) run.results.push(next.value);
          if (run.done || run.results.length >= trialPage) {
            winner = run;
            break trial;
          }
        }
      // No plan finished its page: the most productive wins and, on a tie, as mongod's noSortBonus,
      // one that needs no blocking sort (it can stop at the limit; a blocking sort reads everything).
      if (!winner.done && winner.results.length < trialPage) {
        const score = (run: Run) => run.results.length + (run.plan.sorted ? 0.5 : 0);
        for (const run of runs) if (score(run) > score(winner)) winner = run;
      }
    }
    trialWorks = works(winner.ctx.stats);
    trialDecided = winner.done || winner.results.length > 0;
    if (!winner.done)
      for (const match of winner.steps) {
        if (winner.results.length >= wanted) break;
        if (match) winner.results.push(match);
      }
  } finally {
    // Every plan is closed, on an error too, and the trial's losers: an index scan holds an LMDB read
    // transaction until then, and LMDB reuses no page a reader might still see (the file would grow
    // with every write) and has room for 126 readers.
    for (const run of runs) run.steps.return(undefined);
  }
  const results = winner.results;
  // As mongod, a trial no plan won with a match is no choice to keep: the next query of the shape,
  // with other values, races again.
  if (shapeKey !== undefined && !fromCache && trialDecided)
    rememberPlan(coll, shapeKey, { signature: planSignature(winner.plan.root), works: trialWorks });
  const page = results.slice(skip, skip + (limit > 0 ? limit : results.length));
  // Without a sort the order is unspecified; natural (insertion) order, as a scan gives it, is
  // what callers written against the old engine (and a collection scan) expect.
  if (sort.length === 0 && parsed === null) page.sort((a, b) => a.seq - b.seq);
  return {
    matches: page,
    plan: winner.plan,
    candidates,
    stats: winner.ctx.stats,
  };
}

export interface MatchOptions {
  /** Stop after this many matches. */
  limit?: number;
  extras?: MingoExtras;
}

/** Documents matching `filter` (validated even when the collection does not exist), in plan order. */
export function matchDocuments(
  coll: Collection | undefined,
  filter: unknown,
  options: MatchOptions = {},
): Match[] {
  return runQuery(coll, { filter, limit: options.limit, extras: options.extras }).matches;
}

/**
 * explain's `queryPlanner` (and `executionStats` unless the verbosity is queryPlanner) for a
 * find-like query, in mongod's shape: LIMIT / SKIP over the winning plan.
 */
export function explainQuery(
  coll: Collection | undefined,
  namespace: string,
  request: QueryRequest,
  verbosity: string,
): Document {
  const result = runQuery(coll, request);
  const filter = (request.filter ?? {}) as Document;
  const skip = request.skip ?? 0;
  const limit = request.limit ?? 0;
  const wrap = (node: PlanNode): Document => {
    let plan = explainPlan(node, filter);
    if (node.stage === 'SORT' && limit > 0) plan.limitAmount = skip + limit;
    if (skip > 0) plan = { stage: 'SKIP', skipAmount: skip, inputStage: plan };
    if (limit > 0 && node.stage !== 'SORT') plan = { stage: 'LIMIT', limitAmount: limit, inputStage: plan };
    return plan;
  };
  const out: Document = {
    queryPlanner: {
      namespace,
      parsedQuery: filter,
      winningPlan: wrap(result.plan.root),
      rejectedPlans: result.candidates.filter((c) => c !== result.plan).map((c) => wrap(c.root)),
    },
  };
  if (verbosity !== 'queryPlanner') {
    out.executionStats = {
      executionSuccess: true,
      nReturned: result.matches.length,
      totalKeysExamined: result.stats.keysExamined,
      totalDocsExamined: result.stats.docsExamined,
    };
  }
  return out;
}
