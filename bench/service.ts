/**
 * Child process: the service as `npm start` runs it (`startApp` with the configuration from the
 * environment), pointed at the engine through MONGODB_URI. While src/app.ts does not mount the
 * REST door yet, a second listener in this same process serves /external/v1 and /graphql through
 * one Yoga instance over the app's database, the way test/rest/support.ts does; once the app
 * serves /external/v1 itself, that is what gets measured.
 */
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { createRestDoor } from '../rest-compat/index.js';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createGraphQLServer } from '../src/graphql/yoga.js';
import { createMetrics } from '../src/http/metrics.js';
import { operationalDoors } from '../src/http/operations.js';
import { closeGracefully, createHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/logger.js';
import { commandCounter, failToParent, serveParent } from './ipc.js';

// Every client this process connects (the app's, and the delivery worker's own) is counted, through
// the driver's public command monitoring: a listener added as each client connects.
let allCommands = 0;
const connect = MongoClient.prototype.connect;
MongoClient.prototype.connect = function (this: MongoClient) {
  this.on('commandStarted', () => allCommands++);
  return connect.call(this);
};

try {
  const config = loadConfig(process.env);
  const logger = createLogger(config.LOG_LEVEL);
  const app = await startApp(config, logger);
  const counter = commandCounter(app.database);

  const wired = (await fetch(`${app.url}/external/v1/openapi.json`)).status === 200;
  let url = app.url;
  let closeLocal = async () => {};
  if (!wired) {
    const graphql = createGraphQLServer({
      collections: app.database.collections,
      logger,
      corsOrigins: [],
      rateLimits: {
        limits: { general: config.RATE_LIMIT_GENERAL, heavy: config.RATE_LIMIT_HEAVY },
        windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      },
    });
    const metrics = createMetrics();
    const server = createHttpServer(
      [
        ...operationalDoors(app.database, metrics),
        { path: '/graphql', handler: (req, res, { requestId }) => graphql.handle(req, res, { requestId }) },
        createRestDoor({ graphql, logger }),
      ],
      logger,
      metrics,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closeLocal = () => closeGracefully(server, 2000);
  }

  serveParent({
    info: { url, appUrl: app.url, restMountedByApp: wired },
    ...counter,
    allCommands: () => allCommands,
    calls: {
      // A full collection, when the process runs with --expose-gc (npm run soak does, before it reads the RSS).
      gc: () => {
        const gc = (globalThis as { gc?: () => void }).gc;
        gc?.();
        return gc !== undefined;
      },
    },
    stop: async () => {
      await closeLocal();
      await app.close();
    },
  });
} catch (error) {
  failToParent(error);
}
