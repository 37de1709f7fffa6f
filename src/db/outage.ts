/**
 * Database outages: which driver errors mean "the database is unavailable" (as opposed to a bug
 * or a refused command), and how a poller waits them out quietly. The doors answer such an error
 * 503 with Retry-After; pollers log its start and its end, not every failed poll.
 */
import {
  MongoError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoOperationTimeoutError,
  MongoServerSelectionError,
} from 'mongodb';

/** Server errors of a primary stepping down or a server shutting down (failover, restart). */
const failoverCodes = new Set([
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Server errors of a database that cannot store anything until an operator acts (a full disk). */
const storageCodes = new Set([
  14031, // OutOfDiskSpace
]);

/** Whether `error` or one of its causes (five deep at most) passes `test`. */
function someCause(error: unknown, test: (e: Error) => boolean): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (test(e)) return true;
  return false;
}

/**
 * Whether `error` (or what caused it) says the database cannot be reached, did not answer in time or
 * cannot store.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return someCause(
    error,
    (e) =>
      e instanceof MongoServerSelectionError ||
      // Also MongoNetworkTimeoutError (socketTimeoutMS) and MongoPoolClearedError.
      e instanceof MongoNetworkError ||
      e instanceof MongoOperationTimeoutError ||
      // No connection free within waitQueueTimeoutMS (the driver does not export its class).
      e.name === 'MongoWaitQueueTimeoutError' ||
      (e instanceof MongoError &&
        typeof e.code === 'number' &&
        (failoverCodes.has(e.code) || storageCodes.has(e.code))),
  );
}

/**
 * Whether `error` (or what caused it) is a wait that ran out (a socket read, a pool checkout, an
 * operation's deadline) rather than a server that refused or vanished: with a busy event loop
 * these fire although the database answered, its reply unread behind our own work.
 */
export function isDatabaseTimeout(error: unknown): boolean {
  return someCause(
    error,
    (e) =>
      e instanceof MongoNetworkTimeoutError ||
      e instanceof MongoOperationTimeoutError ||
      e.name === 'MongoWaitQueueTimeoutError',
  );
}

/** The part of a logger an outage needs (pino's Logger has it). */
export interface OutageLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * A poller's view of outages: one warning when the database becomes unavailable, one info when it
 * answers again, and in between a delay that doubles from `baseMs` up to `capMs`, so a dead
 * database is neither flooded with polls nor the log with errors.
 */
export class OutageBackoff {
  private failures = 0;
  private since = 0;

  constructor(
    private readonly log: OutageLog,
    private readonly what: string,
    private readonly baseMs: number,
    private readonly capMs = 30_000,
  ) {}

  /** Whether the database is unavailable as far as this poller knows. */
  get active(): boolean {
    return this.failures > 0;
  }

  /** Records a failed poll; false when the error is no outage (the caller reports it itself). */
  failed(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (this.failures === 0) {
      this.since = Date.now();
      this.log.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        `database unavailable: ${this.what} backs off`,
      );
    }
    this.failures++;
    return true;
  }

  /** Records a poll that reached the database. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info({ ms: Date.now() - this.since }, `database available again: ${this.what} resumes`);
    this.failures = 0;
  }

  /** How long to wait before the next poll. */
  delay(): number {
    if (this.failures === 0) return this.baseMs;
    return Math.min(this.capMs, this.baseMs * 2 ** Math.min(this.failures, 20));
  }
}
