/**
 * The soak's command line (`npm run soak -- --help`): its defaults, its usage text, and the options
 * parsed and checked from it.
 */
import { parseArgs } from 'node:util';
import { benchUsers } from '../../bench/dataset.js';

const defaults = {
  duration: 60,
  connections: 4,
  meetings: 1000,
  minEntries: 20,
  maxEntries: 300,
  seed: 424242,
  ingestRate: 2,
  ingestEntries: 20,
  webhooks: 5,
  drain: 60,
  rssTolerance: 20,
  logLevel: 'warn',
};

export const usage = `Usage: npm run soak -- [options]

Mixed REST and GraphQL load while recordings are ingested and their webhooks delivered; then
checks: no 5xx, no lost webhook event, service RSS at the end within --rss-tolerance of the RSS
after warm-up. Exit 0: pass; 1: a check failed; 2: the run broke.

Load
  --duration S        seconds of load, warm-up included (default ${defaults.duration})
  --warmup S          warm-up at the start of the load (default 15% of --duration, at least 10 s,
                      at most half of it)
  --connections N     concurrent connections of the load (default ${defaults.connections})
Dataset
  --meetings N        meetings seeded before the load (default ${defaults.meetings})
  --min-entries N     shortest seeded transcript, lines (default ${defaults.minEntries})
  --max-entries N     longest seeded transcript, lines (default ${defaults.maxEntries})
  --seed N            PRNG seed (default ${defaults.seed})
Webhooks
  --ingest-rate N     recordings ingested per second during the load, through ingestRecording
                      (default ${defaults.ingestRate}; 0: none)
  --ingest-entries N  transcript lines of each ingested recording (default ${defaults.ingestEntries})
  --webhooks N        webhooks (one loopback receiver each) every ingested recording matches
                      (default ${defaults.webhooks}, at most ${benchUsers.length - 1})
  --drain S           after the load, how long to wait for the remaining deliveries (default ${defaults.drain})
Checks and output
  --rss-tolerance P   allowed RSS growth, percent (default ${defaults.rssTolerance})
  --log-level L       the service's LOG_LEVEL (default ${defaults.logLevel})
  --service-log FILE  where the service's log goes (default bench/results/soak-<time>.service.log);
                      its warnings and errors are summarised at the end
  -h, --help          this text
`;

export function soakOptions() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      meetings: { type: 'string' },
      'min-entries': { type: 'string' },
      'max-entries': { type: 'string' },
      seed: { type: 'string' },
      'ingest-rate': { type: 'string' },
      'ingest-entries': { type: 'string' },
      webhooks: { type: 'string' },
      drain: { type: 'string' },
      'rss-tolerance': { type: 'string' },
      'log-level': { type: 'string', default: defaults.logLevel },
      'service-log': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const num = (name: keyof typeof values, fallback: number, min = 0): number => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min}`);
    return n;
  };
  const duration = num('duration', defaults.duration, 2);
  const warmup = num('warmup', Math.min(duration / 2, Math.max(10, Math.round(duration * 0.15))), 1);
  if (warmup >= duration) throw new Error('--warmup must be shorter than --duration');
  const minEntries = num('min-entries', defaults.minEntries, 1);
  const maxEntries = num('max-entries', defaults.maxEntries, 1);
  if (maxEntries < minEntries) throw new Error('--max-entries must be at least --min-entries');
  const webhooks = num('webhooks', defaults.webhooks, 1);
  if (webhooks > benchUsers.length - 1) throw new Error(`--webhooks is at most ${benchUsers.length - 1}`);
  return {
    help: values.help!,
    duration,
    warmup,
    connections: Math.floor(num('connections', defaults.connections, 1)),
    dataset: {
      meetings: Math.floor(num('meetings', defaults.meetings, 10)),
      minEntries,
      maxEntries,
      seed: num('seed', defaults.seed),
    },
    ingestRate: num('ingest-rate', defaults.ingestRate),
    ingestEntries: Math.floor(num('ingest-entries', defaults.ingestEntries, 1)),
    webhooks: Math.floor(webhooks),
    drain: num('drain', defaults.drain),
    rssTolerance: num('rss-tolerance', defaults.rssTolerance),
    logLevel: values['log-level']!,
    serviceLog:
      values['service-log'] ??
      `bench/results/soak-${new Date().toISOString().replace(/[:.]/g, '-')}.service.log`,
  };
}

export type SoakOptions = ReturnType<typeof soakOptions>;
