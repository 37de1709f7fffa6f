/**
 * A load scenario: one request measured under load against every server that serves it. The
 * answers are compared first (the direct baseline's and the peers' with the service's: a ratio
 * means something only between equal answers) and the service's is what the ceiling serves; then
 * each server is warmed up, measured round after round in turn, and reported by its median round
 * (rounds.ts) with its exact commands per request. rest-list, rest-include, graphql and transcript
 * are load scenarios; `brotli` and `browserEncodings` make compressed variants of one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CannedResponse } from '../ceiling.js';
import { commandsPerRequest } from '../commands-per-request.js';
import { equalityOf, firstDifference } from '../json-difference.js';
import { fetchOnce, type LoadRequest, runLoad } from '../load.js';
import { measureRound } from '../measure-round.js';
import { type Measurement, peers, type ScenarioReport, type Target } from '../report.js';
import { medianRound, type RoundFigures } from '../rounds.js';
import type { RunContext } from '../run-context.js';
import type { Servers } from '../servers.js';
import { mb } from '../units.js';
import type { Scenario, ScenarioRows } from './scenario.js';

/** The request a load scenario measures, and who serves it. */
export interface MeasuredRequest {
  name: string;
  request: LoadRequest;
  /** Default: the service, the direct baseline and the ceiling. */
  targets?: readonly Target[];
  /**
   * For a request the direct baseline does not serve (another door's): the service's answer to
   * `request` is the one to match, once `answerOf` has taken the content out of this one.
   */
  sameAs?: { name: string; request: LoadRequest; answerOf: (body: Buffer) => unknown };
}

export type LoadScenario = Scenario & {
  /** Its id in the report (and the name of its `--dump` files). */
  id: string;
  /** The request, which may depend on the options and on the dataset. */
  requestOf: (run: RunContext, servers: Servers) => MeasuredRequest;
};

export function loadScenario(
  id: string,
  requestOf: LoadScenario['requestOf'],
  selectedBy: readonly string[] = [id],
): LoadScenario {
  return {
    id,
    selectedBy,
    needs: 'servers',
    requestOf,
    run: (run, servers) => measureUnderLoad(run, servers, id, requestOf(run, servers)),
  };
}

/**
 * The scenario's request compressed, as `acceptEncoding` asks, against the service and the direct
 * baseline only (the ceiling serves identity bytes). It runs with the scenario, or alone as
 * `<id>-<suffix>`.
 */
function compressed(scenario: LoadScenario, suffix: string, acceptEncoding: string): LoadScenario {
  const id = `${scenario.id}-${suffix}`;
  return loadScenario(
    id,
    (run, servers) => {
      const { name, request } = scenario.requestOf(run, servers);
      return {
        name: `${name}, Accept-Encoding: ${acceptEncoding}`,
        request: { ...request, headers: { ...request.headers, 'accept-encoding': acceptEncoding } },
        targets: ['service', 'direct'],
      };
    },
    [id, scenario.id],
  );
}

/** As an SDK asking for brotli alone sends it (brotli, quality 4, the whole answer compressed). */
export const brotli = (scenario: LoadScenario) => compressed(scenario, 'br', 'br');

/**
 * As a browser sends it, gzip and brotli alike: the server's choice, gzip spliced from stored
 * content where the answer has it (src/http/spliced-gzip.ts).
 */
export const browserEncodings = (scenario: LoadScenario) =>
  compressed(scenario, 'browser', 'gzip, deflate, br, zstd');

async function measureUnderLoad(
  run: RunContext,
  servers: Servers,
  id: string,
  scenario: MeasuredRequest,
): Promise<ScenarioRows> {
  const { opts, log } = run;
  const { server } = servers;
  const problems: string[] = [];
  log(`\n${scenario.name} (${run.elapsed()})`);
  const fromService = await fetchOnce(server('service').url, scenario.request);
  if (fromService.status !== 200)
    throw new Error(
      `the service answered ${fromService.status}: ${fromService.body.toString().slice(0, 500)}`,
    );
  const { sameAs } = scenario;
  const fromDirect = sameAs ? fromService : await fetchOnce(server('direct').url, scenario.request);
  let equality: string;
  if (sameAs) {
    const other = await fetchOnce(server('service').url, sameAs.request);
    const difference = firstDifference(sameAs.answerOf(fromService.body), JSON.parse(other.body.toString()));
    equality = `as ${sameAs.name}: ${equalityOf(difference, 'deep-equal')}`;
    if (equality.includes('MISMATCH'))
      problems.push(`${scenario.name}: does not answer like ${sameAs.name} (${difference})`);
  } else if (fromService.body.equals(fromDirect.body)) equality = 'byte-identical';
  else {
    const difference = firstDifference(
      JSON.parse(fromService.body.toString()),
      JSON.parse(fromDirect.body.toString()),
    );
    // Bytes that differ with the same JSON: the keys in another order.
    equality = equalityOf(difference, 'deep-equal (key order differs)');
    if (equality.startsWith('MISMATCH'))
      problems.push(
        `${scenario.name}: the direct baseline does not answer like the service (${difference}); its ratio is not comparable`,
      );
  }
  log(`  ${fromService.body.length} bytes; ${sameAs ? 'answers ' : 'direct vs service: '}${equality}`);
  for (const peer of (scenario.targets ?? []).filter((t) => (peers as readonly Target[]).includes(t))) {
    const answer = await fetchOnce(server(peer).url, scenario.request);
    const difference =
      answer.status === 200
        ? firstDifference(JSON.parse(fromService.body.toString()), JSON.parse(answer.body.toString()))
        : `status ${answer.status}: ${answer.body.toString().slice(0, 300)}`;
    const peerEquality = equalityOf(difference, 'deep-equal');
    if (peerEquality.startsWith('MISMATCH'))
      problems.push(`${scenario.name}: ${peer} does not answer like the service (${difference})`);
    log(`  ${peer} vs service: ${peerEquality}`);
  }
  if (opts.dump) {
    mkdirSync(opts.dump, { recursive: true });
    writeFileSync(join(opts.dump, `${id}.service.json`), fromService.body);
    writeFileSync(join(opts.dump, `${id}.direct.json`), fromDirect.body);
  }
  const canned: CannedResponse = {
    key: `${scenario.request.method} ${scenario.request.path}`,
    status: fromService.status,
    headers: { 'content-type': fromService.contentType },
    bodyBase64: fromService.body.toString('base64'),
  };
  await server('ceiling').child.call('set', canned);

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
      const figures = await measureRound(run, servers, target, scenario.request);
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
    const commands = await commandsPerRequest(servers, target, scenario.request);
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
  const report: ScenarioReport = {
    id,
    name: scenario.name,
    request: { method: scenario.request.method, path: scenario.request.path },
    responseBytes: fromService.body.length,
    equality,
    results,
  };
  return { scenarios: [report], problems };
}
