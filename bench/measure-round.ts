/**
 * One round of load against one server (rounds.ts: the servers take turns), and what it cost the
 * server and the engine: CPU per request from their counters, peak RSS sampled meanwhile. The round
 * ends when the server has gone quiet, so the next server's round starts on an idle engine.
 */
import { loadavg } from 'node:os';
import { type Child, engineIdle, sampleRss } from './ipc.js';
import { type LoadRequest, runLoad } from './load.js';
import type { Target } from './report.js';
import type { RoundFigures } from './rounds.js';
import type { RunContext } from './run-context.js';
import type { Servers } from './servers.js';
import { mb } from './units.js';

export async function measureRound(
  run: RunContext,
  servers: Servers,
  target: Target,
  request: LoadRequest,
): Promise<RoundFigures> {
  const { url, child } = servers.server(target);
  const { engine } = servers;
  const peak = sampleRss([child.pid]);
  const [serverBefore, engineBefore] = await Promise.all([child.stats(), engine.stats()]);
  const load = await runLoad(url, request, {
    connections: run.opts.connections,
    seconds: run.opts.duration / run.opts.rounds,
  });
  const [serverAfter, engineAfter] = await Promise.all([child.stats(), engine.stats()]);
  const [peakRss] = peak();
  // wrk stops with requests still in flight: let them finish before the next server's round.
  await engineIdle(() => engine.stats());
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
