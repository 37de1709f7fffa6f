/**
 * The body of the server's delivery thread (see thread.ts): the delivery worker on a connection of
 * its own, as `npm run worker` runs it, reporting each recorded attempt to the server (metrics)
 * and stopping gracefully when asked.
 */
import '../telemetry-worker.js'; // first: tracing patches mongodb and undici before they load
import { parentPort, workerData } from 'node:worker_threads';
import { commandCollection, connectDatabase, type Database } from '../db/connection.js';
import { OutboxHint } from '../domain/outbox.js';
import { createLogger, logDestination } from '../logger.js';
import { shutdownTelemetry } from '../telemetry.js';
import type { CommandCounts, DeliveryThreadData, FromDeliveryThread, ToDeliveryThread } from './thread.js';
import { deliveryWorkerFromConfig } from './worker.js';

const parent = parentPort!;
const post = (message: FromDeliveryThread) => parent.postMessage(message);
const { config, connection, tty, hintChannel } = workerData as DeliveryThreadData;

try {
  const logger = createLogger(config.LOG_LEVEL, logDestination(tty));
  const { mongoUri, ...connectOptions } = connection;
  const database = await connectDatabase(mongoUri, config.MONGODB_DB, connectOptions);
  if (connection.monitorCommands) reportCommands(database);
  const worker = deliveryWorkerFromConfig(database.collections, config, logger, database.media, {
    // The app's hint, by its channel name: what the server's requests queue reaches this thread.
    hint: new OutboxHint(hintChannel),
    onAttempt: (message, outcome, answeredAt) =>
      post({ attempt: { kind: message.kind, createdAt: message.createdAt, outcome, answeredAt } }),
  });
  parent.once('message', async ({ stop }: ToDeliveryThread) => {
    await worker.stop(stop.graceMs);
    await database.close();
    await shutdownTelemetry();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.exit(0); // in a worker, ends this thread only
  });
  worker.start();
  post({ started: true });
} catch (error) {
  post({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

/** Counts the connection's commands and posts them once per turn of the loop (not one message each). */
function reportCommands(database: Database): void {
  const counts = new Map<string, CommandCounts[number]>();
  database.onCommand((event) => {
    const collection = commandCollection(event);
    const key = `${collection}\0${event.commandName}`;
    const entry = counts.get(key);
    if (entry) entry[2]++;
    else {
      if (counts.size === 0)
        setImmediate(() => {
          post({ commands: [...counts.values()] });
          counts.clear();
        });
      counts.set(key, [collection, event.commandName, 1]);
    }
  });
}
