/**
 * `npm run worker`: the delivery worker alone, against MONGODB_URI (any number may run at once).
 * Reads the same variables as the server (DELIVERY_*, EGRESS_ALLOW_CIDRS, LOG_LEVEL,
 * SHUTDOWN_GRACE_MS) and serves /healthz, /readyz and /metrics on WORKER_PORT.
 * SIGTERM/SIGINT: stop claiming, let attempts in flight finish within the
 * grace, exit 0. Exit codes: 2 bad configuration, 1 the database cannot be reached or another failure.
 */
import '../telemetry-worker.js'; // first: tracing patches mongodb and undici before they load
import type { Server } from 'node:http';
import { loadConfig } from '../config.js';
import { connectDatabase, type Database } from '../db/connection.js';
import { type DeliveryWorker, deliveryWorkerFromConfig } from '../delivery/worker.js';
import { createMetrics, observeAttempt, observeOutbox } from '../http/metrics.js';
import { operationalDoors } from '../http/operations.js';
import { closeGracefully, createHttpServer, listen } from '../http/server.js';
import { configOrExit, exitOnStartupFailure, exitOnStopSignal } from '../lifecycle.js';
import { createLogger } from '../logger.js';

const config = configOrExit(loadConfig);
if (!config.MONGODB_URI) {
  process.stderr.write(
    'MONGODB_URI is not set: the worker needs the database the server uses, e.g. MONGODB_URI=mongodb://127.0.0.1:27018/?directConnection=true\n',
  );
  process.exit(2);
}

const logger = createLogger(config.LOG_LEVEL);
// Registered before connecting: a stop asked for while connecting exits 0 at once.
let database: Database | undefined;
let worker: DeliveryWorker | undefined;
let endpoints: Server | undefined;
exitOnStopSignal(
  logger,
  config.SHUTDOWN_GRACE_MS,
  async () => {
    await Promise.all([
      endpoints && closeGracefully(endpoints, config.SHUTDOWN_GRACE_MS),
      worker?.stop(config.SHUTDOWN_GRACE_MS),
    ]);
    await database?.close();
  },
  { stopping: 'delivery worker stopping', stopped: 'delivery worker stopped' },
);
try {
  database = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB, {
    timeoutMs: config.MONGODB_TIMEOUT_MS,
  });
} catch (error) {
  exitOnStartupFailure(error, config.MONGODB_URI);
}
const metrics = createMetrics();
observeOutbox(metrics, database.collections);
worker = deliveryWorkerFromConfig(database.collections, config, logger, database.media, {
  onAttempt: (message, outcome, answeredAt) => observeAttempt(metrics, message, outcome, answeredAt),
});
// Its own /healthz, /readyz and /metrics, for the process manager and Prometheus.
endpoints = createHttpServer(operationalDoors(database, metrics), logger, metrics);
let url: string;
try {
  url = await listen(endpoints, config.WORKER_PORT, config.HOST);
} catch (error) {
  exitOnStartupFailure(error, config.MONGODB_URI);
}
worker.start();
logger.info({ pid: process.pid, concurrency: config.DELIVERY_CONCURRENCY, url }, 'delivery worker started');
