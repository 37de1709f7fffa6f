/**
 * `--only fanout`: webhook fan-out (bench/fanout.ts) in its phases, one after another (options.ts:
 * warm-up, steady, burst): deliveries per second, ingest-to-delivery latency, the service's peak RSS,
 * and commands per ingestion and per delivery, on the service's twin that counts its commands
 * (servers.ts). Every phase is reported skipped when the service lacks the webhook machinery.
 */
import { connectDatabase } from '../../src/db/connection.js';
import { benchAdmin } from '../dataset.js';
import { type FanoutPhase, missingMachinery, runFanout, skippedFanout } from '../fanout.js';
import { sampleRss } from '../ipc.js';
import type { BenchReport } from '../report.js';
import type { RunContext } from '../run-context.js';
import type { Servers } from '../servers.js';
import { mb } from '../units.js';
import type { Scenario } from './scenario.js';

export const fanout: Scenario = {
  selectedBy: ['fanout'],
  needs: 'servers',
  run: async (run, servers) => {
    const missing =
      run.opts.fanout.length > 0 ? await missingMachinery(servers.counting.url, benchAdmin.apiKey) : null;
    const rows: BenchReport['fanout'] = [];
    const problems: string[] = [];
    for (const phase of run.opts.fanout) {
      const label = `webhook fan-out, ${phase.phase}`;
      run.log(`\n${label}${phase.rate > 0 ? ` at ${phase.rate} recordings/s` : ''} (${run.elapsed()})`);
      if (missing) {
        run.log(`  skipped: webhook machinery not present (${missing})`);
        rows.push({
          ...skippedFanout(`webhook machinery not present (${missing})`, phase),
          phase: phase.phase,
          rate: phase.rate,
          peakRssMb: 0,
          commandsPerIngest: null,
          commandsPerDelivery: null,
        });
        continue;
      }
      const measured = await measurePhase(run, servers, phase, label);
      rows.push(measured.row);
      problems.push(...measured.problems);
    }
    return { fanout: rows, problems };
  },
};

async function measurePhase(
  { log, token }: RunContext,
  { uri, counting }: Servers,
  phase: FanoutPhase,
  label: string,
): Promise<{ row: BenchReport['fanout'][number]; problems: string[] }> {
  // The service's twin that counts its commands and runs the delivery worker.
  const service = counting.child;
  const before = await service.stats();
  const peak = sampleRss([service.pid]);
  const observer = await connectDatabase(uri, 'bench');
  const outboxOf = async (recordingIds: number[]) => {
    const rows = await observer.collections.outbox
      .aggregate<{ _id: string; n: number }>([
        { $match: { kind: 'webhook_event', recordingId: { $in: recordingIds } } },
        { $group: { _id: '$status', n: { $sum: 1 } } },
      ])
      .toArray();
    return Object.fromEntries(rows.map((r) => [r._id, r.n]));
  };
  const result = await runFanout(counting.url, counting.appUrl, token.token, phase, log, outboxOf).finally(
    () => observer.close(),
  );
  const [peakRss] = peak();
  const after = await service.stats();
  const appCommands = after.commands - before.commands;
  const allCommands = after.allCommands - before.allCommands;
  const row = {
    ...result,
    phase: phase.phase,
    rate: phase.rate,
    peakRssMb: mb(peakRss!),
    commandsPerIngest: result.recordings > 0 ? appCommands / result.recordings : null,
    commandsPerDelivery:
      result.delivered > 0 && allCommands > appCommands
        ? (allCommands - appCommands) / result.delivered
        : null,
  };
  log(
    `  ${result.delivered}/${result.expected} delivered (${result.late} still pending at the deadline, ${result.lost} lost; outbox ${JSON.stringify(result.outbox)}), ` +
      `${result.deliveriesPerSecond.toFixed(1)} deliveries/s, p50 ${result.p50.toFixed(0)} ms, p99 ${result.censored > 0 ? '>= ' : ''}${result.p99.toFixed(0)} ms`,
  );
  const problems: string[] = [];
  if (result.ingested < result.recordings)
    problems.push(
      `${label}: only ${result.ingested} of ${result.recordings} recordings were ingested within ${phase.timeoutSeconds} s`,
    );
  if (result.late > 0)
    problems.push(`${label}: ${result.late} events were still pending after ${phase.timeoutSeconds} s`);
  if (result.lost > 0) problems.push(`${label}: ${result.lost} of ${result.expected} events were lost`);
  if (result.duplicates > 0) problems.push(`${label}: ${result.duplicates} events arrived more than once`);
  if (result.badSignatures > 0) problems.push(`${label}: ${result.badSignatures} bad signatures or bodies`);
  if (result.ingestErrors > 0) problems.push(`${label}: ${result.ingestErrors} ingestions failed`);
  return { row, problems };
}
