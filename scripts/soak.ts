/**
 * `npm run soak`: mixed REST and GraphQL load on the service for a while (default 60 s) while
 * recordings are ingested at a steady pace, so webhooks are delivered throughout; then checks that
 * no response was a 5xx, that every event of every ingested recording reached its receiver with a
 * valid Standard Webhooks signature, and that the service's RSS at the end is within 20% of its RSS
 * after the warm-up. Exit 0 when every check passes, 1 when one fails (with the reasons), 2 when the
 * run itself broke. Not part of `npm test`.
 *
 * It reuses the benchmark's machinery: the embedded engine and the service in their own processes
 * (bench/ipc.ts, bench/engine.ts, bench/service.ts), the generated dataset (bench/dataset.ts), the
 * loopback receivers and mutations of the webhook fan-out (bench/fanout.ts).
 *
 *   npm run soak -- --help
 */
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { benchAdmin, benchUsers, generateMeeting, loadBenchDataset } from '../bench/dataset.js';
import { allIncludes, benchGraphQLQuery } from '../bench/direct.js';
import {
  createWebhookMutation,
  fanoutEnv,
  graphql,
  ingestMutation,
  missingMachinery,
  Receivers,
  serviceToken,
} from '../bench/fanout.js';
import { Child, sampleRss } from '../bench/ipc.js';
import { percentile } from '../bench/load.js';
import { connectDatabase } from '../src/db/connection.js';

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

const usage = `Usage: npm run soak -- [options]

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

function options() {
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

type Options = ReturnType<typeof options>;

const log = (line: string) => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

// ---------------------------------------------------------------- the request mix

/** Per autocannon connection: what a request learnt for the next one (the next page's cursor). */
interface MixContext {
  cursor?: string | null;
}

interface MixEntry {
  /** Short name in the report. */
  kind: string;
  /** What a correct service answers. */
  expect: number;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The path of this request, when it depends on chance or on the previous answer. */
  dynamicPath?: (context: MixContext) => string;
  /** Reads what the next request needs from the answer. */
  read?: (body: string, context: MixContext) => void;
}

/** Status counts by kind, and the first few bodies of unexpected answers (for the report). */
class Tally {
  readonly byKind = new Map<string, { expect: number; statuses: Map<number, number> }>();
  readonly samples: string[] = [];

  count(kind: string, expect: number, status: number, body: string): void {
    let row = this.byKind.get(kind);
    if (!row) {
      row = { expect, statuses: new Map() };
      this.byKind.set(kind, row);
    }
    row.statuses.set(status, (row.statuses.get(status) ?? 0) + 1);
    // The first answer of each unexpected (kind, status).
    if (status !== expect && row.statuses.get(status) === 1 && this.samples.length < 10)
      this.samples.push(
        `${kind}: ${status} (expected ${expect}): ${body.slice(0, 300).replace(/\s+/g, ' ')}`,
      );
  }

  total(predicate: (status: number, expect: number) => boolean): number {
    let n = 0;
    for (const { expect, statuses } of this.byKind.values())
      for (const [status, count] of statuses) if (predicate(status, expect)) n += count;
    return n;
  }
}

const gqlBody = (query: string, variables: Record<string, unknown> = {}) =>
  JSON.stringify({ query, variables });

/** The mix: every connection runs through it in order, again and again. */
function requestMix(recordings: number[], meetingNodeId: string): MixEntry[] {
  const admin = { 'x-api-key': benchAdmin.apiKey };
  const member = { 'x-api-key': benchUsers[2]!.apiKey }; // sees their team's shared meetings only
  const owner = { 'x-api-key': benchUsers[1]!.apiKey }; // the recorder of ingested recordings, owns webhook 0
  // As a current GraphQL client sends it: errors then come with their 4xx status (GraphQL over HTTP).
  const json = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
  };
  const everyInclude = Object.keys(allIncludes)
    .map((k) => `include_${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}=true`)
    .join('&');
  const randomRecording = () => recordings[Math.floor(Math.random() * recordings.length)]!;
  const rest = '/external/v1';
  const get = (kind: string, path: string, headers: Record<string, string>, expect = 200): MixEntry => ({
    kind,
    expect,
    method: 'GET',
    path: `${rest}${path}`,
    headers,
  });
  const gql = (
    kind: string,
    headers: Record<string, string>,
    query: string,
    variables: Record<string, unknown> = {},
    expect = 200,
  ): MixEntry => ({
    kind,
    expect,
    method: 'POST',
    path: '/graphql',
    headers: { ...headers, ...json },
    body: gqlBody(query, variables),
  });
  return [
    get('rest meetings', '/meetings?limit=10', admin),
    {
      ...get('rest meetings page 1', '/meetings?limit=10&include_summary=true', member),
      read: (body, context) => {
        try {
          context.cursor = (JSON.parse(body) as { next_cursor: string | null }).next_cursor;
        } catch {
          context.cursor = null;
        }
      },
    },
    {
      ...get('rest meetings page 2', '/meetings?limit=10&include_summary=true', member),
      dynamicPath: (context) =>
        `${rest}/meetings?limit=10&include_summary=true${context.cursor ? `&cursor=${encodeURIComponent(context.cursor)}` : ''}`,
    },
    gql('gql meetings, content', admin, benchGraphQLQuery, { first: 10 }),
    get('rest meetings, every include', `/meetings?limit=5&${everyInclude}`, admin),
    get(
      'rest meetings, filters',
      '/meetings?limit=20&meeting_type=Product%20Demo&calendar_invitees_domains_type=one_or_more_external' +
        '&created_after=2026-01-01T00:00:00Z&include_action_items=true&include_crm_matches=true',
      admin,
    ),
    get(
      'rest meetings, array filters',
      '/meetings?teams[]=Sales&teams[]=Support&calendar_invitees_domains[]=customer3.test&include_highlights=true',
      member,
    ),
    get(
      'rest meetings, recorded_by',
      `/meetings?recorded_by[]=${encodeURIComponent(benchUsers[1]!.email)}&limit=25`,
      admin,
    ),
    {
      ...get('rest transcript', '/recordings/0/transcript', admin),
      dynamicPath: () => `${rest}/recordings/${randomRecording()}/transcript`,
    },
    {
      ...get('rest summary', '/recordings/0/summary', admin),
      dynamicPath: () => `${rest}/recordings/${randomRecording()}/summary`,
    },
    get('rest teams', '/teams', admin),
    get('rest team_members', '/team_members?team=Sales&limit=50', member),
    get('rest users', '/users?limit=50', admin),
    get('rest meeting_types', '/meeting_types', member),
    gql(
      'gql meetings, member content',
      member,
      /* GraphQL */ `query SoakMember($first: Int!) {
        meetings(first: $first, filter: { domainsType: ONE_OR_MORE_EXTERNAL }) {
          edges { node { id recordingId title sharedWith recordedBy { email team }
            transcript { speaker { displayName } text timestamp } defaultSummary { markdownFormatted }
            actionItems { description completed } highlights { type text } } }
          pageInfo { hasNextPage endCursor }
        }
      }`,
      { first: 5 },
    ),
    gql(
      'gql node',
      admin,
      /* GraphQL */ `query SoakNode($id: ID!) {
        node(id: $id) { id ... on Meeting { recordingId title recordedBy { name email } highlights { text }
          crmMatches { contacts { email } companies { name } deals { name amount } error } } }
      }`,
      { id: meetingNodeId },
    ),
    gql(
      'gql viewer',
      member,
      /* GraphQL */ `{ viewer { email name team { name }
        permissions { settingsAccess { level } viewAccess { level teams { name } } } } }`,
    ),
    gql(
      'gql webhooks, deliveries',
      owner,
      /* GraphQL */ `{ webhooks { id enabled url deliveries(first: 5) { edges { node {
        id recordingId status attemptCount attempts { responseStatus outcome durationMs } } } } } }`,
    ),
    // Requests a correct service refuses.
    get('400 limit=0', '/meetings?limit=0', admin, 400),
    get('400 bad created_after', '/meetings?created_after=yesterday', admin, 400),
    get('400 bad include flag', '/meetings?include_transcript=yes', admin, 400),
    get('400 bad recording id', '/recordings/abc/transcript', admin, 400),
    get('404 unknown recording', '/recordings/99999999/summary', admin, 404),
    get('401 no key', '/meetings', {}, 401),
    get('401 unknown key', '/teams', { 'x-api-key': 'mk_not_a_key_0000000000000000' }, 401),
    get('403 users as a member', '/users', member, 403),
    { ...get('405 DELETE /meetings', '/meetings', admin, 405), method: 'DELETE' },
    gql('400 gql syntax', admin, '{ meetings(first: ', {}, 400),
    gql('400 gql unknown field', admin, '{ viewer { email salary } }', {}, 400),
    // The document of 'gql meetings, content': whatever the server caches or compiles for it is what refuses this.
    gql('400 gql bad variable', admin, benchGraphQLQuery, { first: 'ten' }, 400),
  ];
}

/** The recording ids the admin may see (seeded meetings shared only with individuals are not among them). */
async function visibleRecordings(url: string): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await fetch(
      `${url}/external/v1/meetings?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { headers: { 'x-api-key': benchAdmin.apiKey } },
    );
    if (res.status !== 200) throw new Error(`listing meetings answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { next_cursor: string | null; items: { recording_id: number }[] };
    ids.push(...page.items.map((m) => m.recording_id));
    cursor = page.next_cursor;
  } while (cursor);
  if (ids.length === 0) throw new Error('the admin sees no meeting');
  return ids;
}

/** One pass through the mix with fetch, before the load: every kind answers once (a wrong expectation shows at once). */
async function preflight(url: string, mix: MixEntry[], tally: Tally): Promise<void> {
  const context: MixContext = {};
  for (const entry of mix) {
    const res = await fetch(`${url}${entry.dynamicPath?.(context) ?? entry.path}`, {
      method: entry.method,
      headers: entry.headers,
      body: entry.body,
    });
    const body = await res.text();
    tally.count(entry.kind, entry.expect, res.status, body);
    entry.read?.(body, context);
  }
}

interface LoadSummary {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
}

/** autocannon through the mix for `seconds`; every answer is counted by kind and status. */
async function runMix(
  url: string,
  mix: MixEntry[],
  seconds: number,
  connections: number,
  tally: Tally,
): Promise<LoadSummary> {
  const requests: autocannon.Request[] = mix.map((entry) => ({
    method: entry.method,
    path: entry.path,
    headers: entry.headers,
    ...(entry.body === undefined ? {} : { body: entry.body }),
    // Both receive the connection's context, which autocannon empties each time the mix starts over.
    ...(entry.dynamicPath
      ? {
          setupRequest: (request: autocannon.Request, context: object) => ({
            ...request,
            path: entry.dynamicPath!(context),
          }),
        }
      : {}),
    onResponse: (status: number, body: string, context: object) => {
      tally.count(entry.kind, entry.expect, status, body);
      entry.read?.(body, context as MixContext);
    },
  }));
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 30,
    requests,
  });
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

// ---------------------------------------------------------------- ingestion

/**
 * Ingests generated recordings through the `ingestRecording` mutation (the service token), paced at
 * `rate` a second, until stopped. Each is recorded by user 1 and shared with every team, so it
 * matches every webhook registered below.
 */
class Ingester {
  /** Recording id -> ingestion start (performance.now()) and events queued, for those that succeeded. */
  readonly ingested = new Map<number, { at: number; queued: number }>();
  readonly failures: string[] = [];
  attempted = 0;
  private stopped = false;
  private lanes: Promise<void>[] = [];

  constructor(
    private readonly appUrl: string,
    private readonly token: string,
    private readonly opts: Options,
    private readonly tally: Tally,
  ) {}

  start(): void {
    if (this.opts.ingestRate <= 0) return;
    const t0 = performance.now();
    let next = 0;
    const first = this.opts.dataset.meetings;
    const lane = async () => {
      while (!this.stopped) {
        const k = next++;
        const wait = t0 + (k * 1000) / this.opts.ingestRate - performance.now();
        if (wait > 0) await sleep(wait);
        if (this.stopped) return;
        const recording = generateMeeting(this.opts.dataset.seed + 1, first + k, first, {
          minEntries: this.opts.ingestEntries,
          maxEntries: this.opts.ingestEntries,
          recorder: benchUsers[1]!,
          sharing: { users: [], teams: [], all_teams: true },
          startMs: Date.parse('2026-10-02T00:00:00Z') + k * 60_000,
        });
        await this.ingest(recording.recording_id, JSON.stringify(recording));
      }
    };
    // Two lanes, so one slow call does not hold the pace back.
    this.lanes = [lane(), lane()];
  }

  private async ingest(recordingId: number, recording: string): Promise<void> {
    this.attempted++;
    const at = performance.now();
    try {
      const res = await fetch(`${this.appUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: gqlBody(ingestMutation, { recording }),
      });
      const text = await res.text();
      this.tally.count('ingestRecording (service)', 200, res.status, text);
      const queued = res.status === 200 ? JSON.parse(text).data?.ingestRecording?.eventsQueued : undefined;
      if (typeof queued === 'number') this.ingested.set(recordingId, { at, queued });
      else this.failures.push(`recording ${recordingId}: ${res.status} ${text.slice(0, 300)}`);
    } catch (error) {
      this.failures.push(
        `recording ${recordingId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.lanes);
  }
}

// ---------------------------------------------------------------- memory

/**
 * The service's RSS at rest: two full collections (the service runs with --expose-gc), then the
 * lowest of the samples taken over two seconds. Collecting first removes the garbage the load
 * leaves behind, whose amount depends on when V8 last collected rather than on what is retained;
 * the minimum of a few samples drops the transient allocations of the ingestions and deliveries
 * still going on at that moment. Both readings (after warm-up, at the end) are taken the same way,
 * with the HTTP load stopped and the ingester still running.
 */
async function restingMemory(service: Child): Promise<{ rss: number; heapUsed: number; gc: boolean }> {
  const gc = await service.call<boolean>('gc', null);
  await sleep(300);
  await service.call('gc', null);
  let rss = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    await sleep(200);
    rss = Math.min(rss, service.rss() ?? Number.POSITIVE_INFINITY);
  }
  const { heapUsed, rss: reported } = await service.stats();
  return { rss: Number.isFinite(rss) ? rss : reported, heapUsed, gc };
}

/** Sum of `http_requests_total` with a 5xx status, from the service's /metrics. */
async function fiveHundredsCounted(url: string): Promise<{ total: number; lines: string[] }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const lines = text.split('\n').filter((l) => /^http_requests_total\{.*status="5\d\d"/.test(l));
  return { total: lines.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0), lines };
}

/** The service log's warnings and errors, counted by message (and error, with its first stack frame). */
function summariseLog(file: string): string[] {
  const counts = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: { level?: string; msg?: string; err?: { type?: string; message?: string; stack?: string } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.level !== 'warn' && entry.level !== 'error' && entry.level !== 'fatal') continue;
    const frame = entry.err?.stack?.split('\n')[1]?.trim().replace(`${process.cwd()}/`, '');
    const error = entry.err ? ` — ${entry.err.type}: ${entry.err.message}${frame ? ` (${frame})` : ''}` : '';
    const key = `${entry.level} "${entry.msg}"${error}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort(([, a], [, b]) => b - a).map(([key, n]) => `${String(n).padStart(6)} x ${key}`);
}

// ---------------------------------------------------------------- the run

async function main(): Promise<number> {
  const opts = options();
  if (opts.help) {
    process.stdout.write(usage);
    return 0;
  }
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  const children: Child[] = [];
  const receivers = new Receivers();
  let observer: Awaited<ReturnType<typeof connectDatabase>> | undefined;
  try {
    // ------------------------------------------------------------ engine, dataset, service
    const engine = Child.start('engine', 'bench/engine.ts', {}, { maxOldSpaceMb: 8192 });
    children.push(engine);
    const { uri } = (await engine.ready) as { uri: string };
    const seeding = await connectDatabase(uri, 'soak');
    const loaded = await loadBenchDataset(seeding.collections, opts.dataset);
    await seeding.close();
    log(
      `dataset: ${loaded.meetings} meetings, ${loaded.transcriptEntries} transcript lines, seeded in ${loaded.seconds.toFixed(1)} s`,
    );

    const token = serviceToken();
    mkdirSync(dirname(opts.serviceLog), { recursive: true });
    const logFd = openSync(opts.serviceLog, 'w');
    const service = Child.start(
      'service',
      'bench/service.ts',
      {
        MONGODB_URI: uri,
        MONGODB_DB: 'soak',
        SEED_DEMO: 'false',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: opts.logLevel,
        // The load's keys must never be refused: the limits are not what is soaked here.
        RATE_LIMIT_GENERAL: '1000000000',
        RATE_LIMIT_HEAVY: '1000000000',
        ADMISSION_HEAVY_PER_CREDENTIAL: '1000000',
        // The embedded engine is one JS thread: under this load a command may take longer than the
        // production bound, which would measure the engine, not the service.
        MONGODB_TIMEOUT_MS: '15000',
        // The mix sends refused keys on purpose, all from one address: that address must not be throttled.
        AUTH_FAILURES_PER_MINUTE: '1000000000',
        SHUTDOWN_GRACE_MS: '2000',
        ...fanoutEnv(token.sha256), // INGEST_TOKEN_SHA256, EGRESS_ALLOW_CIDRS=127.0.0.1/32, DELIVERY_WORKER
      },
      { nodeArgs: ['--expose-gc'], stdout: logFd },
    );
    closeSync(logFd); // the child has its own copy
    children.push(service);
    const info = (await service.ready) as { url: string; appUrl: string };
    const { url, appUrl } = info;
    log(`service: ${url} (pid ${service.pid}), engine pid ${engine.pid}`);
    const missing = await missingMachinery(url, benchAdmin.apiKey);
    if (missing) throw new Error(`the webhook machinery is not there: ${missing}`);

    // ------------------------------------------------------------ webhooks and receivers
    await receivers.start(opts.webhooks);
    const webhookOfUrl = new Map<string, number>();
    for (let i = 0; i < opts.webhooks; i++) {
      const owner = benchUsers[1 + i]!;
      const answer = await graphql(url, { 'x-api-key': owner.apiKey }, createWebhookMutation, {
        input: {
          destinationUrl: receivers.urls[i],
          triggeredFor: [i === 0 ? 'MY_SHARED_WITH_TEAM_RECORDINGS' : 'SHARED_TEAM_RECORDINGS'],
          includeSummary: true,
          includeActionItems: i % 3 === 0,
          includeCrmMatches: i % 4 === 1,
          includeTranscript: i % 2 === 0,
        },
      });
      const secret = answer.data?.createWebhook?.secret as string | undefined;
      if (!secret) throw new Error(`createWebhook failed: ${JSON.stringify(answer.errors ?? answer)}`);
      receivers.verifyWith(i, secret);
      webhookOfUrl.set(receivers.urls[i]!, i);
    }

    // ------------------------------------------------------------ the mix
    const first = await graphql(
      url,
      { 'x-api-key': benchAdmin.apiKey },
      '{ meetings(first: 1) { edges { node { id } } } }',
    );
    const meetingNodeId = first.data?.meetings?.edges?.[0]?.node?.id as string | undefined;
    if (!meetingNodeId)
      throw new Error(`no meeting to ask node() for: ${JSON.stringify(first.errors ?? first)}`);
    const mix = requestMix(await visibleRecordings(url), meetingNodeId);
    const tally = new Tally();
    await preflight(url, mix, tally);

    log(
      `load: ${opts.duration} s (${opts.warmup} s warm-up), ${opts.connections} connections, ${mix.length} kinds of request; ` +
        `ingesting ${opts.ingestRate} recordings/s, ${opts.webhooks} webhooks (${elapsed()})`,
    );
    const peak = sampleRss([service.pid, engine.pid], 250);
    const timeline: number[] = [];
    const timelineTimer = setInterval(() => timeline.push(service.rss() ?? 0), 5000);
    const ingester = new Ingester(appUrl, token.token, opts, tally);
    ingester.start();
    const loadStart = performance.now();

    const warm = await runMix(url, mix, opts.warmup, opts.connections, tally);
    const afterWarmup = await restingMemory(service);
    log(
      `  warm-up: ${warm.requests} requests; service RSS at rest ${mb(afterWarmup.rss)} MB, heap ${mb(afterWarmup.heapUsed)} MB (${elapsed()})`,
    );
    const load = await runMix(url, mix, opts.duration - opts.warmup, opts.connections, tally);
    const atEnd = await restingMemory(service);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const deliveredDuringLoad = receivers.arrivals.length;
    log(
      `  load: ${load.requests} requests (${(load.requests / load.seconds).toFixed(1)}/s), p50 ${load.p50} ms, p99 ${load.p99} ms; ` +
        `service RSS at rest ${mb(atEnd.rss)} MB, heap ${mb(atEnd.heapUsed)} MB (${elapsed()})`,
    );

    // ------------------------------------------------------------ drain the deliveries
    await ingester.stop();
    clearInterval(timelineTimer);
    const [peakService, peakEngine] = peak();
    // Until every (recording, webhook) pair has arrived at its receiver, or --drain runs out.
    const expectedPairs = ingester.ingested.size * opts.webhooks;
    const arrivedPairs = () => {
      const seen = new Set(receivers.arrivals.map((a) => `${a.webhook}:${a.recordingId}`));
      let n = 0;
      for (const recordingId of ingester.ingested.keys())
        for (let i = 0; i < opts.webhooks; i++) if (seen.has(`${i}:${recordingId}`)) n++;
      return n;
    };
    const drainStart = performance.now();
    while (arrivedPairs() < expectedPairs && performance.now() - drainStart < opts.drain * 1000)
      await sleep(250);
    const drainSeconds = (performance.now() - drainStart) / 1000;

    // ------------------------------------------------------------ what the outbox says
    observer = await connectDatabase(uri, 'soak');
    const recordingIds = [...ingester.ingested.keys()];
    const outbox = await observer.collections.outbox
      .find({ kind: 'webhook_event', recordingId: { $in: recordingIds } })
      .project<{
        messageId: string;
        recordingId: number;
        destinationUrl: string;
        status: string;
        attempts: number;
        lastResponseStatus: number | null;
        lastError: string | null;
      }>({
        messageId: 1,
        recordingId: 1,
        destinationUrl: 1,
        status: 1,
        attempts: 1,
        lastResponseStatus: 1,
        lastError: 1,
      })
      .toArray();
    const arrivalById = new Map(receivers.arrivals.map((a) => [a.messageId, a]));
    const outboxByStatus: Record<string, number> = {};
    const eventOfPair = new Map<string, (typeof outbox)[number]>();
    const misrouted: string[] = [];
    for (const event of outbox) {
      outboxByStatus[event.status] = (outboxByStatus[event.status] ?? 0) + 1;
      const webhook = webhookOfUrl.get(event.destinationUrl);
      eventOfPair.set(`${webhook}:${event.recordingId}`, event);
      const arrival = arrivalById.get(event.messageId);
      if (arrival && arrival.webhook !== webhook)
        misrouted.push(`${event.messageId} (webhook ${webhook}) arrived at receiver ${arrival.webhook}`);
    }
    const lost: string[] = [];
    const latencies: number[] = [];
    for (const [recordingId, { at }] of ingester.ingested) {
      for (let i = 0; i < opts.webhooks; i++) {
        const key = `${i}:${recordingId}`;
        const event = eventOfPair.get(key);
        const arrival = event ? arrivalById.get(event.messageId) : undefined;
        if (arrival && arrival.webhook === i) {
          latencies.push(arrival.at - at);
          continue;
        }
        lost.push(
          event
            ? `recording ${recordingId} -> webhook ${i}: ${event.messageId} ${event.status} after ${event.attempts} attempts ` +
                `(last status ${event.lastResponseStatus ?? '-'}${event.lastError ? `, ${event.lastError}` : ''}), not received`
            : `recording ${recordingId} -> webhook ${i}: no event in the outbox`,
        );
      }
    }
    latencies.sort((a, b) => a - b);
    const wrongCounts = [...ingester.ingested].filter(([, { queued }]) => queued !== opts.webhooks);
    const metrics = await fiveHundredsCounted(url);
    const engineRss = engine.rss() ?? 0;

    // ------------------------------------------------------------ report
    const failures: string[] = [];
    log(`\nrequests by kind (preflight, warm-up and load), status x count:`);
    for (const [kind, { expect, statuses }] of tally.byKind) {
      const counts = [...statuses].sort(([a], [b]) => a - b);
      const n = counts.reduce((s, [, c]) => s + c, 0);
      const text = counts.map(([s, c]) => `${s === expect ? '' : '!'}${s} x ${c}`).join(', ');
      log(`  ${kind.padEnd(32)} ${String(n).padStart(6)}   ${text}`);
    }
    for (const sample of tally.samples) log(`  unexpected: ${sample}`);

    const fiveXX = tally.total((s) => s >= 500);
    const unexpected = tally.total((s, e) => s !== e && s < 500);
    const connectionErrors = warm.errors + load.errors;
    if (fiveXX > 0) failures.push(`${fiveXX} responses were 5xx`);
    if (metrics.total > 0)
      failures.push(`the service counted ${metrics.total} 5xx responses: ${metrics.lines.join('; ')}`);
    if (unexpected > 0)
      failures.push(`${unexpected} responses had another status than a correct service answers`);
    if (connectionErrors > 0)
      failures.push(
        `${connectionErrors} requests got no answer (${warm.timeouts + load.timeouts} of them timed out)`,
      );
    if (opts.ingestRate > 0 && ingester.ingested.size === 0) failures.push('no recording was ingested');
    if (ingester.failures.length > 0)
      failures.push(`${ingester.failures.length} ingestions failed, first: ${ingester.failures[0]}`);
    if (wrongCounts.length > 0)
      failures.push(
        `${wrongCounts.length} recordings queued another number of events than ${opts.webhooks}, first: ${wrongCounts[0]![0]} queued ${wrongCounts[0]![1].queued}`,
      );
    if (lost.length > 0)
      failures.push(
        `${lost.length} of ${expectedPairs} events not received ${opts.drain} s after the load: ${lost.slice(0, 5).join('; ')}`,
      );
    if (misrouted.length > 0)
      failures.push(`${misrouted.length} events reached another receiver: ${misrouted[0]}`);
    if (receivers.badSignatures > 0)
      failures.push(`${receivers.badSignatures} deliveries with a bad signature or body`);
    const growth = (atEnd.rss - afterWarmup.rss) / afterWarmup.rss;
    if (growth > opts.rssTolerance / 100)
      failures.push(
        `service RSS grew ${(growth * 100).toFixed(1)}% (${mb(afterWarmup.rss)} -> ${mb(atEnd.rss)} MB), more than ${opts.rssTolerance}%`,
      );

    log(
      `\nwebhooks: ${ingester.ingested.size} recordings ingested (${ingester.attempted} attempted), ${expectedPairs} events expected, ` +
        `${expectedPairs - lost.length} received (${deliveredDuringLoad} distinct during the load, the rest in ${drainSeconds.toFixed(1)} s of drain), ` +
        `${lost.length} lost; ${receivers.duplicates} duplicates, ${receivers.badSignatures} bad signatures; outbox ${JSON.stringify(outboxByStatus)}; ` +
        `ingest-to-arrival p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`,
    );
    log(
      `service RSS: ${mb(afterWarmup.rss)} MB after warm-up, ${mb(atEnd.rss)} MB at the end (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%, ` +
        `tolerance ${opts.rssTolerance}%), both at rest after GC${afterWarmup.gc ? '' : ' (unavailable: --expose-gc missing)'}; ` +
        `heap ${mb(afterWarmup.heapUsed)} -> ${mb(atEnd.heapUsed)} MB; peak ${mb(peakService!)} MB`,
    );
    log(`  under load, every 5 s (MB): ${timeline.map(mb).join(' ')}`);
    log(
      `engine RSS: ${mb(engineRss)} MB at the end, peak ${mb(peakEngine!)} MB (not checked: it holds the data)`,
    );
    const logSummary = summariseLog(opts.serviceLog);
    log(
      `service log (${opts.serviceLog}): ${logSummary.length === 0 ? 'no warning or error' : 'warnings and errors'}`,
    );
    for (const line of logSummary.slice(0, 10)) log(`  ${line}`);
    log(
      `\n${opts.duration} s of load (${loadSeconds.toFixed(0)} s with the two resting measurements), ${opts.connections} connections, ` +
        `${warm.requests + load.requests} requests; ${opts.dataset.meetings} meetings; finished in ${elapsed()}`,
    );
    const checks: [string, boolean][] = [
      ['no 5xx response', fiveXX === 0 && metrics.total === 0],
      ['every response as expected, none unanswered', unexpected === 0 && connectionErrors === 0],
      [
        'no lost webhook event, signatures valid',
        lost.length === 0 &&
          misrouted.length === 0 &&
          receivers.badSignatures === 0 &&
          ingester.failures.length === 0 &&
          wrongCounts.length === 0 &&
          (opts.ingestRate === 0 || ingester.ingested.size > 0),
      ],
      [
        `service RSS at the end within ${opts.rssTolerance}% of after warm-up`,
        growth <= opts.rssTolerance / 100,
      ],
    ];
    for (const [name, ok] of checks) log(`  [${ok ? 'PASS' : 'FAIL'}] ${name}`);
    if (failures.length === 0) {
      log('\nsoak: PASS');
      return 0;
    }
    log('\nsoak: FAIL');
    for (const failure of failures) log(`  - ${failure}`);
    return 1;
  } finally {
    await observer?.close().catch(() => {});
    await receivers.close().catch(() => {});
    // The service first, then the engine it uses.
    for (const child of children.reverse()) await child.stop().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
