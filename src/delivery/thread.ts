/**
 * The server's delivery worker on a thread of its own (DELIVERY_WORKER_THREAD=worker, the
 * default). Claiming, building bodies, signing and sending then use another core than the
 * requests do: in a burst of ingestions the server's event loop was the bottleneck, running both.
 *
 * The thread (thread-entry.ts) connects to the database itself and runs the same DeliveryWorker
 * as `npm run worker`. It hears at once of work the server's requests queue (the app's outbox hint
 * crosses threads: the thread opens it by its channel name) and tells the server of every attempt,
 * for /metrics. A thread that ends without being asked to is logged and started again: the
 * messages it held are due again when their lease runs out, as after any worker's crash.
 */
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { AttemptOutcome, OutboxKind } from '../db/documents.js';
import type { OutboxHint } from '../domain/outbox.js';
import type { Logger } from '../logger.js';

/** Where and how the worker connects (the server's bounds: none for an engine on its own event loop). */
export interface WorkerConnection {
  mongoUri: string;
  timeoutMs: number | undefined;
  monitorCommands: boolean;
}

/** What the thread is started with (structured-cloned: plain data only). */
export interface DeliveryThreadData {
  config: Config;
  connection: WorkerConnection;
  /** The process's stdout is a terminal (the thread cannot tell): readable log lines. */
  tty: boolean;
  /** The channel of the app's outbox hint (OutboxHint.channel), which the thread's worker listens on. */
  hintChannel: string;
}

/** An attempt whose outcome was recorded, as the server's metrics need it. */
export interface AttemptReport {
  kind: OutboxKind;
  createdAt: Date;
  outcome: AttemptOutcome;
  answeredAt: Date;
}

/** Commands the thread's connection sent since its last report: [collection, command, count]. */
export type CommandCounts = [collection: string, command: string, count: number][];

export type FromDeliveryThread =
  | { started: true }
  | { attempt: AttemptReport }
  | { commands: CommandCounts }
  | { error: string };
export type ToDeliveryThread = { stop: { graceMs: number } };

export interface DeliveryThreadOptions {
  config: Config;
  connection: WorkerConnection;
  logger: Logger;
  /** The app's outbox hint: the thread's worker hears what the app queues. */
  hint: OutboxHint;
  onAttempt: (attempt: AttemptReport) => void;
  /** With MONGODB_COMMAND_METRICS: the commands the thread sent, reported once per turn of its loop. */
  onCommands?: (counts: CommandCounts) => void;
}

export interface DeliveryThread {
  /** The running thread (a test may terminate it to play a crash). */
  readonly worker: Worker;
  /** Stops claiming, lets attempts in flight finish within `graceMs`, then ends the thread. */
  stop(graceMs: number): Promise<void>;
}

/** A thread that ended unexpectedly starts again after this (twice as long after each failed start). */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** Time the thread gets beyond the grace to close its connection and end, before it is terminated. */
const CLOSE_MARGIN_MS = 5_000;

/**
 * Compiled, the thread runs thread-entry.js as it is; from the TypeScript sources (tsx, vitest),
 * through thread-tsx.mjs, which registers tsx's loader first (a worker does not
 * inherit its parent's).
 */
function spawn(data: DeliveryThreadData): Worker {
  const extension = path.extname(fileURLToPath(import.meta.url));
  const entry = new URL(`./thread-entry${extension}`, import.meta.url);
  if (extension !== '.ts') return new Worker(entry, { workerData: data });
  const shim = new URL('./thread-tsx.mjs', import.meta.url);
  return new Worker(shim, { workerData: data, argv: [entry.href] });
}

/** Starts the thread; rejects with the reason if its worker cannot start (the database unreachable). */
export async function startDeliveryThread(options: DeliveryThreadOptions): Promise<DeliveryThread> {
  const { config, connection, logger, hint, onAttempt, onCommands } = options;
  const data: DeliveryThreadData = {
    config,
    connection,
    tty: Boolean(process.stdout.isTTY),
    hintChannel: hint.channel,
  };
  let stopping: Promise<void> | undefined;
  let restarts = 0;

  const launch = async (): Promise<Worker> => {
    const worker = spawn(data);
    let failure: string | undefined;
    worker.on('error', (error) => {
      failure = error.message;
      logger.error({ err: error }, 'the delivery thread failed');
    });
    worker.on('message', (message: FromDeliveryThread) => {
      if ('attempt' in message) onAttempt(message.attempt);
      else if ('commands' in message) onCommands?.(message.commands);
      else if ('error' in message) failure = message.error;
    });
    const [first] = (await Promise.race([once(worker, 'message'), once(worker, 'exit')])) as [unknown];
    if (typeof first !== 'object' || first === null || !('started' in first)) {
      await worker.terminate();
      throw new Error(failure ?? `the delivery thread exited (code ${first}) before it started`);
    }
    worker.once('exit', (code) => {
      if (stopping) return;
      logger.error({ code, failure }, 'the delivery thread ended unexpectedly');
      restartLater();
    });
    return worker;
  };
  const restartLater = () => {
    const delayMs = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** restarts++);
    setTimeout(() => {
      if (stopping) return;
      launch().then(
        (worker) => {
          if (stopping) return void worker.terminate(); // stopped while it was starting
          current = worker;
          restarts = 0;
          logger.info('the delivery thread started again');
        },
        (error: Error) => {
          logger.error({ err: error }, 'the delivery thread could not start again');
          restartLater();
        },
      );
    }, delayMs).unref();
  };

  let current = await launch();
  return {
    get worker() {
      return current;
    },
    stop(graceMs) {
      stopping ??= (async () => {
        const worker = current;
        if (worker.threadId < 0) return; // already ended
        const exited = once(worker, 'exit');
        worker.postMessage({ stop: { graceMs } } satisfies ToDeliveryThread);
        const timer = setTimeout(() => void worker.terminate(), graceMs + CLOSE_MARGIN_MS);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}
