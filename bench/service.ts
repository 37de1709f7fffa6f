/**
 * Child process: the service as `npm start` runs it (`startApp` with the configuration from the
 * environment), pointed at the engine through MONGODB_URI.
 */
import { BSON, type Document } from 'mongodb';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { commandCollection } from '../src/db/connection.js';
import { createLogger } from '../src/logger.js';
import { commandCounter, failToParent, serveParent } from './ipc.js';

try {
  // This process counts the commands of every request, so it monitors them whatever its parent
  // (the bench, the soak) passed: without it the driver has no command events to give.
  const config = loadConfig({ ...process.env, MONGODB_COMMAND_METRICS: 'true' });
  const logger = createLogger(config.LOG_LEVEL);
  const app = await startApp(config, logger);
  const counter = commandCounter(app.database);
  // Every command of the process: the app's, and its delivery worker's own connection (on its thread).
  let workerCommands = 0;
  app.worker?.onCommands((counts) => {
    for (const [, , count] of counts) workerCommands += count;
  });
  // The engine scenario replays the app's own queries: it asks for the commands of a request.
  let recorded: Document[] | null = null;
  app.database.onCommand((event) => {
    if (recorded && commandCollection(event)) recorded.push(event.command);
  });

  serveParent({
    info: { url: app.url, appUrl: app.url },
    ...counter,
    allCommands: () => counter.commands() + workerCommands,
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
