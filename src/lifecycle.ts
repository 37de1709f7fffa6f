/**
 * How an entry point (the server, the worker) fails at start and stops: an operator reads one line
 * and an exit code, not a stack trace; SIGTERM/SIGINT drain and exit 0 so that a container runtime
 * or process manager sees a clean stop.
 */
import { ConfigError } from './config.js';
import type { Logger } from './logger.js';
import { redactCredentials } from './redact.js';
import { shutdownTelemetry } from './telemetry.js';

/** The configuration `load` reads, or its problems on stderr and exit 2 (the usage is wrong). */
export function configOrExit<T>(load: () => T, hint = ''): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n${hint ? `\n${hint}\n` : ''}`);
    process.exit(2);
  }
}

/** The one line explaining why the process could not start (credentials redacted). */
export function startupFailure(error: unknown, mongoUri: string | undefined): string {
  const e = error as Partial<NodeJS.ErrnoException & { address: string; port: number }>;
  const where = `${e.address}:${e.port}`;
  if (e.code === 'EADDRINUSE') return `cannot listen on ${where}: the port is already in use`;
  if (e.code === 'EACCES') return `cannot listen on ${where}: permission denied`;
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  const uri = mongoUri ?? 'the embedded engine';
  let line: string;
  // By name: the URI parser the driver uses throws its own MongoParseError class.
  if (name === 'MongoServerSelectionError') line = `cannot reach MongoDB at ${uri}: ${message}`;
  else if (name === 'MongoParseError')
    line = `MONGODB_URI ${uri} is refused by the MongoDB driver: ${message}`;
  else line = `cannot start: ${name}: ${message}`;
  return redactCredentials(line);
}

/** Prints the startup failure and exits 1 (bad configuration exits 2 before this). */
export function exitOnStartupFailure(error: unknown, mongoUri: string | undefined): never {
  process.stderr.write(`${startupFailure(error, mongoUri)}\n`);
  process.exit(1);
}

/**
 * On the first SIGTERM or SIGINT: log, run `close` (which drains within `graceMs`), exit 0, or 1
 * if closing failed or outlived the grace by more than a few seconds (so nothing is left running).
 */
export function exitOnStopSignal(
  logger: Logger,
  graceMs: number,
  close: () => Promise<void>,
  messages = { stopping: 'shutting down', stopped: 'stopped' },
): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, messages.stopping);
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown outlived the grace period; exiting');
      process.exit(1);
    }, graceMs + 5_000).unref();
    try {
      await close();
      logger.info(messages.stopped);
      await shutdownTelemetry(); // flushes the last spans (bounded; a no-op when tracing is off)
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
      await shutdownTelemetry();
      process.exit(1);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
