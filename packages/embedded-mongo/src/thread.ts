/**
 * The embedded engine on a thread of its own (node:worker_threads), so that a long command keeps
 * only that thread busy while the process's own event loop goes on answering (health checks,
 * other requests). Clients reach it over TCP as before; the thread only starts the engine
 * (thread-entry.ts), reports its address or why it could not start, and closes it when asked.
 */
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EmbeddedMongo, EmbeddedMongoOptions } from './start.js';

/** An error as it crosses the thread boundary (posting an Error keeps only name and message). */
export interface ThreadError {
  name: string;
  message: string;
  code?: string | undefined;
  address?: string | undefined;
  port?: number | undefined;
}

/** What the thread posts: where the engine listens, or the error that stopped it. */
export type FromThread = { uri: string; host: string; port: number } | { error: ThreadError };

export interface EmbeddedMongoThreadOptions extends EmbeddedMongoOptions {
  /** Called once if the thread ends without being asked to (a crash): the engine is gone. */
  onUnexpectedExit?: (error: Error) => void;
}

export interface EmbeddedMongoThread extends EmbeddedMongo {
  /** The engine's thread (a test may terminate it to play a crash). */
  readonly worker: Worker;
}

/**
 * Data directories held by this process's engine threads. The store's lock file names the process,
 * and each thread has its own memory: without this, a second thread would take over a directory
 * whose lock names its own process as a leftover.
 */
const heldPaths = new Set<string>();

/**
 * Room for short-lived objects: every command decodes documents and makes index keys, and with a
 * young generation this size (V8's default is a few MB) far less time goes to collecting them
 * (the bench's batched inserts: 7.9k → 9.8k documents/s). The same as `npm run engine`'s
 * --max-semi-space-size=32 (a young generation is 3 semi-spaces).
 */
const YOUNG_GENERATION_MB = 96;

function revive(error: ThreadError): Error {
  return Object.assign(new Error(error.message), error);
}

/**
 * The thread runs thread-entry next to this file: compiled, the .js file as it is; from the
 * TypeScript sources (tsx, vitest), through thread-tsx.mjs, which registers tsx's loader first.
 */
function startWorker(workerData: EmbeddedMongoOptions): Worker {
  const extension = path.extname(fileURLToPath(import.meta.url));
  const entry = new URL(`./thread-entry${extension}`, import.meta.url);
  const options = { workerData, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } };
  if (extension !== '.ts') return new Worker(entry, options);
  return new Worker(new URL('./thread-tsx.mjs', import.meta.url), { ...options, argv: [entry.href] });
}

/** Starts the engine on its own thread; rejects with the engine's own error if it cannot start. */
export async function startEmbeddedMongoThread(
  options: EmbeddedMongoThreadOptions = {},
): Promise<EmbeddedMongoThread> {
  const { onUnexpectedExit, ...engineOptions } = options;
  const dir = options.path === undefined ? undefined : path.resolve(options.path);
  if (dir !== undefined) {
    if (heldPaths.has(dir))
      throw new Error(`the embedded engine's data directory ${dir} is in use by process ${process.pid}`);
    heldPaths.add(dir);
  }
  const worker = startWorker(engineOptions);
  worker.once('exit', () => {
    if (dir !== undefined) heldPaths.delete(dir);
  });
  let failure: Error | undefined;
  worker.on('error', (error) => {
    failure = error;
  });
  worker.on('message', (message: FromThread) => {
    if ('error' in message) failure = revive(message.error);
  });

  const [started] = (await Promise.race([once(worker, 'message'), once(worker, 'exit')])) as [unknown];
  if (typeof started !== 'object' || started === null || !('uri' in started)) {
    await worker.terminate();
    throw failure ?? new Error(`the embedded engine's thread exited (code ${started}) before it started`);
  }
  const { uri, host, port } = started as { uri: string; host: string; port: number };

  let closing: Promise<void> | undefined;
  worker.once('exit', (code) => {
    if (!closing)
      onUnexpectedExit?.(failure ?? new Error(`the embedded engine's thread exited (code ${code})`));
  });
  return {
    uri,
    host,
    port,
    worker,
    close() {
      closing ??= (async () => {
        if (worker.threadId < 0) return; // already ended
        const exited = once(worker, 'exit');
        worker.postMessage('close');
        const [code] = (await exited) as [number];
        if (code !== 0) throw failure ?? new Error(`the embedded engine's thread exited (code ${code})`);
      })();
      return closing;
    },
  };
}
