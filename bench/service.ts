/**
 * Child process: the service as `npm start` runs it (`startApp` with the configuration from the
 * environment), pointed at the engine through MONGODB_URI. With MONGODB_COMMAND_METRICS=true it also
 * counts and records its commands for the bench; without it, it runs as users run it (the driver's
 * command events decode every reply a second time, which would weigh on its memory and CPU).
 */
import { BSON, type Document } from 'mongodb';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { commandCollection } from '../src/db/connection.js';
import { createLogger } from '../src/logger.js';
import { commandCounter, failToParent, serveParent } from './ipc.js';

try {
  const config = loadConfig(process.env);
  const logger = createLogger(config.LOG_LEVEL);
  const app = await startApp(config, logger);
  const counting = config.MONGODB_COMMAND_METRICS;
  const counter = counting ? commandCounter(app.database) : undefined;
  // Every command of the process: the app's, and its delivery worker's own connection (on its thread).
  let workerCommands = 0;
  app.worker?.onCommands((counts) => {
    for (const [, , count] of counts) workerCommands += count;
  });
  // The engine scenario replays the app's own queries: it asks for the commands of a request.
  let recorded: Document[] | null = null;
  if (counting)
    app.database.onCommand((event) => {
      if (recorded && commandCollection(event)) recorded.push(event.command);
    });

  serveParent({
    info: { url: app.url, appUrl: app.url },
    ...counter,
    allCommands: counter && (() => counter.commands() + workerCommands),
    calls: {
      recordCommands: () => {
        if (!counting)
          throw new Error(
            'this service does not see its commands: start it with MONGODB_COMMAND_METRICS=true',
          );
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
