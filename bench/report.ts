/** The report: the table people read, the targets, the JSON file, and the comparison of two files. */
import { readFileSync } from 'node:fs';
import type { FanoutPhaseName, FanoutResult } from './fanout.js';
import type { MediaResult } from './media.js';
import type { RoundFigures } from './rounds.js';
import type { SearchResult } from './search.js';

/** The servers users would otherwise pick, serving the same schema (`--peers`, bench/peers.ts). */
export const peers = ['apollo-server-4', 'yoga', 'mercurius-jit'] as const;
export type Peer = (typeof peers)[number];
export type Target = 'service' | 'direct' | 'ceiling' | Peer;
/** Every server, in the order the table shows them. */
export const allTargets: readonly Target[] = ['service', 'direct', 'ceiling', ...peers];

/** A server's figures in a scenario: its median round, and every round. */
export interface Measurement extends RoundFigures {
  /** Exact, from sequential probe requests (null for the ceiling: no database). */
  commandsPerRequest: number | null;
  commandsByName: Record<string, number> | null;
  /** Each round's figures, in the order measured. */
  rounds: RoundFigures[];
}

export interface ScenarioReport {
  id: string;
  name: string;
  request: { method: string; path: string };
  responseBytes: number;
  /** How the direct baseline's response compares with the service's. */
  equality: string;
  results: Partial<Record<Target, Measurement>>;
}

/** The engine scenario's text search case (bench/engine-text.ts). */
export interface TextSearchReport {
  transcripts: number;
  entries: number;
  /** Engine RSS and heap in MB before the index was built and after. */
  memory: { rssBefore: number; rssAfter: number; heapBefore: number; heapAfter: number };
  buildSeconds: number;
  queries: { name: string; results: number; engineMs: number; p50: number }[];
}

/** The engine scenario's figures (bench/engine-scenario.ts). */
export interface EngineOpenReport {
  meetings: number;
  /** The engine's own open, from `startEmbeddedMongo` to listening, ms. */
  openMs: number;
  /** The first query after it (the newest ten meetings), round trip, ms. */
  firstQueryMs: number;
  /** The process's start before the open (Node, module loading), ms: not counted. */
  processMs: number;
  rssMb: number | null;
  /** Meetings the first query found (10). */
  found: number;
}

export interface EngineScenarioReport {
  sizes: { small: number; large: number; full: number };
  restList: {
    small: { rps: number; p50: number };
    large: { rps: number; p50: number };
    full: { rps: number; p50: number };
    ratio: number;
  };
  /** The engine's private memory (MB) at rest after the list load at each size (engine-scenario.ts privateMb); null without /proc. */
  privateMemoryMb: { small: number | null; large: number | null; full: number | null };
  inserts: {
    meetings: number;
    seconds: number;
    docsPerSecond: number;
    /** Engine CPU per 1,000 meeting documents, main and GC threads. */
    engineMsPerThousand: number;
    contentDocsPerSecond: number;
  };
  /** Per list query of the app: engine CPU and round-trip time per execution, ms. */
  listQueries: {
    name: string;
    engineMs: number;
    p50: number;
    plan: string;
    command: string;
    /** Set when the query is not held to the page target, with the reason. */
    unbounded?: string;
  }[];
  rangeSortLimit: { engineMs: number; p50: number; plan: string };
  /** Text search over 5,000 long transcripts (bench/engine-text.ts). */
  textSearch?: TextSearchReport;
  /** Reopening a durable directory (bench/engine-open.ts). */
  open?: EngineOpenReport;
  lookupUnderLoad: {
    heaviest: string;
    idle: { p50: number; p99: number };
    loaded: { p50: number; p99: number; max: number; lookups: number; listQueries: number };
  };
}

/** Commands per request of one REST page, at limit 10 and at limit 100 (sequential probes). */
export interface PageSizes {
  target: Target;
  page: 'without content' | 'every include';
  limit10: number;
  limit100: number;
  getMore10: number;
  getMore100: number;
  /** Of the getMores, those the 16 MiB reply limit forced (a batch cut short by size). */
  forcedGetMore10: number;
  forcedGetMore100: number;
  byName10: Record<string, number>;
  byName100: Record<string, number>;
}

/** Database commands of one request with a warm API key and with a warm OAuth token of the same user. */
export interface CredentialCost {
  request: string;
  /** Null where a key has no equivalent (the token endpoint). */
  apiKey: number | null;
  token: number;
  byNameApiKey: Record<string, number>;
  byNameToken: Record<string, number>;
}

export interface TargetCheck {
  name: string;
  status: 'PASS' | 'FAIL' | 'SKIPPED';
  detail: string;
}

export interface BenchReport {
  version: 1;
  startedAt: string;
  seconds: number;
  machine: {
    node: string;
    cpus: number;
    cpuModel: string;
    totalMemGb: number;
    platform: string;
    loadAverageAtStart: number;
  };
  options: Record<string, unknown>;
  dataset: Record<string, unknown>;
  scenarios: ScenarioReport[];
  pageSizes: PageSizes[];
  fanout: (FanoutResult & {
    phase: FanoutPhaseName;
    /** Recordings per second offered (0: as fast as ingestion goes). */
    rate: number;
    peakRssMb: number;
    commandsPerIngest: number | null;
    commandsPerDelivery: number | null;
  })[];
  /** GraphQL search, one request at a time (absent in reports written before it). */
  search?: SearchResult[];
  /** A 200 MB file streamed to 5 clients through a download link (absent when it did not run). */
  media?: MediaResult;
  /** OAuth tokens against API keys (absent when it did not run). */
  credentials?: CredentialCost[];
  /** The engine scenario (absent when it did not run). */
  engine?: EngineScenarioReport;
  targets: TargetCheck[];
  problems: string[];
}

const fixed = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

export function formatReport(report: BenchReport): string {
  const out: string[] = [];
  const rows: string[][] = [
    [
      'scenario',
      'served by',
      'req/s',
      'p50 ms',
      'p99 ms',
      'x direct',
      'x ceiling',
      'cmds/req',
      'peak RSS MB',
      'failed',
      'CPU ms/req server+engine',
      'wire MB/resp',
    ],
  ];
  for (const s of report.scenarios) {
    const direct = s.results.direct?.rps;
    const ceiling = s.results.ceiling?.rps;
    for (const target of allTargets) {
      const m = s.results[target];
      if (!m) continue;
      const failed = m.errorStatus + m.errors + m.timeouts;
      rows.push([
        target === 'service' ? s.name : '',
        target,
        fixed(m.rps),
        fixed(m.p50),
        fixed(m.p99),
        direct ? fixed(m.rps / direct, 2) : '-',
        ceiling ? fixed(m.rps / ceiling, 3) : '-',
        m.commandsPerRequest === null ? '-' : fixed(m.commandsPerRequest, 1),
        fixed(m.peakRssMb, 0),
        String(failed),
        `${fixed(m.serverCpuMs)} + ${fixed(m.engineCpuMs)}`,
        fixed(m.wireBytesPerRequest / (1024 * 1024), 2),
      ]);
    }
  }
  for (const f of report.fanout) {
    const name = `webhook fan-out, ${f.phase} (${f.recordings} x ${f.webhooks}${f.rate > 0 ? `, ${f.rate}/s` : ''}${f.phase === 'warm-up' ? ', no target' : ''})`;
    if (f.status === 'skipped') {
      rows.push([name, `skipped: ${f.reason}`, '-', '-', '-', '-', '-', '-', '-', '-', '-', '-']);
      continue;
    }
    rows.push([
      name,
      'service',
      `${fixed(f.deliveriesPerSecond)} dlv/s`,
      fixed(f.p50),
      `${f.censored > 0 ? '>=' : ''}${fixed(f.p99)}`,
      '-',
      '-',
      f.commandsPerIngest === null ? '-' : `${fixed(f.commandsPerIngest, 1)}/ingest`,
      fixed(f.peakRssMb, 0),
      `${f.late} late, ${f.lost} lost`,
      '-',
      '-',
    ]);
  }
  out.push(table(rows));
  out.push('');
  for (const s of report.scenarios) {
    out.push(
      `  ${s.name}: ${s.request.method} ${s.request.path} — ${s.responseBytes} bytes; ${s.equality.startsWith('as ') ? 'answers' : 'direct vs service:'} ${s.equality}`,
    );
  }
  for (const f of report.fanout.filter((phase) => phase.status === 'measured')) {
    out.push(
      `  webhook fan-out, ${f.phase}: ingested ${f.ingested}/${f.recordings} in ${fixed(f.ingestSeconds)} s (${fixed(f.ingestPerSecond)}/s), ` +
        `${f.delivered}/${f.expected} events delivered (${f.late} pending at the deadline, ${f.lost} lost), ` +
        `${f.duplicates} duplicates, ${f.badSignatures} bad signatures, max latency ${f.censored > 0 ? '>= ' : ''}${fixed(f.max)} ms` +
        (f.commandsPerDelivery === null
          ? ''
          : `, ${fixed(f.commandsPerDelivery, 1)} commands per delivery (worker)`),
    );
  }
  for (const p of report.pageSizes) {
    const forced = (n: number) => (n > 0 ? ` (${fixed(n, 1)} getMore forced by the 16 MiB reply limit)` : '');
    out.push(
      `  commands per request, REST page ${p.page}, ${p.target}: limit 10: ${fixed(p.limit10, 1)}${forced(p.forcedGetMore10)}; ` +
        `limit 100: ${fixed(p.limit100, 1)}${forced(p.forcedGetMore100)}`,
    );
  }
  if (report.search?.length) {
    out.push('', 'Search over the dataset, one request at a time (GraphQL, first 10, 3 matches each):');
    for (const r of report.search)
      out.push(
        `  ${`${r.name}${r.target ? '' : ' (no target)'}`.padEnd(48)} p50 ${fixed(r.p50).padStart(6)} ms  p90 ${fixed(r.p90).padStart(6)} ms  ${r.found} found  ${r.search} by ${r.orderBy.toLowerCase()}`,
      );
  }
  if (report.media) {
    const m = report.media;
    out.push(
      '',
      `Media: ${m.fileMb} MB to ${m.clients} clients at once through a download link: ${fixed(m.seconds, 1)} s, ` +
        `${fixed(m.mbPerSecond, 0)} MB/s in all; the service's RSS ${fixed(m.rssBeforeMb, 0)} MB, +${fixed(m.rssGrowthMb, 1)} MB at most`,
    );
  }
  if (report.credentials?.length) {
    out.push('', 'Commands per request, a warm API key and a warm OAuth token of the same user (demo data):');
    for (const c of report.credentials)
      out.push(
        `  ${c.request.padEnd(40)} key ${fixed(c.apiKey, 1).padStart(4)}  token ${fixed(c.token, 1).padStart(4)}`,
      );
  }
  if (report.engine) out.push('', formatEngineScenario(report.engine));
  out.push('');
  out.push('Targets:');
  for (const t of report.targets) out.push(`  [${t.status}] ${t.name}: ${t.detail}`);
  if (report.problems.length > 0) {
    out.push('');
    out.push('Problems:');
    for (const p of report.problems) out.push(`  - ${p}`);
  }
  return out.join('\n');
}

function formatEngineScenario(e: EngineScenarioReport): string {
  const rows = [
    ...e.listQueries.map((q) => ({ ...q, name: q.unbounded ? `${q.name} *` : q.name })),
    { name: 'range + sort + limit', ...e.rangeSortLimit },
  ];
  const unbounded = e.listQueries.find((q) => q.unbounded)?.unbounded;
  const width = Math.max(...rows.map((r) => r.name.length));
  const l = e.lookupUnderLoad;
  return [
    `Engine at ${e.sizes.full} meetings (engine CPU ms, round trip p50 ms, winning plan); the app's list queries as the service sent them:`,
    ...rows.map(
      (r) =>
        `  ${r.name.padEnd(width)}  ${fixed(r.engineMs, 2).padStart(7)}  ${fixed(r.p50, 2).padStart(7)}  ${r.plan}`,
    ),
    ...(unbounded ? [`  * not held to the page target: ${unbounded}`] : []),
    `  indexed lookup: idle p50 ${fixed(l.idle.p50, 2)} ms; while "${l.heaviest}" runs: p50 ${fixed(l.loaded.p50, 2)} ms, ` +
      `p99 ${fixed(l.loaded.p99, 2)} ms, max ${fixed(l.loaded.max, 1)} ms (${l.loaded.lookups} lookups, ${l.loaded.listQueries} list queries)`,
    `  batched inserts (two batches of 1,000 in flight): ${fixed(e.inserts.docsPerSecond, 0)} meeting documents/s (engine CPU ${fixed(e.inserts.engineMsPerThousand, 0)} ms per 1,000), ${fixed(e.inserts.contentDocsPerSecond, 0)} content documents/s`,
    `  REST list: ${fixed(e.restList.small.rps)} req/s at ${e.sizes.small}, ${fixed(e.restList.large.rps)} req/s at ${e.sizes.large} (${fixed(e.restList.ratio, 2)}x), ${fixed(e.restList.full.rps)} req/s at ${e.sizes.full}`,
    `  engine private memory: ${fixed(e.privateMemoryMb.small, 0)} MB at ${e.sizes.small}, ${fixed(e.privateMemoryMb.large, 0)} MB at ${e.sizes.large}, ${fixed(e.privateMemoryMb.full, 0)} MB at ${e.sizes.full} (at rest)`,
    ...(e.textSearch ? formatTextSearch(e.textSearch) : []),
  ].join('\n');
}

function formatTextSearch(t: TextSearchReport): string[] {
  const m = t.memory;
  return [
    `  text index on ${t.transcripts} transcripts (${t.entries} entries): built in ${fixed(t.buildSeconds)} s, ` +
      `engine RSS ${fixed(m.rssBefore, 0)} → ${fixed(m.rssAfter, 0)} MB, heap ${fixed(m.heapBefore, 0)} → ${fixed(m.heapAfter, 0)} MB`,
    ...t.queries.map(
      (q) =>
        `  $text ${q.name}: ${q.results} found, engine ${fixed(q.engineMs, 1)} ms, round trip p50 ${fixed(q.p50, 1)} ms`,
    ),
  ];
}

/** Side by side: scenario by scenario and target by target, what changed from `a` to `b`. */
export function compareReports(aPath: string, bPath: string): string {
  const a = JSON.parse(readFileSync(aPath, 'utf8')) as BenchReport;
  const b = JSON.parse(readFileSync(bPath, 'utf8')) as BenchReport;
  const delta = (x: number | undefined, y: number | undefined) =>
    x && y && Number.isFinite(x) && Number.isFinite(y)
      ? `${y >= x ? '+' : ''}${(((y - x) / x) * 100).toFixed(1)}%`
      : '-';
  const rows: string[][] = [
    ['scenario', 'served by', 'req/s a', 'req/s b', 'Δ', 'p99 a', 'p99 b', 'cmds a', 'cmds b'],
  ];
  for (const sb of b.scenarios) {
    const sa = a.scenarios.find((s) => s.id === sb.id);
    for (const target of allTargets) {
      const mb = sb.results[target];
      const ma = sa?.results[target];
      if (!mb && !ma) continue;
      rows.push([
        target === 'service' ? sb.name : '',
        target,
        fixed(ma?.rps),
        fixed(mb?.rps),
        delta(ma?.rps, mb?.rps),
        fixed(ma?.p99),
        fixed(mb?.p99),
        fixed(ma?.commandsPerRequest ?? null),
        fixed(mb?.commandsPerRequest ?? null),
      ]);
    }
  }
  for (const phase of ['steady', 'burst'] as const) {
    // Reports written before the phases existed hold one fan-out object.
    const of = (r: BenchReport) => [r.fanout].flat().find((f) => f && (f.phase ?? 'burst') === phase);
    const fa = of(a);
    const fb = of(b);
    if (fa?.status !== 'measured' && fb?.status !== 'measured') continue;
    rows.push([
      `webhook fan-out, ${phase}`,
      'service',
      fixed(fa?.deliveriesPerSecond),
      fixed(fb?.deliveriesPerSecond),
      delta(fa?.deliveriesPerSecond, fb?.deliveriesPerSecond),
      fixed(fa?.p99),
      fixed(fb?.p99),
      '-',
      '-',
    ]);
  }
  return `a: ${aPath} (${a.startedAt})\nb: ${bPath} (${b.startedAt})\n\n${table(rows)}`;
}
