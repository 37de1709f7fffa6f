/**
 * The servers the scenarios share, each in its own process: one engine holding the generated
 * dataset, and over it the service, the direct baseline and the ceiling, and with --peers (for the
 * GraphQL scenario) the peers. Started once, after the scenarios that start processes of their own.
 *
 * The service is measured as users run it: without command monitoring and without the delivery
 * worker (idle under the load anyway). Its twin, the same service with MONGODB_COMMAND_METRICS, counts
 * the commands of a request and runs the webhook fan-out, deliveries included.
 */
import { join } from 'node:path';
import { connectDatabase } from '../src/db/connection.js';
import { type LoadedDataset, loadBenchDataset } from './dataset.js';
import { startEngine } from './engine-child.js';
import { Child } from './ipc.js';
import { peers, type Target } from './report.js';
import type { RunContext } from './run-context.js';
import { mb } from './units.js';

export interface Servers {
  /** The engine, and where it listens (the dataset is in its database `bench`). */
  engine: Child;
  uri: string;
  dataset: ServedDataset;
  /**
   * The service's twin that counts its commands (the service does not: the driver's command events
   * cost memory and CPU), and runs the delivery worker; `appUrl` is its app's own door, which knows
   * the service token (the fan-out ingests through it).
   */
  counting: { url: string; appUrl: string; child: Child };
  /** Where a server listens, and its process. */
  server: (target: Target) => { url: string; child: Child };
}

/** The dataset the servers are measured on, and the engine's resident memory once it holds it (ipc.ts). */
export type ServedDataset = LoadedDataset & { engineRssMb: number | null; enginePrivateMb: number | null };

export async function startServers(run: RunContext): Promise<Servers> {
  const { opts, log, elapsed, children } = run;
  const profile = (name: string) =>
    opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(opts.profile, name)}`] : [];

  const engine = startEngine('engine', {}, profile('engine'));
  children.push(engine);
  const { uri } = (await engine.ready) as { uri: string };
  log(`engine: ${uri} (pid ${engine.pid})`);
  const seeding = await connectDatabase(uri, 'bench');
  let lastPrinted = 0;
  const loaded = await loadBenchDataset(seeding.collections, opts.dataset, (done) => {
    if (done - lastPrinted >= 1000 || (done === opts.dataset.meetings && done !== lastPrinted)) {
      lastPrinted = done;
      log(`  seeded ${done}/${opts.dataset.meetings} meetings (${elapsed()})`);
    }
  });
  await seeding.close();
  const memory = engine.residentMemory();
  const dataset: ServedDataset = {
    ...loaded,
    engineRssMb: memory && mb(memory.rss),
    enginePrivateMb: memory && mb(memory.private),
  };
  log(
    `dataset: ${dataset.meetings} meetings, ${dataset.transcriptEntries} transcript lines, in ${dataset.seconds.toFixed(1)} s; ` +
      `longest transcript ${dataset.longest.entries} lines (recording ${dataset.longest.recordingId}); ` +
      `engine RSS ${dataset.engineRssMb?.toFixed(0) ?? '?'} MB, of which private ${dataset.enginePrivateMb?.toFixed(0) ?? '?'} MB`,
  );

  const env = run.serviceEnv(uri, 'bench');
  const service = Child.start(
    'service',
    'bench/service.ts',
    { ...env, DELIVERY_WORKER: 'false' },
    { quiet: true, nodeArgs: profile('service') },
  );
  const counting = Child.start(
    'service (counting)',
    'bench/service.ts',
    { ...env, MONGODB_COMMAND_METRICS: 'true' },
    { quiet: true },
  );
  const direct = Child.start(
    'direct',
    'bench/baselines.ts',
    { ...env, LOG_LEVEL: 'silent' },
    { nodeArgs: profile('direct') },
  );
  const ceiling = Child.start('ceiling', 'bench/ceiling.ts', {});
  children.push(service, counting, direct, ceiling);
  const serviceInfo = (await service.ready) as { url: string };
  const countingInfo = (await counting.ready) as { url: string; appUrl: string };
  const directInfo = (await direct.ready) as { url: string };
  const ceilingInfo = (await ceiling.ready) as { url: string };
  log(
    `service: ${serviceInfo.url} (pid ${service.pid}); counting its commands: ${countingInfo.url} (pid ${counting.pid})`,
  );
  log(`direct:  ${directInfo.url} (pid ${direct.pid}); ceiling: ${ceilingInfo.url} (pid ${ceiling.pid})`);
  const servers: Partial<Record<Target, { url: string; child: Child }>> = {
    service: { url: serviceInfo.url, child: service },
    direct: { url: directInfo.url, child: direct },
    ceiling: { url: ceilingInfo.url, child: ceiling },
  };
  // The peers serve only the GraphQL scenario's query.
  for (const peer of opts.peers && run.wanted('graphql') ? peers : []) {
    const child = Child.start(peer, 'bench/peers.ts', { ...env, BENCH_PEER: peer }, { quiet: true });
    children.push(child);
    const { url } = (await child.ready) as { url: string };
    servers[peer] = { url, child };
    log(`${peer}: ${url} (pid ${child.pid})`);
  }
  return {
    engine,
    uri,
    dataset,
    counting: { ...countingInfo, child: counting },
    server: (target) => servers[target]!,
  };
}
