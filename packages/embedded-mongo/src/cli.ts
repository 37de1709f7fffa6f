#!/usr/bin/env node
/**
 * `npm run engine`: the embedded engine alone on a port, for other processes (`MONGODB_URI=...
 * npm start`, `npm run worker`) and any MongoDB client. Prints its connection string and where its
 * data is; SIGTERM or SIGINT closes it (the store flushed, its lock released) and exits 0. Exit
 * code 2 on bad arguments, 1 when it cannot start (port in use, data directory held elsewhere).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedMongo } from './start.js';

// Beside a local mongod's 27017, never on it: a client meant for a real MongoDB should not find
// this engine there (this package's README uses it too).
const DEFAULT_PORT = 27018;
const DEFAULT_PATH = './data'; // npm start's default too: both see the same data

const usage = `Usage: embedded-mongo [options]   (in the gateway's checkout: npm run engine -- [options])

The embedded MongoDB-compatible engine alone (for development and tests: no authentication, no
replication). Other processes connect with the connection string it prints.

Options:
  --port N       TCP port (default ${DEFAULT_PORT}; 0 picks a free one)
  --host HOST    interface to listen on (default 127.0.0.1)
  --path DIR     directory of its data, created if missing (default ${DEFAULT_PATH}, as npm start)
  --in-memory    keep the data in memory only, lost on exit
  --cache-mb N   megabytes of documents cached in memory (default $EMBEDDED_MONGO_CACHE_MB, else 64)
  -h, --help     print this help
`;

// --exit-with-stdin (not for users, left out of the help): the tests start the engine with a
// pipe as stdin and the engine exits when it closes, so it never outlives the test process.
const options = {
  port: { type: 'string' },
  host: { type: 'string', default: '127.0.0.1' },
  path: { type: 'string' },
  'in-memory': { type: 'boolean', default: false },
  'cache-mb': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  'exit-with-stdin': { type: 'boolean', default: false },
} as const;

function badArguments(message: string): never {
  process.stderr.write(`${message}\n\n${usage}`);
  process.exit(2);
}

let args: ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];
try {
  args = parseArgs({ options, strict: true, allowPositionals: false }).values;
} catch (error) {
  badArguments((error as Error).message);
}
if (args.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const port = Number(args.port ?? DEFAULT_PORT);
if (!/^\d+$/.test(args.port ?? '0') || port > 65535)
  badArguments(`--port must be an integer from 0 to 65535 (got "${args.port}")`);
if (args['in-memory'] && args.path !== undefined) badArguments('--path and --in-memory exclude each other');
const dataPath = args['in-memory'] ? undefined : path.resolve(args.path ?? DEFAULT_PATH);
const cacheMb = args['cache-mb'] === undefined ? undefined : Number(args['cache-mb']);
if (cacheMb !== undefined && (!Number.isFinite(cacheMb) || cacheMb < 0))
  badArguments(`--cache-mb must be a number of megabytes, 0 or more (got "${args['cache-mb']}")`);

/** One line saying why the engine could not start, and what to do about it. */
function startupFailure(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const where = `${args.host}:${port}`;
  if (e.code === 'EADDRINUSE')
    return `cannot listen on ${where}: the port is already in use; stop what holds it or choose another --port`;
  if (e.code === 'EACCES') return `cannot listen on ${where}: permission denied; choose another --port`;
  const message = error instanceof Error ? error.message : String(error);
  if (/ is in use by /.test(message))
    return `${message}; stop that process, or choose another --path (or --in-memory)`;
  return `cannot start the engine: ${message}`;
}

let engine: Awaited<ReturnType<typeof startEmbeddedMongo>>;
try {
  engine = await startEmbeddedMongo({ port, host: args.host, path: dataPath, cacheMb });
} catch (error) {
  process.stderr.write(`${startupFailure(error)}\n`);
  process.exit(1);
}

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    await engine.close();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`error while closing the engine: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (args['exit-with-stdin']) process.stdin.on('end', stop).resume();

process.stdout.write(
  [
    `MongoDB URI: ${engine.uri}`,
    `Data:        ${dataPath ?? 'in memory only, lost on exit (--in-memory)'}`,
    '',
    `Use it:      MONGODB_URI='${engine.uri}' npm start`,
    'Stop it:     Ctrl-C (or SIGTERM)',
    '',
  ].join('\n'),
);
