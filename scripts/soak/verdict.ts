/**
 * The soak's last phase: its report and its verdict. Prints the answers by kind and status, the
 * webhooks' figures, the service's memory and log, then each check as PASS or FAIL; PASS (exit 0)
 * when no check found a failure, else FAIL (exit 1) with every failure.
 */
import type { Receivers } from '../../bench/fanout.js';
import { percentile } from '../../bench/load.js';
import type { Progress } from '../../bench/progress.js';
import { wholeMb } from '../../bench/units.js';
import type { Drain } from './drain.js';
import type { LoadOutcome } from './load.js';
import type { SoakOptions } from './options.js';
import type { Deliveries } from './outbox.js';
import { summariseLog } from './service-log.js';
import { fiveHundredsCounted } from './service-metrics.js';
import type { Stack } from './stack.js';
import type { Tally } from './tally.js';

/** What the phases before found. */
export interface Findings {
  tally: Tally;
  load: LoadOutcome;
  drain: Drain;
  deliveries: Deliveries;
  receivers: Receivers;
}

/** A check, and its failures (none: it passed). */
interface Check {
  name: string;
  failures: (string | false)[];
}

export async function verdict(
  opts: SoakOptions,
  { url, engine }: Stack,
  { tally, load: outcome, drain, deliveries, receivers }: Findings,
  { log, elapsed }: Progress,
): Promise<number> {
  const { warm, load, afterWarmup, atEnd, ingester } = outcome;
  const { lost, misrouted, wrongCounts } = deliveries;
  const metrics = await fiveHundredsCounted(url);
  const engineRss = engine.rss() ?? 0;

  log(`\nrequests by kind (preflight, warm-up and load), status x count:`);
  for (const line of tally.lines()) log(`  ${line}`);

  const fiveXX = tally.total((s) => s >= 500);
  const unexpected = tally.total((s, e) => s !== e && s < 500);
  const connectionErrors = warm.errors + load.errors;
  const growth = (atEnd.rss - afterWarmup.rss) / afterWarmup.rss;
  const checks: Check[] = [
    {
      name: 'no 5xx response',
      failures: [
        fiveXX > 0 && `${fiveXX} responses were 5xx`,
        metrics.total > 0 &&
          `the service counted ${metrics.total} 5xx responses: ${metrics.lines.join('; ')}`,
      ],
    },
    {
      name: 'every response as expected, none unanswered',
      failures: [
        unexpected > 0 && `${unexpected} responses had another status than a correct service answers`,
        connectionErrors > 0 &&
          `${connectionErrors} requests got no answer (${warm.timeouts + load.timeouts} of them timed out)`,
      ],
    },
    {
      name: 'no lost webhook event, signatures valid',
      failures: [
        opts.ingestRate > 0 && ingester.ingested.size === 0 && 'no recording was ingested',
        ingester.failures.length > 0 &&
          `${ingester.failures.length} ingestions failed, first: ${ingester.failures[0]}`,
        wrongCounts.length > 0 &&
          `${wrongCounts.length} recordings queued another number of events than ${opts.webhooks}, first: ${wrongCounts[0]![0]} queued ${wrongCounts[0]![1].queued}`,
        lost.length > 0 &&
          `${lost.length} of ${drain.expectedPairs} events not received ${opts.drain} s after the load: ${lost.slice(0, 5).join('; ')}`,
        misrouted.length > 0 && `${misrouted.length} events reached another receiver: ${misrouted[0]}`,
        receivers.badSignatures > 0 && `${receivers.badSignatures} deliveries with a bad signature or body`,
      ],
    },
    {
      name: `service RSS at the end within ${opts.rssTolerance}% of after warm-up`,
      failures: [
        growth > opts.rssTolerance / 100 &&
          `service RSS grew ${(growth * 100).toFixed(1)}% (${wholeMb(afterWarmup.rss)} -> ${wholeMb(atEnd.rss)} MB), more than ${opts.rssTolerance}%`,
      ],
    },
  ];

  log(
    `\nwebhooks: ${ingester.ingested.size} recordings ingested (${ingester.attempted} attempted), ${drain.expectedPairs} events expected, ` +
      `${drain.expectedPairs - lost.length} received (${outcome.deliveredDuringLoad} distinct during the load, the rest in ${drain.seconds.toFixed(1)} s of drain), ` +
      `${lost.length} lost; ${receivers.duplicates} duplicates, ${receivers.badSignatures} bad signatures; outbox ${JSON.stringify(deliveries.outboxByStatus)}; ` +
      `ingest-to-arrival p50 ${percentile(deliveries.latencies, 50).toFixed(0)} ms, p99 ${percentile(deliveries.latencies, 99).toFixed(0)} ms`,
  );
  log(
    `service RSS: ${wholeMb(afterWarmup.rss)} MB after warm-up, ${wholeMb(atEnd.rss)} MB at the end (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%, ` +
      `tolerance ${opts.rssTolerance}%), both at rest after GC${afterWarmup.gc ? '' : ' (unavailable: --expose-gc missing)'}; ` +
      `heap ${wholeMb(afterWarmup.heapUsed)} -> ${wholeMb(atEnd.heapUsed)} MB; peak ${wholeMb(outcome.peakService)} MB`,
  );
  log(`  under load, every 5 s (MB): ${outcome.timeline.map(wholeMb).join(' ')}`);
  log(
    `engine RSS: ${wholeMb(engineRss)} MB at the end, peak ${wholeMb(outcome.peakEngine)} MB (not checked: it holds the data)`,
  );
  const logSummary = summariseLog(opts.serviceLog);
  log(
    `service log (${opts.serviceLog}): ${logSummary.length === 0 ? 'no warning or error' : 'warnings and errors'}`,
  );
  for (const line of logSummary.slice(0, 10)) log(`  ${line}`);
  log(
    `\n${opts.duration} s of load (${outcome.loadSeconds.toFixed(0)} s with the two resting measurements), ${opts.connections} connections, ` +
      `${warm.requests + load.requests} requests; ${opts.dataset.meetings} meetings; finished in ${elapsed()}`,
  );

  const failuresOf = (check: Check) => check.failures.filter((f) => f !== false);
  for (const check of checks) log(`  [${failuresOf(check).length === 0 ? 'PASS' : 'FAIL'}] ${check.name}`);
  const failures = checks.flatMap(failuresOf);
  if (failures.length === 0) {
    log('\nsoak: PASS');
    return 0;
  }
  log('\nsoak: FAIL');
  for (const failure of failures) log(`  - ${failure}`);
  return 1;
}
