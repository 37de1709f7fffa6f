/**
 * The engine scenario: the embedded engine as a database, at a size where a scan would show.
 *
 * One engine grows a dataset of short-transcript meetings to 5,000, then 50,000, then 100,000:
 * - at 5,000 and at 50,000 the service's plain REST list is driven with load (the rate must not
 *   fall with the data: a page costs work proportional to the page);
 * - from 50,000 to 100,000 the meetings are written with insertMany in batches of 1,000,
 *   pre-generated, two batches in flight (documents per second, with every index the app keeps);
 * - at 100,000 the app's own meeting-list queries (the commands the service sent for real
 *   requests, replayed as they were) and a range + sort + limit are timed in engine CPU, and an
 *   indexed lookup is timed while another client runs the heaviest of those list queries;
 * - text search over 5,000 long transcripts in a database of their own (engine-text.ts);
 * - last, a durable directory of 50,000 meetings reopened: its first answered query (engine-open.ts).
 */
import { BSON, type Document, MongoClient } from 'mongodb';
import { connectDatabase } from '../src/db/connection.js';
import { contentKinds } from '../src/db/documents.js';
import {
  appendBenchMeetings,
  benchAdmin,
  benchMeetingBatch,
  benchReferences,
  benchUsers,
  type DatasetOptions,
  FIRST_RECORDING_ID,
  keepCounterAhead,
  loadBenchDataset,
} from './dataset.js';
import { startEngine } from './engine-child.js';
import { openTarget, runOpenCase } from './engine-open.js';
import { runTextSearchCase, textSearchTargets } from './engine-text.js';
import { Child, engineIdle } from './ipc.js';
import { fetchOnce, type LoadRequest, percentile, runLoad } from './load.js';
import type { EngineScenarioReport, TargetCheck } from './report.js';
import { mb } from './units.js';

export interface EngineScenarioOptions {
  /** The sizes: the REST list is measured at `small` and `large`, the engine at `full`. */
  small: number;
  large: number;
  full: number;
  seed: number;
  connections: number;
  duration: number;
  warmup: number;
}

export const defaultEngineSizes = { small: 5_000, large: 50_000, full: 100_000 };

interface ListRequest {
  name: string;
  path: string;
  key: string;
  /**
   * Why this query is not held to the page target, when it is not: a created_before window that
   * leaves out the newest third of the organisation is read newest first, skipping everything
   * created later, as mongod would with these indexes (none orders by recording start within a
   * creation window, and a window that wide is no cheaper to sort).
   */
  unbounded?: string;
}

/** How long the engine is left idle before its memory is read (see privateMb). */
const RESTING_MS = 15_000;

const dateWindow =
  'a window that leaves out the newest third of the organisation is read newest first, skipping those created later (no index orders by recording start within a creation window)';

/** The list requests whose queries are replayed: the pages people open, and each filter. */
function listRequests(nextCursor: string | null, archiveBefore: Date): ListRequest[] {
  const member = benchUsers[1]!;
  const admin = benchAdmin.apiKey;
  return [
    { name: 'account admin, first page', path: '/external/v1/meetings?limit=10', key: admin },
    ...(nextCursor
      ? [
          {
            name: 'account admin, second page',
            path: `/external/v1/meetings?limit=10&cursor=${encodeURIComponent(nextCursor)}`,
            key: admin,
          },
        ]
      : []),
    { name: 'team member, first page', path: '/external/v1/meetings?limit=10', key: member.apiKey },
    {
      name: 'account admin, teams[]',
      path: `/external/v1/meetings?limit=10&teams[]=${encodeURIComponent(member.team)}`,
      key: admin,
    },
    {
      name: 'account admin, recorded_by[]',
      path: `/external/v1/meetings?limit=10&recorded_by[]=${encodeURIComponent(member.email)}`,
      key: admin,
    },
    {
      name: 'account admin, meeting_type',
      path: '/external/v1/meetings?limit=10&meeting_type=Sprint%20Review',
      key: admin,
    },
    {
      name: 'account admin, created_after',
      path: '/external/v1/meetings?limit=10&created_after=2020-01-01T00:00:00Z',
      key: admin,
    },
    {
      name: 'account admin, created_before (oldest 100)',
      path: `/external/v1/meetings?limit=10&created_before=${archiveBefore.toISOString()}`,
      key: admin,
    },
    {
      name: 'account admin, created_before 2020',
      path: '/external/v1/meetings?limit=10&created_before=2020-01-01T00:00:00Z',
      key: admin,
      unbounded: dateWindow,
    },
  ];
}

/** A recorded command, made runnable again: the session and cluster fields belong to the old client. */
function replayable(command: Document): Document {
  const { lsid, $db, $clusterTime, $readPreference, txnNumber, ...rest } = command;
  return rest;
}

export async function runEngineScenario(
  opts: EngineScenarioOptions,
  serviceEnv: (uri: string, db: string) => Record<string, string>,
  log: (line: string) => void,
): Promise<{ report: EngineScenarioReport; targets: TargetCheck[]; problems: string[] }> {
  const problems: string[] = [];
  const dataset: DatasetOptions = { meetings: opts.full, minEntries: 1, maxEntries: 4, seed: opts.seed };
  const engine = startEngine('engine', {});
  const children: Child[] = [engine];
  let client: MongoClient | undefined;
  try {
    const { uri } = (await engine.ready) as { uri: string };
    const seeding = await connectDatabase(uri, 'engine');
    const { collections } = seeding;
    await loadBenchDataset(collections, dataset, () => {}, opts.small);
    log(`  ${opts.small} meetings seeded (short transcripts)`);

    const service = Child.start(
      'service',
      'bench/service.ts',
      // It records the commands of a request, to replay them.
      { ...serviceEnv(uri, 'engine'), MONGODB_COMMAND_METRICS: 'true' },
      { quiet: true },
    );
    children.push(service);
    const { url } = (await service.ready) as { url: string };
    const list: LoadRequest = {
      method: 'GET',
      path: '/external/v1/meetings?limit=10',
      headers: { 'x-api-key': benchAdmin.apiKey },
    };
    const listRate = async (size: number) => {
      if (opts.warmup > 0) await runLoad(url, list, { connections: opts.connections, seconds: opts.warmup });
      const load = await runLoad(url, list, { connections: opts.connections, seconds: opts.duration });
      const bad = load.errorStatus + load.errors + load.timeouts;
      if (bad > 0) problems.push(`engine scenario: REST list at ${size}: ${bad} requests failed`);
      log(`  REST list at ${size} meetings: ${load.rps.toFixed(1)} req/s, p50 ${load.p50.toFixed(1)} ms`);
      return { rps: load.rps, p50: load.p50 };
    };
    const small = await listRate(opts.small);
    // The engine's own memory at rest, each time after the same list load: with the cache bounded,
    // ten times the meetings should cost little more (issue 33: at most 1.2x). Read once the engine
    // has been idle long enough for V8's memory reducer to give back the heap a burst committed
    // (about 8 s after the last allocation; committed heap was 97-145 MB right after a load, 26-33
    // MB at rest), then after a full collection: neither depends on the data, only on when it is read.
    const privateMb = async () => {
      await engineIdle(() => engine.stats());
      await new Promise((resolve) => setTimeout(resolve, RESTING_MS));
      await engine.call('collectGarbage', null);
      const memory = engine.residentMemory();
      return memory && mb(memory.private);
    };
    const smallMemory = await privateMb();

    const refs = await benchReferences(collections);
    await appendBenchMeetings(collections, dataset, refs, opts.small, opts.large);
    log(`  ${opts.large} meetings`);
    const large = await listRate(opts.large);
    const largeMemory = await privateMb();
    log(
      `  engine private memory: ${smallMemory?.toFixed(0) ?? '?'} MB at ${opts.small} meetings, ${largeMemory?.toFixed(0) ?? '?'} MB at ${opts.large}`,
    );

    // Batched inserts: pre-generated, so the engine's rate is measured, not the generator's.
    const batches: ReturnType<typeof benchMeetingBatch>[] = [];
    for (let from = opts.large; from < opts.full; from += 1_000)
      batches.push(benchMeetingBatch(refs, dataset, from, Math.min(from + 1_000, opts.full)));
    // Two batches in flight, as a bulk loader runs (mongoimport's insertion workers): the driver
    // encodes the next batch while the engine stores one, so the rate is the engine's, not the
    // sum of both sides' work.
    const cpuBefore = await engine.stats();
    let started = performance.now();
    let next = 0;
    const loader = async () => {
      while (next < batches.length) await collections.meetings.insertMany(batches[next++]!.meetings);
    };
    await Promise.all([loader(), loader()]);
    const meetingSeconds = (performance.now() - started) / 1000;
    const engineCpuMs = (await engine.stats()).cpuMs - cpuBefore.cpuMs;
    started = performance.now();
    let contentDocs = 0;
    for (const batch of batches) {
      await Promise.all(
        contentKinds.map((kind) => collections[kind].insertMany(batch.contents[kind] as never[])),
      );
      contentDocs += contentKinds.reduce((n, kind) => n + batch.contents[kind].length, 0);
    }
    const contentSeconds = (performance.now() - started) / 1000;
    await keepCounterAhead(collections, opts.full);
    await seeding.close();
    const fullList = await listRate(opts.full);
    const fullMemory = await privateMb();
    log(`  engine private memory: ${fullMemory?.toFixed(0) ?? '?'} MB at ${opts.full} meetings`);
    const inserted = opts.full - opts.large;
    const inserts = {
      meetings: inserted,
      seconds: meetingSeconds,
      docsPerSecond: inserted / meetingSeconds,
      engineMsPerThousand: (engineCpuMs / inserted) * 1000,
      contentDocsPerSecond: contentDocs / contentSeconds,
    };
    log(
      `  ${opts.full} meetings: ${inserted} meeting documents in batches of 1,000, two in flight, at ${inserts.docsPerSecond.toFixed(0)}/s ` +
        `(engine CPU ${inserts.engineMsPerThousand.toFixed(0)} ms per 1,000) ` +
        `(content documents ${inserts.contentDocsPerSecond.toFixed(0)}/s)`,
    );

    // ------------------------------------------------------------ the app's list queries, replayed
    client = await new MongoClient(uri, { maxPoolSize: 1 }).connect();
    const db = client.db('engine');
    const firstPage = await fetchOnce(url, list);
    const nextCursor = (JSON.parse(firstPage.body.toString()) as { next_cursor: string | null }).next_cursor;
    /** Engine CPU and round trip per execution of `run`, over `times` sequential executions. */
    const timed = async (times: number, run: (i: number) => Promise<unknown>) => {
      const rtts: number[] = [];
      const before = await engine.stats();
      for (let i = 0; i < times; i++) {
        const t = performance.now();
        await run(i);
        rtts.push(performance.now() - t);
      }
      const after = await engine.stats();
      rtts.sort((a, b) => a - b);
      return {
        engineMs: (after.cpuMs - before.cpuMs) / times,
        p50: percentile(rtts, 50),
        p99: percentile(rtts, 99),
      };
    };
    const planOf = async (command: Document) => {
      const explained = await db.command({ explain: command, verbosity: 'queryPlanner' });
      return summarise(explained.queryPlanner?.winningPlan);
    };
    const listQueries: EngineScenarioReport['listQueries'] = [];
    const replays: { name: string; command: Document; engineMs: number }[] = [];
    // An archive window: the organisation's oldest hundred meetings.
    const [hundredth] = await db
      .collection('meetings')
      .find({}, { projection: { createdAt: 1 } })
      .sort({ createdAt: 1 })
      .skip(100)
      .limit(1)
      .toArray();
    for (const request of listRequests(nextCursor, hundredth!.createdAt as Date)) {
      await service.call('recordCommands', null);
      const answer = await fetchOnce(url, {
        method: 'GET',
        path: request.path,
        headers: { 'x-api-key': request.key },
      });
      if (answer.status !== 200) throw new Error(`${request.path} answered ${answer.status}`);
      const commands = BSON.EJSON.parse(await service.call<string>('recordedCommands', null), {
        relaxed: false,
      }) as Document[];
      const query = commands.find((c) => c.find === 'meetings' || c.aggregate === 'meetings');
      if (!query) throw new Error(`${request.name}: no query on meetings among ${commands.length} commands`);
      const command = replayable(query);
      const result = await timed(100, () => db.command(command));
      const plan = await planOf(command);
      listQueries.push({
        name: request.name,
        engineMs: result.engineMs,
        p50: result.p50,
        plan,
        command: BSON.EJSON.stringify(command),
        ...(request.unbounded ? { unbounded: request.unbounded } : {}),
      });
      if (!request.unbounded) replays.push({ name: request.name, command, engineMs: result.engineMs });
      log(
        `  ${request.name}: engine ${result.engineMs.toFixed(2)} ms, round trip p50 ${result.p50.toFixed(2)} ms  [${plan}]`,
      );
    }

    // ------------------------------------------------------------ range + sort + limit
    const meetings = db.collection('meetings');
    const span = 20_000;
    const range = (i: number) => {
      const low = FIRST_RECORDING_ID + ((i * 7_919) % (opts.full - span));
      return { recordingId: { $gte: low, $lt: low + span } };
    };
    const rangeResult = await timed(300, (i) =>
      meetings.find(range(i)).sort({ recordingId: -1 }).limit(10).toArray(),
    );
    const rangePlan = await planOf({
      find: 'meetings',
      filter: range(0),
      sort: { recordingId: -1 },
      limit: 10,
    });
    const rangeSortLimit = { engineMs: rangeResult.engineMs, p50: rangeResult.p50, plan: rangePlan };
    log(
      `  range + sort + limit (recordingId, ${span} in range): engine ${rangeResult.engineMs.toFixed(2)} ms, round trip p50 ${rangeResult.p50.toFixed(2)} ms  [${rangePlan}]`,
    );

    // ------------------------------------------------------------ a lookup while the heaviest list runs
    const heaviest = replays.reduce((a, b) => (b.engineMs > a.engineMs ? b : a));
    const lookup = (i: number) =>
      meetings.findOne({ recordingId: FIRST_RECORDING_ID + ((i * 104_729) % opts.full) });
    const idle = await timed(300, lookup);
    const busy = await new MongoClient(uri, { maxPoolSize: 1 }).connect();
    let running = true;
    let listQueriesRun = 0;
    const hammer = (async () => {
      const busyDb = busy.db('engine');
      while (running) {
        await busyDb.command(heaviest.command);
        listQueriesRun++;
      }
    })();
    const latencies: number[] = [];
    const until = performance.now() + opts.duration * 1000;
    for (let i = 0; performance.now() < until; i++) {
      const t = performance.now();
      await lookup(i);
      latencies.push(performance.now() - t);
    }
    running = false;
    await hammer;
    await busy.close();
    latencies.sort((a, b) => a - b);
    const lookupUnderLoad = {
      heaviest: heaviest.name,
      idle: { p50: idle.p50, p99: idle.p99 },
      loaded: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? Number.NaN,
        lookups: latencies.length,
        listQueries: listQueriesRun,
      },
    };
    log(
      `  indexed lookup while "${heaviest.name}" runs in a loop: p50 ${lookupUnderLoad.loaded.p50.toFixed(2)} ms, ` +
        `p99 ${lookupUnderLoad.loaded.p99.toFixed(2)} ms, max ${lookupUnderLoad.loaded.max.toFixed(1)} ms ` +
        `(${latencies.length} lookups, ${listQueriesRun} list queries; idle p50 ${idle.p50.toFixed(2)} ms)`,
    );

    // ------------------------------------------------------------ text search
    // Building the index over 5.5 million entries holds the engine for seconds: generous timeouts.
    const texts = await new MongoClient(uri, {
      maxPoolSize: 1,
      connectTimeoutMS: 600_000,
      socketTimeoutMS: 0,
    }).connect();
    let textSearch: EngineScenarioReport['textSearch'];
    try {
      textSearch = await runTextSearchCase(texts.db('text-search'), () => engine.stats(), log);
      await texts.db('text-search').dropDatabase();
    } finally {
      await texts.close();
    }

    // ------------------------------------------------------------ reopening a durable directory
    const open = await runOpenCase(opts.large, opts.seed, log);

    const report: EngineScenarioReport = {
      sizes: { small: opts.small, large: opts.large, full: opts.full },
      restList: { small, large, full: fullList, ratio: large.rps / small.rps },
      privateMemoryMb: { small: smallMemory, large: largeMemory, full: fullMemory },
      inserts,
      listQueries,
      rangeSortLimit,
      textSearch,
      lookupUnderLoad,
      open,
    };
    return {
      report,
      targets: [...engineTargets(report), ...textSearchTargets(textSearch), openTarget(open)],
      problems,
    };
  } finally {
    await client?.close();
    for (const child of children.reverse()) await child.stop().catch(() => {});
  }
}

function engineTargets(r: EngineScenarioReport): TargetCheck[] {
  const check = (name: string, pass: boolean, detail: string): TargetCheck => ({
    name,
    status: pass ? 'PASS' : 'FAIL',
    detail,
  });
  const paged = r.listQueries.filter((q) => !q.unbounded);
  const slowest = paged.reduce((a, b) => (b.engineMs > a.engineMs ? b : a));
  const left = r.listQueries
    .filter((q) => q.unbounded)
    .map((q) => `${q.name}: ${q.engineMs.toFixed(1)} ms, not held to it: ${q.unbounded}`);
  const full = r.sizes.full.toLocaleString('en');
  return [
    check(
      `engine: the app's meeting-list queries under 5 ms of engine time at ${full} meetings`,
      slowest.engineMs < 5,
      `slowest ${slowest.engineMs.toFixed(2)} ms (${slowest.name}) of ${paged.length} queries${left.length > 0 ? `; ${left.join('; ')}` : ''}`,
    ),
    check(
      `engine: range + sort + limit on an indexed field under 2 ms at ${full}`,
      r.rangeSortLimit.engineMs < 2,
      `${r.rangeSortLimit.engineMs.toFixed(2)} ms [${r.rangeSortLimit.plan}]`,
    ),
    check(
      'engine: batched inserts at 15,000 documents/s or more',
      r.inserts.docsPerSecond >= 15_000,
      `${r.inserts.docsPerSecond.toFixed(0)} meeting documents/s (content documents ${r.inserts.contentDocsPerSecond.toFixed(0)}/s)`,
    ),
    check(
      'engine: an indexed lookup within 10 ms (p99) while another client runs the heaviest list query',
      r.lookupUnderLoad.loaded.p99 <= 10,
      `p99 ${r.lookupUnderLoad.loaded.p99.toFixed(2)} ms, max ${r.lookupUnderLoad.loaded.max.toFixed(1)} ms, while "${r.lookupUnderLoad.heaviest}" ran ${r.lookupUnderLoad.loaded.listQueries} times`,
    ),
    memoryGrowthCheck(r, check),
    check(
      `REST list at ${r.sizes.large.toLocaleString('en')} meetings at least 0.8 of its rate at ${r.sizes.small.toLocaleString('en')}`,
      r.restList.ratio >= 0.8,
      `${r.restList.ratio.toFixed(2)} (${r.restList.large.rps.toFixed(1)} vs ${r.restList.small.rps.toFixed(1)} req/s)`,
    ),
  ];
}

/** Issue 33: memory bounded by the cache, not by the data: at most 1.2x for ten times the meetings. */
function memoryGrowthCheck(
  r: EngineScenarioReport,
  check: (name: string, pass: boolean, detail: string) => TargetCheck,
): TargetCheck {
  const { small, large, full } = r.privateMemoryMb;
  const name = `engine: private memory at rest at ${r.sizes.large.toLocaleString('en')} meetings at most 1.2x that at ${r.sizes.small.toLocaleString('en')}`;
  if (small === null || large === null) return check(name, false, 'not measured (no /proc on this machine)');
  return check(
    name,
    large <= 1.2 * small,
    `${(large / small).toFixed(2)}x (${large.toFixed(0)} vs ${small.toFixed(0)} MB; ${full?.toFixed(0) ?? '?'} MB at ${r.sizes.full.toLocaleString('en')})`,
  );
}

/** A winning plan as one line, stages outermost first: `LIMIT > FETCH > IXSCAN {orgId: 1, ...}`. */
function summarise(plan: Document | undefined): string {
  if (!plan) return '?';
  const stage = String(plan.stage);
  const label = plan.indexName ? `${stage} ${plan.indexName}` : stage;
  const children: Document[] = plan.inputStage ? [plan.inputStage] : (plan.inputStages ?? []);
  if (children.length === 0) return label;
  const inner = children.map(summarise);
  return `${label} > ${inner.length === 1 ? inner[0] : `(${inner.join(' | ')})`}`;
}
