/**
 * `npm run bench`: seeds a generated dataset into an embedded engine running in its own process,
 * starts the service (and the two baselines) in their own processes, and drives each over
 * loopback with wrk (a process of its own) at a fixed concurrency, the servers in turn for a few
 * rounds. Exits 1 when a target fails. See README.md, "Benchmark and soak".
 *
 *   npm run bench -- --help
 *   npm run bench -- --compare bench/results/a.json bench/results/b.json
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { connectDatabase } from '../src/db/connection.js';
import type { CannedResponse } from './ceiling.js';
import {
  benchAdmin,
  type DatasetOptions,
  defaultDatasetOptions,
  FIRST_RECORDING_ID,
  generateMeeting,
  type LoadedDataset,
  loadBenchDataset,
  planted,
} from './dataset.js';
import { allIncludes, benchGraphQLQuery } from './direct.js';
import { defaultEngineSizes, engineNodeArgs, runEngineScenario } from './engine-scenario.js';
import {
  type FanoutOptions,
  type FanoutPhase,
  fanoutEnv,
  missingMachinery,
  runFanout,
  serviceToken,
  skippedFanout,
} from './fanout.js';
import { Child, sampleRss } from './ipc.js';
import { fetchOnce, type LoadRequest, runLoad } from './load.js';
import { runMediaScenario } from './media.js';
import {
  type BenchReport,
  compareReports,
  type EngineScenarioReport,
  formatReport,
  type Measurement,
  type PageSizes,
  peers,
  type ScenarioReport,
  type Target,
  type TargetCheck,
} from './report.js';
import { medianRound, type RoundFigures } from './rounds.js';
import { runSearchScenario } from './search.js';
import { serviceTargets } from './targets.js';

const usage = `Usage: npm run bench -- [options]

Dataset
  --meetings N            meetings to generate (default ${defaultDatasetOptions.meetings})
  --min-entries N         shortest transcript, lines (default ${defaultDatasetOptions.minEntries})
  --max-entries N         longest transcript, lines (default ${defaultDatasetOptions.maxEntries})
  --seed N                PRNG seed (default ${defaultDatasetOptions.seed})
Load
  --connections N         concurrent connections (default 10)
  --duration S            seconds measured per scenario and server, split over the rounds (default 15)
  --rounds N              rounds per scenario: each measures every server in turn for duration/N
                          seconds; each server's median round is reported (default 3)
  --warmup S              seconds of warm-up of each server before a scenario's first round (default 2)
  --only IDS              comma-separated scenario ids: rest-list, rest-include, graphql, transcript, search, media, fanout, engine
                          (rest-include and graphql also run once with Accept-Encoding: br, as
                          rest-include-br and graphql-br, against the service and the direct
                          handler only: the ceiling serves identity bytes; or name those ids alone)
  --log-level L           the service's LOG_LEVEL (default info; its output is discarded)
  --peers                 also serve the GraphQL scenario with ${peers.join(', ')}: the same
                          schema and database, each in its own process (bench/peers.ts)
Webhook fan-out
  --fanout-warmup N       recordings ingested first, unpaced and without a target, so that the
                          phases measured find the ingestion and delivery code compiled, as in a
                          running server (default 300; 0 measures a cold process)
  --fanout-steady-rate N  steady phase (latency): recordings per second (default 5)
  --fanout-steady-seconds S  steady phase length (default 20; 0 skips the phase)
  --fanout-recordings N   burst phase (throughput): recordings ingested as fast as they go (default 1000)
  --fanout-webhooks N     webhooks every recording matches (default 10)
  --fanout-concurrency N  ingestion calls in flight (default 4)
  --fanout-rate N         burst phase: recordings per second at most (default 0: unpaced)
  --fanout-entries N      transcript lines of each ingested recording (default 20)
  --fanout-timeout S      time box of each phase, ingestion and deliveries (default 60)
Media
  --media-mb N            size of the file streamed (default 200)
  --media-clients N       clients streaming it at once (default 5)
Engine scenario (its own engine and service, short transcripts)
  --engine-sizes A,B,C    the REST list is measured at A and B meetings, the engine alone at C
                          (default ${defaultEngineSizes.small},${defaultEngineSizes.large},${defaultEngineSizes.full})
Output
  --out FILE              JSON report (default bench/results/bench-<time>.json)
  --profile DIR           write CPU profiles of the service and the direct baseline there
  --dump DIR              write each scenario's service and direct responses there
  --compare A B           print the differences between two JSON reports and exit
`;

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      meetings: { type: 'string' },
      'min-entries': { type: 'string' },
      'max-entries': { type: 'string' },
      seed: { type: 'string' },
      connections: { type: 'string', default: '10' },
      duration: { type: 'string', default: '15' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '2' },
      only: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      'fanout-warmup': { type: 'string', default: '300' },
      'fanout-recordings': { type: 'string', default: '1000' },
      'fanout-webhooks': { type: 'string', default: '10' },
      'fanout-concurrency': { type: 'string', default: '4' },
      'fanout-rate': { type: 'string', default: '0' },
      'fanout-steady-rate': { type: 'string', default: '5' },
      'fanout-steady-seconds': { type: 'string', default: '20' },
      'fanout-entries': { type: 'string', default: '20' },
      'fanout-timeout': { type: 'string', default: '60' },
      'media-mb': { type: 'string', default: '200' },
      'media-clients': { type: 'string', default: '5' },
      'engine-sizes': { type: 'string' },
      out: { type: 'string' },
      dump: { type: 'string' },
      profile: { type: 'string' },
      compare: { type: 'boolean', default: false },
      peers: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const int = (name: keyof typeof values, fallback?: number): number => {
    const raw = values[name];
    if (raw === undefined) return fallback!;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
    return n;
  };
  const dataset: DatasetOptions = {
    meetings: int('meetings', defaultDatasetOptions.meetings),
    minEntries: int('min-entries', defaultDatasetOptions.minEntries),
    maxEntries: int('max-entries', defaultDatasetOptions.maxEntries),
    seed: int('seed', defaultDatasetOptions.seed),
  };
  if (dataset.maxEntries < dataset.minEntries)
    throw new Error('--max-entries must be at least --min-entries');
  if (dataset.meetings < 100) throw new Error('--meetings must be at least 100 (pages of 100 are measured)');
  const burst: FanoutOptions = {
    recordings: int('fanout-recordings'),
    webhooks: int('fanout-webhooks'),
    concurrency: Math.max(1, int('fanout-concurrency')),
    rate: int('fanout-rate'),
    entries: Math.max(1, int('fanout-entries')),
    timeoutSeconds: int('fanout-timeout'),
    seed: dataset.seed + 1,
    firstIndex: dataset.meetings,
  };
  // A fresh process compiles its hot functions as they warm up: in a cold burst V8 optimised about
  // 1,100 functions of the ingestion and delivery paths (6.5 s of compiler threads on 2 cores), so
  // the phases measured come after a warm-up, as every other scenario's do.
  // Latency means something only under a load the service keeps up with: a steady phase at a
  // stated rate measures it; the burst then measures how many deliveries a second it manages.
  const steadyRate = int('fanout-steady-rate');
  const phases: FanoutPhase[] = [
    { phase: 'warm-up', ...burst, recordings: Math.round(int('fanout-warmup')) },
    {
      phase: 'steady',
      ...burst,
      recordings: Math.round(steadyRate * int('fanout-steady-seconds')),
      rate: steadyRate,
    },
    { phase: 'burst', ...burst },
  ];
  // Each phase ingests recordings of its own.
  const fanout: FanoutPhase[] = [];
  let firstIndex = burst.firstIndex;
  for (const phase of phases.filter((p) => p.recordings > 0)) {
    fanout.push({ ...phase, firstIndex });
    firstIndex += phase.recordings;
  }
  const sizes = values['engine-sizes']?.split(',').map(Number) ?? [];
  const [small, large, full] = sizes;
  if (sizes.length > 0 && !(sizes.length === 3 && small! >= 100 && small! < large! && large! < full!))
    throw new Error(
      '--engine-sizes takes three growing sizes, the first at least 100, e.g. 5000,50000,100000',
    );
  const engineSizes = sizes.length > 0 ? { small: small!, large: large!, full: full! } : defaultEngineSizes;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    help: values.help,
    compare: values.compare ? positionals : null,
    dataset,
    fanout,
    media: { fileMb: Math.max(1, int('media-mb')), clients: Math.max(1, int('media-clients')) },
    engineSizes,
    connections: Math.max(1, int('connections')),
    duration: Math.max(1, int('duration')),
    rounds: Math.max(1, int('rounds')),
    peers: values.peers,
    warmup: int('warmup'),
    only: values.only ? new Set(values.only.split(',').map((s) => s.trim())) : null,
    logLevel: values['log-level']!,
    out: values.out ?? `bench/results/bench-${stamp}.json`,
    dump: values.dump,
    profile: values.profile,
  };
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => bytes / (1024 * 1024);

interface Scenario {
  id: string;
  name: string;
  request: LoadRequest;
  /** Who serves it; default all three. Compressed scenarios skip the ceiling (it serves identity). */
  targets?: readonly Target[];
}

/** Where the first difference between two JSON values lies, for the mismatch report. */
function firstDifference(a: unknown, b: unknown, path = '$'): string {
  if (isDeepStrictEqual(a, b)) return '';
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return `${path}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
    if (found) return found;
  }
  return `${path}: key order`;
}

async function main(): Promise<number> {
  const opts = options();
  if (opts.help) {
    process.stdout.write(usage);
    return 0;
  }
  if (opts.compare) {
    if (opts.compare.length !== 2) throw new Error('--compare takes two JSON reports');
    log(compareReports(opts.compare[0]!, opts.compare[1]!));
    return 0;
  }
  const started = performance.now();
  const loadAverageAtStart = loadavg()[0]!;
  const startedAt = new Date().toISOString();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  const wanted = (id: string) => !opts.only || opts.only.has(id);
  const problems: string[] = [];
  const children: Child[] = [];

  try {
    const token = serviceToken();
    const serviceEnv = (uri: string, db: string): Record<string, string> => ({
      MONGODB_URI: uri,
      MONGODB_DB: db,
      SEED_DEMO: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: opts.logLevel,
      RATE_LIMIT_GENERAL: '1000000000',
      RATE_LIMIT_HEAVY: '1000000000',
      // One key drives every connection; the process-wide budget stays as in production.
      ADMISSION_HEAVY_PER_CREDENTIAL: '1000000',
      // The embedded engine is one JS thread: under this load a command may take longer than the
      // production bound, which would measure the engine, not the service.
      MONGODB_TIMEOUT_MS: '15000',
      SHUTDOWN_GRACE_MS: '2000',
      NODE_ENV: 'production', // as `npm start` runs it (graphql-js skips its development checks)
      ...fanoutEnv(token.sha256),
    });
    let loaded: LoadedDataset | undefined;
    const reports: ScenarioReport[] = [];
    const pageSizes: BenchReport['pageSizes'] = [];
    const fanout: BenchReport['fanout'] = [];
    const search: BenchReport['search'] = [];
    let media: BenchReport['media'];
    const targets: TargetCheck[] = [];
    let engineScenario: EngineScenarioReport | undefined;

    // ------------------------------------------------------------ the engine scenario
    if (wanted('engine')) {
      log(
        `\nengine scenario: ${opts.engineSizes.small}, ${opts.engineSizes.large}, ${opts.engineSizes.full} meetings (${elapsed()})`,
      );
      const result = await runEngineScenario(
        {
          ...opts.engineSizes,
          seed: opts.dataset.seed,
          connections: opts.connections,
          duration: opts.duration,
          warmup: opts.warmup,
        },
        serviceEnv,
        log,
      );
      engineScenario = result.report;
      targets.push(...result.targets);
      problems.push(...result.problems);
    }

    // The servers' scenarios, unless only the engine scenario was asked for.
    if (!opts.only || [...opts.only].some((id) => id !== 'engine')) {
      // ------------------------------------------------------------ engine and dataset
      const engine = Child.start(
        'engine',
        'bench/engine.ts',
        {},
        {
          maxOldSpaceMb: 12_288,
          nodeArgs: [
            ...engineNodeArgs,
            ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(opts.profile, 'engine')}`] : []),
          ],
        },
      );
      children.push(engine);
      const { uri } = (await engine.ready) as { uri: string };
      log(`engine: ${uri} (pid ${engine.pid})`);
      const seeding = await connectDatabase(uri, 'bench');
      let lastPrinted = 0;
      loaded = await loadBenchDataset(seeding.collections, opts.dataset, (done) => {
        if (done - lastPrinted >= 1000 || (done === opts.dataset.meetings && done !== lastPrinted)) {
          lastPrinted = done;
          log(`  seeded ${done}/${opts.dataset.meetings} meetings (${elapsed()})`);
        }
      });
      await seeding.close();
      log(
        `dataset: ${loaded.meetings} meetings, ${loaded.transcriptEntries} transcript lines, in ${loaded.seconds.toFixed(1)} s; ` +
          `longest transcript ${loaded.longest.entries} lines (recording ${loaded.longest.recordingId}); engine RSS ${fixedMb(engine.rss())} MB`,
      );

      // ------------------------------------------------------------ the three servers
      const env = serviceEnv(uri, 'bench');
      const profile = (name: string) =>
        opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(opts.profile, name)}`] : [];
      const service = Child.start('service', 'bench/service.ts', env, {
        quiet: true,
        nodeArgs: profile('service'),
      });
      const direct = Child.start(
        'direct',
        'bench/baselines.ts',
        { ...env, LOG_LEVEL: 'silent' },
        { nodeArgs: profile('direct') },
      );
      const ceiling = Child.start('ceiling', 'bench/ceiling.ts', {});
      children.push(service, direct, ceiling);
      const serviceInfo = (await service.ready) as { url: string; appUrl: string };
      const directInfo = (await direct.ready) as { url: string };
      const ceilingInfo = (await ceiling.ready) as { url: string };
      log(`service: ${serviceInfo.url} (pid ${service.pid})`);
      log(`direct:  ${directInfo.url} (pid ${direct.pid}); ceiling: ${ceilingInfo.url} (pid ${ceiling.pid})`);
      const servers: Partial<Record<Target, { url: string; child: Child }>> = {
        service: { url: serviceInfo.url, child: service },
        direct: { url: directInfo.url, child: direct },
        ceiling: { url: ceilingInfo.url, child: ceiling },
      };
      // The peers serve only the GraphQL scenario's query.
      for (const peer of opts.peers && wanted('graphql') ? peers : []) {
        const child = Child.start(peer, 'bench/peers.ts', { ...env, BENCH_PEER: peer }, { quiet: true });
        children.push(child);
        const { url } = (await child.ready) as { url: string };
        servers[peer] = { url, child };
        log(`${peer}: ${url} (pid ${child.pid})`);
      }
      const server = (target: Target) => servers[target]!;

      // ------------------------------------------------------------ the HTTP scenarios
      const auth = { 'x-api-key': benchAdmin.apiKey };
      const everyInclude = Object.keys(allIncludes)
        .map((name) => `${name}=true`)
        .join('&');
      const restList = (limit: number): LoadRequest => ({
        method: 'GET',
        path: `/external/v1/meetings?limit=${limit}`,
        headers: auth,
      });
      const restInclude = (limit: number): LoadRequest => ({
        method: 'GET',
        path: `/external/v1/meetings?limit=${limit}&${everyInclude}`,
        headers: auth,
      });
      const scenarios: Scenario[] = [
        {
          id: 'rest-list',
          name: 'REST GET /meetings',
          request: restList(10),
        },
        { id: 'rest-include', name: 'REST GET /meetings, every include', request: restInclude(10) },
        {
          id: 'graphql',
          name: 'GraphQL meetings, same fields',
          targets: ['service', 'direct', 'ceiling', ...(opts.peers ? peers : [])],
          request: {
            method: 'POST',
            path: '/graphql',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ query: benchGraphQLQuery, variables: { first: 10 } }),
          },
        },
        {
          id: 'transcript',
          name: `REST transcript (${loaded.longest.entries} lines)`,
          request: {
            method: 'GET',
            path: `/external/v1/recordings/${loaded.longest.recordingId}/transcript`,
            headers: auth,
          },
        },
      ];
      // The large answers again as a browser or SDK asks for them: compressed (brotli, quality 4).
      const brotli = (s: Scenario): Scenario => ({
        id: `${s.id}-br`,
        name: `${s.name}, Accept-Encoding: br`,
        request: { ...s.request, headers: { ...s.request.headers, 'accept-encoding': 'br' } },
        targets: ['service', 'direct'],
      });
      const withBrotli = scenarios.flatMap((s) =>
        s.id === 'rest-include' || s.id === 'graphql' ? [s, brotli(s)] : [s],
      );
      const selected = withBrotli.filter((s) => wanted(s.id) || wanted(s.id.replace(/-br$/, '')));

      /** Waits until the child has sent no MongoDB command for 300 ms (at most 10 s). */
      async function settled(child: Child): Promise<void> {
        let last = (await child.stats()).commands;
        for (let i = 0; i < 33; i++) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          const now = (await child.stats()).commands;
          if (now === last) return;
          last = now;
        }
      }

      /** Exact commands per request: sequential requests between two counter readings. */
      async function commandsPerRequest(
        target: Target,
        request: LoadRequest,
        times = 3,
      ): Promise<{ perRequest: number; byName: Record<string, number>; forcedGetMores: number } | null> {
        if (target === 'ceiling') return null;
        const { url, child } = server(target);
        // Counted warm, as a client calling repeatedly sees it: the first call of a while also
        // recognises the key and reads the names the page shows, which the next calls reuse.
        await fetchOnce(url, request);
        const before = await child.stats();
        for (let i = 0; i < times; i++) {
          const answer = await fetchOnce(url, request);
          if (answer.status !== 200)
            throw new Error(`${target} answered ${answer.status} to ${request.path}`);
        }
        const after = await child.stats();
        const byName: Record<string, number> = {};
        for (const [name, n] of Object.entries(after.commandsByName))
          if (n !== (before.commandsByName[name] ?? 0))
            byName[name] = (n - (before.commandsByName[name] ?? 0)) / times;
        return {
          perRequest: (after.commands - before.commands) / times,
          byName,
          forcedGetMores: (after.forcedGetMores - before.forcedGetMores) / times,
        };
      }

      /** One round of load against one server, and what it cost the server and the engine. */
      async function measureRound(target: Target, request: LoadRequest): Promise<RoundFigures> {
        const { url, child } = server(target);
        const peak = sampleRss([child.pid]);
        const [serverBefore, engineBefore] = await Promise.all([child.stats(), engine.stats()]);
        const load = await runLoad(url, request, {
          connections: opts.connections,
          seconds: opts.duration / opts.rounds,
        });
        const [serverAfter, engineAfter] = await Promise.all([child.stats(), engine.stats()]);
        const [peakRss] = peak();
        // wrk stops with requests still in flight: let them finish before the next server's round.
        await settled(child);
        const perRequest = (before: number, after: number) =>
          load.requests > 0 ? (after - before) / load.requests : 0;
        return {
          rps: load.rps,
          p50: load.p50,
          p99: load.p99,
          requests: load.requests,
          serverCpuMs: perRequest(serverBefore.cpuMs, serverAfter.cpuMs),
          engineCpuMs: perRequest(engineBefore.cpuMs, engineAfter.cpuMs),
          loadAverage: loadavg()[0]!,
          peakRssMb: mb(peakRss!),
          errorStatus: load.errorStatus,
          errors: load.errors,
          timeouts: load.timeouts,
          wireBytesPerRequest: load.wireBytesPerRequest,
        };
      }

      for (const scenario of selected) {
        log(`\n${scenario.name} (${elapsed()})`);
        const fromService = await fetchOnce(server('service').url, scenario.request);
        const fromDirect = await fetchOnce(server('direct').url, scenario.request);
        if (fromService.status !== 200)
          throw new Error(
            `the service answered ${fromService.status}: ${fromService.body.toString().slice(0, 500)}`,
          );
        let equality: string;
        if (fromService.body.equals(fromDirect.body)) equality = 'byte-identical';
        else {
          const difference = firstDifference(
            JSON.parse(fromService.body.toString()),
            JSON.parse(fromDirect.body.toString()),
          );
          equality =
            difference === '$: key order' || difference === ''
              ? 'deep-equal (key order differs)'
              : `MISMATCH at ${difference}`;
          if (equality.startsWith('MISMATCH'))
            problems.push(
              `${scenario.name}: the direct baseline does not answer like the service (${difference}); its ratio is not comparable`,
            );
        }
        log(`  ${fromService.body.length} bytes; direct vs service: ${equality}`);
        for (const peer of (scenario.targets ?? []).filter((t) => (peers as readonly Target[]).includes(t))) {
          const answer = await fetchOnce(server(peer).url, scenario.request);
          const difference =
            answer.status === 200
              ? firstDifference(JSON.parse(fromService.body.toString()), JSON.parse(answer.body.toString()))
              : `status ${answer.status}: ${answer.body.toString().slice(0, 300)}`;
          if (difference && difference !== '$: key order')
            problems.push(`${scenario.name}: ${peer} does not answer like the service (${difference})`);
          log(
            `  ${peer} vs service: ${difference ? (difference === '$: key order' ? 'deep-equal (key order differs)' : `MISMATCH at ${difference}`) : 'deep-equal'}`,
          );
        }
        if (opts.dump) {
          mkdirSync(opts.dump, { recursive: true });
          writeFileSync(join(opts.dump, `${scenario.id}.service.json`), fromService.body);
          writeFileSync(join(opts.dump, `${scenario.id}.direct.json`), fromDirect.body);
        }
        const canned: CannedResponse = {
          key: `${scenario.request.method} ${scenario.request.path}`,
          status: fromService.status,
          headers: { 'content-type': fromService.contentType },
          bodyBase64: fromService.body.toString('base64'),
        };
        await ceiling.call('set', canned);

        const serving = scenario.targets ?? (['service', 'direct', 'ceiling'] as const);
        if (opts.warmup > 0)
          for (const target of serving)
            await runLoad(server(target).url, scenario.request, {
              connections: opts.connections,
              seconds: opts.warmup,
            });
        const rounds = new Map<Target, RoundFigures[]>(serving.map((target) => [target, []]));
        for (let round = 1; round <= opts.rounds; round++)
          for (const target of serving) {
            const figures = await measureRound(target, scenario.request);
            rounds.get(target)!.push(figures);
            log(
              `  round ${round} ${target.padEnd(8)} ${figures.rps.toFixed(1).padStart(8)} req/s  p50 ${figures.p50.toFixed(1)} ms  p99 ${figures.p99.toFixed(1)} ms  ` +
                `peak RSS ${figures.peakRssMb.toFixed(0)} MB  CPU/req: server ${figures.serverCpuMs.toFixed(1)} ms, engine ${figures.engineCpuMs.toFixed(1)} ms  ` +
                `wire ${mb(figures.wireBytesPerRequest).toFixed(2)} MB/resp  (load average ${figures.loadAverage.toFixed(1)})`,
            );
          }
        const results: Partial<Record<Target, Measurement>> = {};
        for (const target of serving) {
          const median = medianRound(rounds.get(target)!);
          const commands = await commandsPerRequest(target, scenario.request);
          results[target] = {
            ...median,
            commandsPerRequest: commands?.perRequest ?? null,
            commandsByName: commands?.byName ?? null,
            rounds: rounds.get(target)!,
          };
          const failed = median.errorStatus + median.errors + median.timeouts;
          if (failed > 0)
            problems.push(
              `${scenario.name} / ${target}: ${failed} requests failed (${median.errorStatus} with status >= 400, ${median.errors} socket errors, ${median.timeouts} timeouts)`,
            );
          log(
            `  median   ${target.padEnd(8)} ${median.rps.toFixed(1).padStart(8)} req/s  p50 ${median.p50.toFixed(1)} ms  p99 ${median.p99.toFixed(1)} ms  ` +
              `${commands === null ? '-' : commands.perRequest.toFixed(1)} cmds/req  peak RSS ${median.peakRssMb.toFixed(0)} MB (highest round)`,
          );
        }
        reports.push({
          id: scenario.id,
          name: scenario.name,
          request: { method: scenario.request.method, path: scenario.request.path },
          responseBytes: fromService.body.length,
          equality,
          results,
        });
      }

      // ------------------------------------------------------------ commands per request by page size
      const pages: [PageSizes['page'], string, (limit: number) => LoadRequest][] = [
        ['without content', 'rest-list', restList],
        ['every include', 'rest-include', restInclude],
      ];
      for (const [page, id, request] of pages.filter(([, id]) => wanted(id))) {
        log(`\ncommands per request, REST page ${page}, page sizes 10 and 100 (${elapsed()})`);
        for (const target of ['service', 'direct'] as const) {
          const limit10 = (await commandsPerRequest(target, request(10), 5))!;
          // 100 pages with every include are large (tens of MB): fewer probes.
          const limit100 = (await commandsPerRequest(target, request(100), id === 'rest-include' ? 2 : 5))!;
          pageSizes.push({
            target,
            page,
            limit10: limit10.perRequest,
            limit100: limit100.perRequest,
            getMore10: limit10.byName.getMore ?? 0,
            getMore100: limit100.byName.getMore ?? 0,
            forcedGetMore10: limit10.forcedGetMores,
            forcedGetMore100: limit100.forcedGetMores,
            byName10: limit10.byName,
            byName100: limit100.byName,
          });
          log(
            `  ${target.padEnd(8)} limit 10: ${limit10.perRequest} ${JSON.stringify(limit10.byName)}  ` +
              `limit 100: ${limit100.perRequest} ${JSON.stringify(limit100.byName)} (${limit100.forcedGetMores} getMore forced by the 16 MiB reply limit)`,
          );
        }
      }

      // ------------------------------------------------------------ search
      if (wanted('search')) {
        log(`\nsearch, one request at a time (${elapsed()})`);
        const shape = { minEntries: opts.dataset.minEntries, maxEntries: opts.dataset.maxEntries };
        const index = planted.index(opts.dataset.meetings);
        const meeting = generateMeeting(opts.dataset.seed, index, opts.dataset.meetings, shape);
        const transcript = meeting.transcript!;
        const measured = await runSearchScenario(server('service').url, benchAdmin.apiKey, {
          phrase: planted.phrase,
          recordingId: FIRST_RECORDING_ID + index,
          timestamp: transcript[planted.line(transcript.length)]!.timestamp,
        });
        search.push(...measured.results);
        problems.push(...measured.problems);
        for (const r of measured.results)
          log(
            `  ${r.name} (${r.search}, ${r.orderBy}): ${r.found} found, p50 ${r.p50.toFixed(1)} ms, p90 ${r.p90.toFixed(1)} ms`,
          );
      }

      // ------------------------------------------------------------ media
      if (wanted('media')) {
        log(
          `\nmedia: a ${opts.media.fileMb} MB file to ${opts.media.clients} clients at once (${elapsed()})`,
        );
        const measured = await runMediaScenario({
          serviceUrl: server('service').url,
          servicePid: server('service').child.pid,
          engineUri: uri,
          db: 'bench',
          apiKey: benchAdmin.apiKey,
          recordingId: FIRST_RECORDING_ID,
          ...opts.media,
        });
        media = measured.result;
        problems.push(...measured.problems);
        log(
          `  ${media.seconds.toFixed(1)} s, ${media.mbPerSecond.toFixed(0)} MB/s in all; service RSS ${media.rssBeforeMb.toFixed(0)} MB, +${media.rssGrowthMb.toFixed(1)} MB at most`,
        );
      }

      // ------------------------------------------------------------ webhook fan-out
      const missing =
        wanted('fanout') && opts.fanout.length > 0
          ? await missingMachinery(server('service').url, benchAdmin.apiKey)
          : null;
      for (const phase of wanted('fanout') ? opts.fanout : []) {
        const label = `webhook fan-out, ${phase.phase}`;
        log(`\n${label}${phase.rate > 0 ? ` at ${phase.rate} recordings/s` : ''} (${elapsed()})`);
        if (missing) {
          log(`  skipped: webhook machinery not present (${missing})`);
          fanout.push({
            ...skippedFanout(`webhook machinery not present (${missing})`, phase),
            phase: phase.phase,
            rate: phase.rate,
            peakRssMb: 0,
            commandsPerIngest: null,
            commandsPerDelivery: null,
          });
          continue;
        }
        const before = await service.stats();
        const peak = sampleRss([service.pid]);
        const observer = await connectDatabase(uri, 'bench');
        const outboxOf = async (recordingIds: number[]) => {
          const rows = await observer.collections.outbox
            .aggregate<{ _id: string; n: number }>([
              { $match: { kind: 'webhook_event', recordingId: { $in: recordingIds } } },
              { $group: { _id: '$status', n: { $sum: 1 } } },
            ])
            .toArray();
          return Object.fromEntries(rows.map((r) => [r._id, r.n]));
        };
        const result = await runFanout(
          server('service').url,
          serviceInfo.appUrl,
          token.token,
          phase,
          log,
          outboxOf,
        ).finally(() => observer.close());
        const [peakRss] = peak();
        const after = await service.stats();
        const appCommands = after.commands - before.commands;
        const allCommands = after.allCommands - before.allCommands;
        fanout.push({
          ...result,
          phase: phase.phase,
          rate: phase.rate,
          peakRssMb: mb(peakRss!),
          commandsPerIngest: result.recordings > 0 ? appCommands / result.recordings : null,
          commandsPerDelivery:
            result.delivered > 0 && allCommands > appCommands
              ? (allCommands - appCommands) / result.delivered
              : null,
        });
        log(
          `  ${result.delivered}/${result.expected} delivered (${result.late} still pending at the deadline, ${result.lost} lost; outbox ${JSON.stringify(result.outbox)}), ` +
            `${result.deliveriesPerSecond.toFixed(1)} deliveries/s, p50 ${result.p50.toFixed(0)} ms, p99 ${result.censored > 0 ? '>= ' : ''}${result.p99.toFixed(0)} ms`,
        );
        if (result.ingested < result.recordings)
          problems.push(
            `${label}: only ${result.ingested} of ${result.recordings} recordings were ingested within ${phase.timeoutSeconds} s`,
          );
        if (result.late > 0)
          problems.push(`${label}: ${result.late} events were still pending after ${phase.timeoutSeconds} s`);
        if (result.lost > 0) problems.push(`${label}: ${result.lost} of ${result.expected} events were lost`);
        if (result.duplicates > 0)
          problems.push(`${label}: ${result.duplicates} events arrived more than once`);
        if (result.badSignatures > 0)
          problems.push(`${label}: ${result.badSignatures} bad signatures or bodies`);
        if (result.ingestErrors > 0) problems.push(`${label}: ${result.ingestErrors} ingestions failed`);
      }
    }

    // ------------------------------------------------------------ targets and report
    targets.push(...serviceTargets({ scenarios: reports, pageSizes, fanout, search, media }));

    const report: BenchReport = {
      version: 1,
      startedAt,
      seconds: (performance.now() - started) / 1000,
      machine: {
        node: process.version,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? '',
        totalMemGb: Math.round(totalmem() / 2 ** 30),
        platform: platform(),
        loadAverageAtStart,
      },
      options: {
        connections: opts.connections,
        duration: opts.duration,
        rounds: opts.rounds,
        warmup: opts.warmup,
        loadGenerator: 'wrk, 1 thread, in its own process',
        logLevel: opts.logLevel,
        fanout: opts.fanout,
      },
      dataset: { ...opts.dataset, ...loaded },
      scenarios: reports,
      pageSizes,
      fanout,
      search,
      media,
      engine: engineScenario,
      targets,
      problems,
    };
    mkdirSync(dirname(opts.out), { recursive: true });
    writeFileSync(opts.out, `${JSON.stringify(report, null, 2)}\n`);
    log(
      `\n${opts.connections} connections (wrk); each server measured in ${opts.rounds} rounds of ${Math.max(1, Math.round(opts.duration / opts.rounds))} s, ` +
        `taking turns, after ${opts.warmup} s of warm-up: the figures are each server's median round; ` +
        `${opts.dataset.meetings} meetings, transcripts of ${opts.dataset.minEntries}-${opts.dataset.maxEntries} lines; ` +
        `${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}\n`,
    );
    log(formatReport(report));
    log(`\nJSON: ${opts.out}   (finished in ${elapsed()})`);
    const failed = targets.filter((t) => t.status === 'FAIL').length;
    if (failed > 0) log(`${failed} target${failed === 1 ? '' : 's'} failed`);
    return problems.length > 0 || failed > 0 ? 1 : 0;
  } finally {
    // The servers first, then the engine they use.
    for (const child of children.reverse()) await child.stop().catch(() => {});
  }
}

function fixedMb(bytes: number | null): string {
  return bytes === null ? '?' : mb(bytes).toFixed(0);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
