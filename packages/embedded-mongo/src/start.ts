/**
 * embedded-mongo — an in-process MongoDB-compatible server.
 *
 * It listens on a local TCP port and speaks the MongoDB wire protocol (OP_MSG, plus the legacy
 * OP_QUERY handshake), so the official `mongodb` driver connects to it exactly as it would to a
 * standalone `mongod`. A planner (planner.ts) serves queries from ordered indexes; matching,
 * updates and aggregation pipelines are evaluated with mingo, numbers keep their BSON types
 * (numbers.ts); unique indexes are enforced. Documents live in an LMDB store (persistence.ts), read
 * through a bounded cache (document-cache.ts). With `path` the store is there: a write is
 * acknowledged once it is on disk, and the next start on that path finds everything again; without
 * it the store is a temporary directory, and its data is lost on `close()`.
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
import { DEFAULT_CACHE_MB, DocumentCache } from './document-cache.js';
import { Store } from './persistence.js';
import { startServer } from './server.js';
import { Engine } from './storage.js';

export interface EmbeddedMongoOptions {
  /** Fixed port, or 0 / undefined for an ephemeral one. */
  port?: number;
  /** Interface to bind; defaults to 127.0.0.1. */
  host?: string;
  /** Directory of the durable store (created if missing); unset keeps everything in memory. */
  path?: string | undefined;
  /**
   * Megabytes (of BSON) of decoded documents kept in memory for point reads; by default
   * EMBEDDED_MONGO_CACHE_MB, else 64.
   */
  cacheMb?: number | undefined;
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
  const cache = new DocumentCache(cacheMegabytes(options.cacheMb) * 2 ** 20);
  const store = options.path === undefined ? Store.temporary(cache) : Store.open(options.path, cache);
  const engine = new Engine(store);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    await store.load(engine);
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

/** The cache's bound: the option, else the environment's EMBEDDED_MONGO_CACHE_MB, else the default. */
function cacheMegabytes(option: number | undefined): number {
  const fromEnvironment = process.env.EMBEDDED_MONGO_CACHE_MB;
  const [mb, source] =
    option !== undefined
      ? [option, 'cacheMb']
      : fromEnvironment
        ? [Number(fromEnvironment), 'EMBEDDED_MONGO_CACHE_MB']
        : [DEFAULT_CACHE_MB, 'default'];
  if (!Number.isFinite(mb) || mb < 0)
    throw new Error(`${source} must be a number of megabytes, 0 or more (got ${option ?? fromEnvironment})`);
  return mb;
}
