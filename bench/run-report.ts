/**
 * The end of a run: the rows the scenarios returned, gathered into the report's sections (report.ts)
 * in the order they ran, with the service's targets (targets.ts), the machine and the options;
 * written to --out as JSON and printed as the table. Its exit code: 1 when a target failed or a
 * problem was seen, else 0.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, platform, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { type BenchReport, formatReport } from './report.js';
import type { RunContext } from './run-context.js';
import type { ScenarioRows } from './scenarios/scenario.js';
import type { ServedDataset } from './servers.js';
import { engineMemoryTarget, serviceTargets } from './targets.js';

export function gatherReport(
  { opts, started, startedAt, loadAverageAtStart }: RunContext,
  rows: readonly ScenarioRows[],
  dataset: ServedDataset | undefined,
): BenchReport {
  const scenarios = rows.flatMap((r) => r.scenarios ?? []);
  const pageSizes = rows.flatMap((r) => r.pageSizes ?? []);
  const fanout = rows.flatMap((r) => r.fanout ?? []);
  const search = rows.flatMap((r) => r.search ?? []);
  const media = rows.find((r) => r.media)?.media;
  const engine = rows.find((r) => r.engine)?.engine;
  const credentials = rows.flatMap((r) => r.credentials ?? []);
  const targets = [
    ...rows.flatMap((r) => r.targets ?? []),
    ...serviceTargets({ scenarios, pageSizes, fanout, search, media, credentials }),
    ...(dataset ? [engineMemoryTarget(dataset)] : []),
  ];
  return {
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
    dataset: { ...opts.dataset, ...dataset },
    scenarios,
    pageSizes,
    fanout,
    search,
    media,
    engine,
    credentials,
    targets,
    problems: rows.flatMap((r) => r.problems ?? []),
  };
}

/** Writes the JSON, prints the table; returns the exit code. */
export function writeReport({ opts, log, elapsed }: RunContext, report: BenchReport): number {
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
  const failed = report.targets.filter((t) => t.status === 'FAIL').length;
  if (failed > 0) log(`${failed} target${failed === 1 ? '' : 's'} failed`);
  return report.problems.length > 0 || failed > 0 ? 1 : 0;
}
