/**
 * embedded-mongo — an in-process MongoDB-compatible server.
 *
 * It listens on a local TCP port and speaks the MongoDB wire protocol (OP_MSG, plus the legacy
 * OP_QUERY handshake), so the official `mongodb` driver connects to it exactly as it would to a
 * standalone `mongod`. A planner (planner.ts) serves queries from ordered indexes; matching,
 * updates and aggregation pipelines are evaluated with mingo, numbers keep their BSON types
 * (numbers.ts); unique indexes are enforced. Without `path` data lives only in memory and is lost on
 * `close()`; with `path` it is also kept in an LMDB store there (persistence.ts): a write is
 * acknowledged once it is on disk, and the next start on that path finds everything again.
 *
 * `startEmbeddedMongoThread` (thread.ts) runs it on a worker thread of its own, so its commands
 * never hold back the host's event loop (`npm start`); cli.ts runs it alone as a process
 * (`npm run engine`).
 *
 * It exists for tests and local development where no MongoDB server can be installed.
 * Production needs a real MongoDB deployment: there is no authentication, no
 * replication/transactions, and only the commands the driver's CRUD/index/aggregate APIs use.
 *
 * It imports nothing but its own modules and its dependencies: the package stands alone.
 */
import { DurableStore } from './persistence.js';
import { startServer } from './server.js';
import { Engine } from './storage.js';

export interface EmbeddedMongoOptions {
  /** Fixed port, or 0 / undefined for an ephemeral one. */
  port?: number;
  /** Interface to bind; defaults to 127.0.0.1. */
  host?: string;
  /** Directory of the durable store (created if missing); unset keeps everything in memory. */
  path?: string | undefined;
}

export interface EmbeddedMongo {
  /** Connection string for `new MongoClient(uri)`, e.g. `mongodb://127.0.0.1:PORT/?directConnection=true`. */
  readonly uri: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening and drops open connections; in memory, discards all data. */
  close(): Promise<void>;
}

export async function startEmbeddedMongo(options: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const store = options.path === undefined ? undefined : DurableStore.open(options.path);
  const engine = new Engine(store);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    store?.load(engine);
    server = await startServer(engine, { host: options.host, port: options.port });
  } catch (err) {
    await engine.close();
    throw err;
  }
  return {
    uri: server.uri,
    host: server.host,
    port: server.port,
    async close() {
      await server.close();
      await engine.close();
    },
  };
}
