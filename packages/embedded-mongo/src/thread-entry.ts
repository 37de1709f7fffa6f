/**
 * The body of the engine's thread (see thread.ts): starts the engine with the options it was given,
 * posts back where it listens (or why it could not start), and closes it when asked.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type EmbeddedMongoOptions, startEmbeddedMongo } from './start.js';
import type { FromThread, ThreadError } from './thread.js';

const parent = parentPort!;
const post = (message: FromThread) => parent.postMessage(message);

/** Errors lose their own properties when posted: keep the ones an operator's message is made of. */
function describe(error: unknown): ThreadError {
  const e = (error instanceof Error ? error : new Error(String(error))) as NodeJS.ErrnoException & {
    address?: string;
    port?: number;
  };
  return { name: e.name, message: e.message, code: e.code, address: e.address, port: e.port };
}

try {
  const engine = await startEmbeddedMongo(workerData as EmbeddedMongoOptions);
  parent.once('message', async () => {
    try {
      await engine.close(); // the store flushed and closed, its lock released
      process.exit(0); // in a worker, ends this thread only
    } catch (error) {
      post({ error: describe(error) });
      process.exit(1);
    }
  });
  post({ uri: engine.uri, host: engine.host, port: engine.port });
} catch (error) {
  post({ error: describe(error) });
  process.exit(1);
}
