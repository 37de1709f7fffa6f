/**
 * The service's targets (issue 14, "Done when"), each PASS or FAIL with its figure; `npm run bench`
 * exits non-zero when one fails. A target whose scenario did not run (`--only`) is left out.
 */
import {
  type BenchReport,
  type CredentialCost,
  type PageSizes,
  peers,
  type ScenarioReport,
  type Target,
  type TargetCheck,
} from './report.js';
import type { ServedDataset } from './servers.js';

export const limits = {
  /** Database commands of one authenticated REST page, page sizes 10 and 100. */
  commandsWithoutContent: 4,
  commandsEveryInclude: 10,
  /** Rates relative to the direct handler and to the ceiling. */
  includeVsDirect: 1.0,
  includeVsCeiling: 0.1,
  transcriptVsDirect: 1.0,
  /** Webhooks: burst throughput and steady latency. */
  burstDeliveriesPerSecond: 1000,
  steadyP99Ms: 250,
  /** Peak RSS of the service under the every-include scenario. */
  peakRssMb: 460,
  /** Issue 33: the engine's RSS holding the bench dataset (5,000 long-transcript meetings, every index built). */
  engineRssMb: 400,
  /** Issue 15: a search over the dataset, p50 answer time. */
  searchP50Ms: 50,
  /** Issue 16: growth of the service's RSS while it streams a 200 MB file to 5 clients. */
  mediaRssGrowthMb: 50,
  /** Issue 32: the GraphQL door on the REST door's content, against it and against the peers. */
  graphqlVsRest: 0.5,
  graphqlVsPeer: 1.2,
  /**
   * Issue 32: a compressed answer's rate against the same answer uncompressed, on each door, as a
   * browser asks (the br-only rows are shown beside them).
   */
  compressedVsIdentity: 0.6,
} as const;

type Report = Pick<BenchReport, 'scenarios' | 'pageSizes' | 'fanout' | 'search' | 'media' | 'credentials'>;

const check = (name: string, pass: boolean, detail: string): TargetCheck => ({
  name,
  status: pass ? 'PASS' : 'FAIL',
  detail,
});

export function serviceTargets(report: Report): TargetCheck[] {
  return [
    ...commandTargets(report.pageSizes),
    ...rateTargets(report.scenarios),
    ...fanoutTargets(report.fanout),
    ...rssTargets(report.scenarios),
    ...searchTargets(report.search ?? []),
    ...(report.media ? [mediaTarget(report.media)] : []),
    ...credentialTargets(report.credentials ?? []),
    ...mcpTargets(report.scenarios),
    ...graphqlTargets(report.scenarios),
  ];
}

/** The engine holding the servers' dataset: what memory the embedded default needs for its data. */
export function engineMemoryTarget(dataset: ServedDataset): TargetCheck {
  // The engine maps its LMDB file: the pages it has read count in its RSS, though they are the
  // kernel's page cache (shared, reclaimed under pressure). Its own memory is the private part.
  const own = dataset.enginePrivateMb;
  const rss = dataset.engineRssMb;
  return check(
    `engine private memory holding ${dataset.meetings.toLocaleString('en')} meetings (${dataset.transcriptEntries.toLocaleString('en')} transcript lines, every index built) at most ${limits.engineRssMb} MB`,
    own !== null && own <= limits.engineRssMb,
    own === null || rss === null
      ? 'not measured'
      : `${own.toFixed(0)} MB private; RSS ${rss.toFixed(0)} MB with the mapped data file's pages`,
  );
}

/** The service's median rate in scenario `id` against `against`'s (another scenario or server). */
function rateRatio(
  scenarios: readonly ScenarioReport[],
  name: string,
  atLeast: number,
  id: string,
  against: { id: string; server?: Target },
): TargetCheck[] {
  const service = scenarios.find((s) => s.id === id)?.results.service;
  const other = scenarios.find((s) => s.id === against.id)?.results[against.server ?? 'service'];
  if (!service || !other) return [];
  const ratio = service.rps / other.rps;
  return [
    check(
      `${name} >= ${atLeast.toFixed(1)}x`,
      ratio >= atLeast,
      `${ratio.toFixed(2)}x (${service.rps.toFixed(1)} vs ${other.rps.toFixed(1)} req/s, median rounds)`,
    ),
  ];
}

/** Issue 32: GraphQL at the REST door's speed, ahead of the peers, compression cheap on both doors. */
function graphqlTargets(scenarios: readonly ScenarioReport[]): TargetCheck[] {
  return [
    ...rateRatio(
      scenarios,
      'GraphQL every include vs the REST door on the same content',
      limits.graphqlVsRest,
      'graphql',
      {
        id: 'rest-include',
      },
    ),
    ...peers.flatMap((peer) =>
      rateRatio(
        scenarios,
        `GraphQL every include vs ${peer} on the same schema and database`,
        limits.graphqlVsPeer,
        'graphql',
        {
          id: 'graphql',
          server: peer,
        },
      ),
    ),
    // As browsers ask (gzip and br alike), the encoding is the server's to choose.
    ...['rest-include', 'graphql'].flatMap((id) =>
      rateRatio(
        scenarios,
        `${id}: compressed as a browser asks vs uncompressed`,
        limits.compressedVsIdentity,
        `${id}-browser`,
        { id },
      ),
    ),
  ];
}

/** Issue 31: a tool call costs no more commands than the REST request it mirrors (its rate shown beside). */
function mcpTargets(scenarios: readonly ScenarioReport[]): TargetCheck[] {
  const tool = scenarios.find((s) => s.id === 'mcp')?.results.service;
  const page = scenarios.find((s) => s.id === 'rest-list')?.results.service;
  if (!tool || !page || tool.commandsPerRequest === null || page.commandsPerRequest === null) return [];
  return [
    check(
      'MCP list_meetings: no more database commands than REST GET /meetings',
      tool.commandsPerRequest <= page.commandsPerRequest,
      `${tool.commandsPerRequest} vs ${page.commandsPerRequest} commands; ${tool.rps.toFixed(1)} vs ${page.rps.toFixed(1)} req/s (${(tool.rps / page.rps).toFixed(2)}x the REST door, median rounds)`,
    ),
  ];
}

/** Issue 30: a warm OAuth token costs no more commands than a warm API key, request for request. */
function credentialTargets(credentials: readonly CredentialCost[]): TargetCheck[] {
  return credentials
    .filter((c) => c.apiKey !== null)
    .map((c) =>
      check(
        `${c.request}: a warm OAuth token costs no more database commands than a warm API key`,
        c.token <= c.apiKey!,
        `token ${c.token} ${JSON.stringify(c.byNameToken)}, key ${c.apiKey} ${JSON.stringify(c.byNameApiKey)}`,
      ),
    );
}

function mediaTarget(media: NonNullable<Report['media']>): TargetCheck {
  return check(
    `media, ${media.fileMb} MB to ${media.clients} clients at once: the service's RSS grows under ${limits.mediaRssGrowthMb} MB`,
    media.rssGrowthMb < limits.mediaRssGrowthMb,
    `+${media.rssGrowthMb.toFixed(1)} MB (from ${media.rssBeforeMb.toFixed(0)} MB), ${media.mbPerSecond.toFixed(0)} MB/s in all, ${media.mismatches} clients with other bytes`,
  );
}

function searchTargets(search: NonNullable<Report['search']>): TargetCheck[] {
  return search
    .filter((r) => r.target)
    .map((r) =>
      check(
        `search, ${r.name}: p50 under ${limits.searchP50Ms} ms`,
        r.p50 < limits.searchP50Ms,
        `p50 ${r.p50.toFixed(1)} ms, p90 ${r.p90.toFixed(1)} ms, ${r.found} found (${r.search}, ${r.orderBy.toLowerCase()})`,
      ),
    );
}

/** Commands per page at both sizes; getMores the 16 MiB reply limit forced are shown, not counted. */
function commandTargets(pageSizes: readonly PageSizes[]): TargetCheck[] {
  return pageSizes
    .filter((p) => p.target === 'service')
    .map((p) => {
      const limit =
        p.page === 'without content' ? limits.commandsWithoutContent : limits.commandsEveryInclude;
      const at10 = p.limit10 - p.forcedGetMore10;
      const at100 = p.limit100 - p.forcedGetMore100;
      const forced = (n: number) => (n > 0 ? ` + ${n} getMore forced by the 16 MiB reply limit` : '');
      return check(
        `authenticated REST page ${p.page}: at most ${limit} database commands per request, page sizes 10 and 100`,
        at10 <= limit && at100 <= limit,
        `limit 10: ${at10}${forced(p.forcedGetMore10)} ${JSON.stringify(p.byName10)}; ` +
          `limit 100: ${at100}${forced(p.forcedGetMore100)} ${JSON.stringify(p.byName100)}`,
      );
    });
}

/** The service's median rate against another server's, in one scenario. */
function rateTarget(
  scenario: ScenarioReport | undefined,
  against: 'direct' | 'ceiling',
  atLeast: number,
): TargetCheck[] {
  const service = scenario?.results.service;
  const other = scenario?.results[against];
  if (!scenario || !service || !other) return [];
  const ratio = service.rps / other.rps;
  const mismatch = against === 'direct' && scenario.equality.startsWith('MISMATCH');
  return [
    check(
      `${scenario.name} >= ${atLeast.toFixed(1)}x the ${against === 'direct' ? 'direct handler' : 'ceiling'}`,
      !mismatch && ratio >= atLeast,
      `${ratio.toFixed(2)}x (${service.rps.toFixed(1)} vs ${other.rps.toFixed(1)} req/s, median rounds)` +
        (mismatch ? '; the direct handler does not answer like the service' : ''),
    ),
  ];
}

function rateTargets(scenarios: readonly ScenarioReport[]): TargetCheck[] {
  const include = scenarios.find((s) => s.id === 'rest-include');
  const transcript = scenarios.find((s) => s.id === 'transcript');
  return [
    ...rateTarget(include, 'direct', limits.includeVsDirect),
    ...rateTarget(include, 'ceiling', limits.includeVsCeiling),
    ...rateTarget(transcript, 'direct', limits.transcriptVsDirect),
  ];
}

function fanoutTargets(fanout: Report['fanout']): TargetCheck[] {
  return fanout
    .filter((f) => f.phase !== 'warm-up')
    .map((f) => {
      const name =
        f.phase === 'burst'
          ? `webhooks, burst of ${f.recordings} recordings x ${f.webhooks} webhooks: at least ${limits.burstDeliveriesPerSecond} deliveries/s, none lost or duplicated`
          : `webhooks, steady ${f.rate} recordings/s x ${f.webhooks} webhooks: p99 ingest-to-delivery under ${limits.steadyP99Ms} ms`;
      if (f.status === 'skipped') return { name, status: 'SKIPPED', detail: f.reason ?? '' };
      const counts = `${f.delivered}/${f.expected} delivered, ${f.late} late, ${f.lost} lost, ${f.duplicates} duplicated`;
      return f.phase === 'burst'
        ? check(
            name,
            f.deliveriesPerSecond >= limits.burstDeliveriesPerSecond && f.lost === 0 && f.duplicates === 0,
            `${f.deliveriesPerSecond.toFixed(1)} deliveries/s; ${counts}`,
          )
        : check(
            name,
            f.p99 < limits.steadyP99Ms && f.lost === 0 && f.late === 0 && f.duplicates === 0,
            `p99 ${f.censored > 0 ? '>= ' : ''}${f.p99.toFixed(0)} ms, p50 ${f.p50.toFixed(0)} ms; ${counts}`,
          );
    });
}

/** The highest RSS of the service under every include, compressed or not, over every round. */
function rssTargets(scenarios: readonly ScenarioReport[]): TargetCheck[] {
  const measured = scenarios
    .filter((s) => s.id === 'rest-include' || s.id === 'rest-include-br')
    .flatMap((s) => (s.results.service ? [{ name: s.name, mb: s.results.service.peakRssMb }] : []));
  if (measured.length === 0) return [];
  const peak = measured.reduce((a, b) => (b.mb > a.mb ? b : a));
  return [
    check(
      `peak RSS of the service under every include at most ${limits.peakRssMb} MB`,
      peak.mb <= limits.peakRssMb,
      `${peak.mb.toFixed(0)} MB (${peak.name})`,
    ),
  ];
}
