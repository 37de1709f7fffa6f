/**
 * Composition root: database (MongoDB or the embedded engine), demo data, the HTTP doors.
 * `main.ts` runs it as a process; tests start it in-process.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoDataset, loadDataset } from '../seeds/index.js';
import type { Config } from './config.js';
import { commandCollection, connectDatabase, type Database } from './db/connection.js';
import { type EmbeddedMongo, startEmbeddedMongo } from './embedded-mongo/index.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { createMetrics } from './http/metrics.js';
import { operationalDoors } from './http/operations.js';
import { closeGracefully, createHttpServer } from './http/server.js';
import type { Logger } from './logger.js';

export interface App {
  server: Server;
  /** Base URL the server listens on, e.g. http://127.0.0.1:4000 */
  url: string;
  database: Database;
  /** The MongoDB URI in use: the embedded engine's when MONGODB_URI was unset. */
  mongoUri: string;
  close(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<App> {
  let engine: EmbeddedMongo | undefined;
  let mongoUri = config.MONGODB_URI;
  if (!mongoUri) {
    engine = await startEmbeddedMongo({ port: config.EMBEDDED_MONGO_PORT });
    mongoUri = engine.uri;
    logger.warn(
      { mongoUri },
      'MONGODB_URI is unset: using the embedded in-memory engine (data is lost on exit)',
    );
  }

  const metrics = createMetrics();
  const database = await connectDatabase(mongoUri, config.MONGODB_DB);
  database.onCommand((event) =>
    metrics.mongoCommands.inc({ collection: commandCollection(event), command: event.commandName }),
  );

  if (config.SEED_DEMO ?? engine !== undefined) {
    const counts = await loadDataset(database.collections, demoDataset());
    logger.info({ counts }, 'demo dataset loaded');
  }

  const graphql = createGraphQLServer({
    collections: database.collections,
    logger,
    corsOrigins: config.CORS_ORIGINS,
    rateLimits: {
      limits: { general: config.RATE_LIMIT_GENERAL, heavy: config.RATE_LIMIT_HEAVY },
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    },
  });
  const server = createHttpServer(
    [
      ...operationalDoors(database, metrics),
      { path: '/graphql', handler: (req, res, { requestId }) => graphql.handle(req, res, { requestId }) },
    ],
    logger,
    metrics,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;

  return {
    server,
    url: `http://${host}:${port}`,
    database,
    mongoUri,
    async close() {
      await closeGracefully(server, config.SHUTDOWN_GRACE_MS);
      await database.close();
      await engine?.close();
    },
  };
}
