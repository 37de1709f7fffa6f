/**
 * A run of the bench, as every scenario sees it: the options, the log and its clock, which `--only`
 * ids were asked for, the service token and the service's environment, and the child processes
 * started so far (run.ts stops them, last started first, when the run ends however it ends).
 */
import { loadavg } from 'node:os';
import { NPM_START_ENV } from './engine-child.js';
import { serviceToken } from './fanout.js';
import type { Child } from './ipc.js';
import type { BenchOptions } from './options.js';
import { type Progress, startProgress } from './progress.js';
import { measuredServiceEnv } from './service-env.js';

export interface RunContext extends Progress {
  opts: BenchOptions;
  /** Whether `--only` names this id (or is absent: everything runs). */
  wanted: (id: string) => boolean;
  /** The service token: its SHA-256 is in every service's environment; the fan-out ingests with it. */
  token: { token: string; sha256: string };
  /** The environment of a service measured on the database `db` at `uri`. */
  serviceEnv: (uri: string, db: string) => Record<string, string>;
  /** Every child process started, in order. */
  children: Child[];
  startedAt: string;
  loadAverageAtStart: number;
}

export function startRun(opts: BenchOptions): RunContext {
  const progress = startProgress();
  const loadAverageAtStart = loadavg()[0]!;
  const startedAt = new Date().toISOString();
  const token = serviceToken();
  return {
    ...progress,
    opts,
    wanted: (id) => !opts.only || opts.only.has(id),
    token,
    serviceEnv: (uri, db) => ({
      ...measuredServiceEnv({ uri, db, logLevel: opts.logLevel, tokenSha256: token.sha256 }),
      NODE_ENV: 'production', // as `npm start` runs it (graphql-js skips its development checks)
      ...NPM_START_ENV,
    }),
    children: [],
    startedAt,
    loadAverageAtStart,
  };
}
