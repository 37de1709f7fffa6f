/**
 * The soak's load: the mix driven for --duration seconds (the first --warmup of them a warm-up)
 * while the ingester makes recordings whose webhooks are delivered meanwhile. The service's RSS
 * is read at rest after the warm-up and at the end (resting-memory.ts), its and the engine's peak
 * sampled throughout, and the service's every 5 s for the report. Ends with the ingester stopped.
 */
import type { Receivers } from '../../bench/fanout.js';
import { sampleRss } from '../../bench/ipc.js';
import type { Progress } from '../../bench/progress.js';
import { wholeMb } from '../../bench/units.js';
import { type LoadSummary, runMix } from './drive-mix.js';
import { Ingester } from './ingester.js';
import type { SoakOptions } from './options.js';
import type { MixEntry } from './request-mix.js';
import { type RestingMemory, restingMemory } from './resting-memory.js';
import type { Stack } from './stack.js';
import type { Tally } from './tally.js';

export interface LoadOutcome {
  warm: LoadSummary;
  load: LoadSummary;
  /** The service's memory at rest after the warm-up, and at the end of the load. */
  afterWarmup: RestingMemory;
  atEnd: RestingMemory;
  /** The load's length, with the two resting readings. */
  loadSeconds: number;
  /** Deliveries received by the end of the load. */
  deliveredDuringLoad: number;
  peakService: number;
  peakEngine: number;
  /** The service's RSS every 5 s of the load. */
  timeline: number[];
  /** What was ingested, stopped. */
  ingester: Ingester;
}

export async function loadWhileIngesting(
  opts: SoakOptions,
  { engine, service, url, appUrl, token }: Stack,
  mix: MixEntry[],
  tally: Tally,
  receivers: Receivers,
  { log, elapsed }: Progress,
): Promise<LoadOutcome> {
  log(
    `load: ${opts.duration} s (${opts.warmup} s warm-up), ${opts.connections} connections, ${mix.length} kinds of request; ` +
      `ingesting ${opts.ingestRate} recordings/s, ${opts.webhooks} webhooks (${elapsed()})`,
  );
  const peak = sampleRss([service.pid, engine.pid], 250);
  const timeline: number[] = [];
  const timelineTimer = setInterval(() => timeline.push(service.rss() ?? 0), 5000);
  const ingester = new Ingester(appUrl, token, opts, tally);
  ingester.start();
  const loadStart = performance.now();

  const warm = await runMix(url, mix, opts.warmup, opts.connections, tally);
  const afterWarmup = await restingMemory(service);
  log(
    `  warm-up: ${warm.requests} requests; service RSS at rest ${wholeMb(afterWarmup.rss)} MB, heap ${wholeMb(afterWarmup.heapUsed)} MB (${elapsed()})`,
  );
  const load = await runMix(url, mix, opts.duration - opts.warmup, opts.connections, tally);
  const atEnd = await restingMemory(service);
  const loadSeconds = (performance.now() - loadStart) / 1000;
  const deliveredDuringLoad = receivers.arrivals.length;
  log(
    `  load: ${load.requests} requests (${(load.requests / load.seconds).toFixed(1)}/s), p50 ${load.p50} ms, p99 ${load.p99} ms; ` +
      `service RSS at rest ${wholeMb(atEnd.rss)} MB, heap ${wholeMb(atEnd.heapUsed)} MB (${elapsed()})`,
  );

  await ingester.stop();
  clearInterval(timelineTimer);
  const [peakService, peakEngine] = peak();
  return {
    warm,
    load,
    afterWarmup,
    atEnd,
    loadSeconds,
    deliveredDuringLoad,
    peakService: peakService!,
    peakEngine: peakEngine!,
    timeline,
    ingester,
  };
}
