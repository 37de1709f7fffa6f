/**
 * The soak's first phase: what it runs against. The embedded engine in its own process with the
 * generated dataset (database `soak`), and the service over it in another (bench/service.ts), with
 * --expose-gc for the resting RSS and its log written to --service-log. Stops the run when the
 * service lacks the webhook machinery the soak checks.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { benchAdmin, loadBenchDataset } from '../../bench/dataset.js';
import { missingMachinery, serviceToken } from '../../bench/fanout.js';
import { Child } from '../../bench/ipc.js';
import type { Progress } from '../../bench/progress.js';
import { measuredServiceEnv } from '../../bench/service-env.js';
import { connectDatabase } from '../../src/db/connection.js';
import type { SoakOptions } from './options.js';

export interface Stack {
  engine: Child;
  /** Where the engine listens. */
  uri: string;
  service: Child;
  /** The service's door for API keys, and its app's own door (which knows the service token). */
  url: string;
  appUrl: string;
  /** The service token ingestion calls with. */
  token: string;
}

/** Started processes go into `children` at once, so the caller stops them whatever happens next. */
export async function startStack(opts: SoakOptions, children: Child[], { log }: Progress): Promise<Stack> {
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
      ...measuredServiceEnv({ uri, db: 'soak', logLevel: opts.logLevel, tokenSha256: token.sha256 }),
      // The mix sends refused keys on purpose, all from one address: that address must not be throttled.
      AUTH_FAILURES_PER_MINUTE: '1000000000',
    },
    { nodeArgs: ['--expose-gc'], stdout: logFd },
  );
  closeSync(logFd); // the child has its own copy
  children.push(service);
  const { url, appUrl } = (await service.ready) as { url: string; appUrl: string };
  log(`service: ${url} (pid ${service.pid}), engine pid ${engine.pid}`);
  const missing = await missingMachinery(url, benchAdmin.apiKey);
  if (missing) throw new Error(`the webhook machinery is not there: ${missing}`);
  return { engine, uri, service, url, appUrl, token: token.token };
}
