/**
 * Child process: the service as `npm start` runs it (`startApp` with the configuration from the
 * environment), pointed at the engine through MONGODB_URI.
 */
import { BSON, type Document, MongoClient } from 'mongodb';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { commandCollection } from '../src/db/connection.js';
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
  // The engine scenario replays the app's own queries: it asks for the commands of a request.
  let recorded: Document[] | null = null;
  app.database.onCommand((event) => {
    if (recorded && commandCollection(event)) recorded.push(event.command);
  });

  serveParent({
    info: { url: app.url, appUrl: app.url },
    ...counter,
    allCommands: () => allCommands,
    calls: {
      recordCommands: () => {
        recorded = [];
      },
      /** The commands sent since `recordCommands`, as canonical Extended JSON (types kept). */
      recordedCommands: () => {
        const commands = recorded ?? [];
        recorded = null;
        return BSON.EJSON.stringify(commands, { relaxed: false });
      },
      // A full collection, when the process runs with --expose-gc (npm run soak does, before it reads the RSS).
      gc: () => {
        const gc = (globalThis as { gc?: () => void }).gc;
        gc?.();
        return gc !== undefined;
      },
    },
    stop: () => app.close(),
  });
} catch (error) {
  failToParent(error);
}
