/**
 * The bench's command line (`npm run bench -- --help`): its usage text, and the options parsed and
 * checked from it, with the fan-out phases laid out one after another.
 */
import { parseArgs } from 'node:util';
import { type DatasetOptions, defaultDatasetOptions } from './dataset.js';
import { defaultEngineSizes } from './engine-scenario.js';
import type { FanoutOptions, FanoutPhase } from './fanout.js';
import { peers } from './report.js';

export const usage = `Usage: npm run bench -- [options]

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
  --only IDS              comma-separated scenario ids: rest-list, rest-include, graphql, transcript, defer, search, media, fanout, engine, oauth, mcp, changes
                          (rest-include and graphql also run compressed, with Accept-Encoding: br
                          as <id>-br and as browsers send it, gzip and br alike, as <id>-browser,
                          against the service and the direct handler only: the ceiling serves
                          identity bytes; or name those ids alone)
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

export function benchOptions() {
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

export type BenchOptions = ReturnType<typeof benchOptions>;
