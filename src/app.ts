/**
 * Composition root: database (MongoDB or the embedded engine), demo data, the HTTP doors, the
 * delivery worker. `cli/service.ts` runs it as a process; tests start it in-process.
 */

import type { Server } from 'node:http';
import type { Worker } from 'node:worker_threads';
import { type EmbeddedMongo, startEmbeddedMongo, startEmbeddedMongoThread } from '@meetings/embedded-mongo';
import { createRestDoor, RouteRunner } from '../rest-compat/index.js';
import { demoDataset, demoMedia, demoPersonas, loadDataset } from '../seeds/index.js';
import { type Config, rateLimitPolicyOf } from './config.js';
import { commandCollection, connectDatabase, type Database } from './db/connection.js';
import { EgressGuard } from './delivery/egress.js';
import { type CommandCounts, startDeliveryThread, type WorkerConnection } from './delivery/thread.js';
import { deliveryWorkerFromConfig } from './delivery/worker.js';
import { ContentCache } from './domain/content-cache.js';
import { ContentReadyFeed } from './domain/content-ready-feed.js';
import { CredentialCache } from './domain/credential-cache.js';
import { CredentialUsage } from './domain/credential-usage.js';
import { LiveChanges } from './domain/live-changes.js';
import { mediaInMemory, storeMedia } from './domain/media.js';
import { MediaLinks } from './domain/media-links.js';
import { OutboxHint } from './domain/outbox.js';
import { ReferenceCache } from './domain/reference-cache.js';
import { presentsIngestionToken } from './domain/viewer.js';
import { AuthThrottle } from './graphql/auth-throttle.js';
import type { ResolverServices } from './graphql/context.js';
import { createDirectory } from './graphql/loaders.js';
import { schema } from './graphql/schema/index.js';
import { loadTrustedDocuments } from './graphql/trusted-documents.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { graphqlDoor } from './http/graphql-door.js';
import { homeDoor, serviceVersion } from './http/home.js';
import { mediaDoor } from './http/media.js';
import { createMetrics, type Metrics, observeAttempt, observeOutbox } from './http/metrics.js';
import { operationalDoors } from './http/operations.js';
import { restReferenceDoors } from './http/rest-reference.js';
import { closeGracefully, createHttpServer, listen } from './http/server.js';
import type { Logger } from './logger.js';
import { LoopDelay } from './loop-delay.js';
import { mcpDoors } from './mcp/door.js';
import { demoAccountsOf, oauthDoors } from './oauth/door.js';

export interface App {
  server: Server;
  /** Base URL the server listens on, e.g. http://127.0.0.1:4000 */
  url: string;
  database: Database;
  /** The MongoDB URI in use: the embedded engine's when MONGODB_URI was unset. */
  mongoUri: string;
  /** The embedded engine when MONGODB_URI was unset (on its own thread unless EMBEDDED_MONGO_THREAD=inline). */
  engine: EmbeddedMongo | undefined;
  /** Whether the demo personas' data is there: loaded at this start, or by an earlier one. */
  demoLoaded: boolean;
  /** The delivery worker running inside the server (DELIVERY_WORKER=true), on its own connection. */
  worker: ServerWorker | undefined;
  /** The egress guard's check, the live feed, the outbox hint..., as resolvers get them. */
  services: ResolverServices;
  close(): Promise<void>;
}

/** The server's own delivery worker, on its thread (DELIVERY_WORKER_THREAD=worker) or inline. */
export interface ServerWorker {
  /** Subscribes to the commands it sends (with MONGODB_COMMAND_METRICS); returns the unsubscribe function. */
  onCommands(listener: (counts: CommandCounts) => void): () => void;
  /** Its thread, when it has one (a test may terminate it to play a crash). */
  readonly thread: Worker | undefined;
  stop(graceMs: number): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<App> {
  // Before anything is started: a broken manifest stops the start with nothing to clean up.
  const trusted = config.GRAPHQL_TRUSTED_DOCUMENTS
    ? loadTrustedDocuments(config.GRAPHQL_TRUSTED_DOCUMENTS, schema, config.GRAPHQL_TRUSTED_ONLY)
    : undefined;
  let engine: EmbeddedMongo | undefined;
  let mongoUri = config.MONGODB_URI;
  const inline = config.EMBEDDED_MONGO_THREAD === 'inline';
  if (!mongoUri) {
    const path = config.EMBEDDED_MONGO_PATH;
    const options = { port: config.EMBEDDED_MONGO_PORT, path, cacheMb: config.EMBEDDED_MONGO_CACHE_MB };
    engine = inline
      ? await startEmbeddedMongo(options)
      : await startEmbeddedMongoThread({
          ...options,
          // The database is gone: requests answer 503 and /readyz not-ready, as in any outage.
          onUnexpectedExit: (err) => logger.error({ err }, 'the embedded engine stopped unexpectedly'),
        });
    mongoUri = engine.uri;
    if (path) logger.info({ mongoUri, path }, 'MONGODB_URI is unset: using the embedded engine');
    else
      logger.warn(
        { mongoUri },
        'MONGODB_URI is unset: using the embedded in-memory engine (data is lost on exit)',
      );
  }

  const metrics = createMetrics();
  const loopDelay = new LoopDelay();
  // An engine on our own event loop cannot hang on its own, and a long command of it would look
  // like a socket timeout: it gets no bounds. On its own thread it is a database like any other: a
  // stuck or dead engine fails requests within the bounds (503) while the server goes on answering.
  const connectOptions = {
    timeoutMs: engine && inline ? undefined : config.MONGODB_TIMEOUT_MS,
    monitorCommands: config.MONGODB_COMMAND_METRICS,
  };
  const database = await connectDatabase(mongoUri, config.MONGODB_DB, connectOptions);
  observeOutbox(metrics, database.collections);
  if (config.MONGODB_COMMAND_METRICS)
    database.onCommand((event) =>
      metrics.mongoCommands.inc({ collection: commandCollection(event), command: event.commandName }),
    );

  // The embedded engine gets the demo data on its first start only: a restart on its data
  // directory keeps what was ingested and changed since (the loader would set demo records back).
  const demoLoaded = config.SEED_DEMO ?? engine !== undefined;
  const demo = demoLoaded ? demoDataset() : undefined;
  const demoFiles = demo ? demoMedia(demo) : [];
  if (demo && (config.SEED_DEMO || (await isEmpty(database)))) {
    const counts = await loadDataset(database.collections, demo);
    // A few recordings get media, so that a download can be tried (the same files again change nothing).
    for (const { recordingId, contentType, bytes } of demoFiles)
      await storeMedia(database.collections, database.media, recordingId, mediaInMemory(contentType, bytes));
    logger.info({ counts }, 'demo dataset loaded');
  }

  const usage = new CredentialUsage(database.collections, config.LAST_USED_WRITE_MS);
  const contentReadyFeed = new ContentReadyFeed(database.collections, logger, config.SUBSCRIPTION_POLL_MS);
  const liveChanges = new LiveChanges(database.collections, logger, config.SUBSCRIPTION_POLL_MS);
  // Links name the service as its users reach it; unset, the address it listens on (known below).
  let publicUrl = config.PUBLIC_URL ?? '';
  const mediaLinks = await MediaLinks.load(database.collections, () => publicUrl);
  // This app's own: what its requests queue wakes its worker, and no other app's in the process.
  const outboxHint = new OutboxHint();
  const services: ResolverServices = {
    destinationCheck: new EgressGuard(config.EGRESS_ALLOW_CIDRS).destinationCheck,
    contentReadyFeed,
    liveChanges,
    references: new ReferenceCache(database.collections, config.INGEST_CACHE_MS),
    media: database.media,
    mediaLinks,
    outboxHint,
  };

  // With the demo data, GraphiQL and the REST reference's "Try it out" start with the account
  // admin's key: the first request just runs.
  const demoKey = demoLoaded ? demoPersonas.find((p) => p.label === 'account admin')?.apiKey : undefined;
  const credentials = new CredentialCache(
    database.collections,
    { ingestTokenSha256: config.INGEST_TOKEN_SHA256 },
    { ttlMs: config.CREDENTIAL_CACHE_MS, organisationTtlMs: config.DIRECTORY_CACHE_MS, usage },
  );
  const authThrottle = new AuthThrottle(config.AUTH_FAILURES_PER_MINUTE);
  const graphql = createGraphQLServer({
    collections: database.collections,
    logger,
    corsOrigins: config.CORS_ORIGINS,
    rateLimits: rateLimitPolicyOf(config),
    credentials,
    directory: createDirectory(database.collections, { ttlMs: config.DIRECTORY_CACHE_MS }),
    contentCache:
      config.CONTENT_CACHE_MB > 0 ? new ContentCache(config.CONTENT_CACHE_MB * 1_000_000) : undefined,
    services,
    admission: {
      heavyPerCredential: config.ADMISSION_HEAVY_PER_CREDENTIAL,
      budgetBytes: config.ADMISSION_BUDGET_MB * 1_000_000,
    },
    onShed: (reason) => metrics.shedRequests.inc({ reason }),
    overload: {
      loopBehind: () => loopDelay.ms() > config.ADMISSION_MAX_LOOP_DELAY_MS,
      databaseReachable: () => database.reachable(),
    },
    onRateLimited: (bucket) => metrics.rateLimitedRequests.inc({ bucket }),
    authThrottle,
    maxBodyBytes: config.GRAPHQL_MAX_BODY_BYTES,
    uploads: {
      maxUploadBytes: config.GRAPHQL_MAX_UPLOAD_MB * 1024 * 1024,
      mayUpload: (headers) =>
        presentsIngestionToken(headers, { ingestTokenSha256: config.INGEST_TOKEN_SHA256 }),
    },
    graphiql: demoLoaded ? { apiKey: demoKey, downloadableRecordingId: demoFiles[0]?.recordingId } : {},
    trustedDocuments: trusted,
  });
  // The route table's runner, shared by the REST door and the MCP door (whose tools are routes).
  const runner = new RouteRunner(graphql, logger);
  const server = createHttpServer(
    [
      ...operationalDoors(database, metrics),
      graphqlDoor(graphql),
      // Before the REST door: its endpoints are under /external/v1 too.
      ...oauthDoors({
        collections: database.collections,
        logger,
        publicUrl: () => publicUrl,
        demoAccounts: demoLoaded ? demoAccountsOf(demoPersonas) : [],
        upstream:
          config.OIDC_ISSUER && config.OIDC_CLIENT_ID && config.OIDC_CLIENT_SECRET
            ? {
                issuer: config.OIDC_ISSUER,
                clientId: config.OIDC_CLIENT_ID,
                clientSecret: config.OIDC_CLIENT_SECRET,
              }
            : undefined,
      }),
      ...mcpDoors({
        runner,
        credentials,
        authThrottle,
        logger,
        publicUrl: () => publicUrl,
        version: serviceVersion(),
        corsOrigins: config.CORS_ORIGINS,
      }),
      createRestDoor({ graphql, logger, runner }),
      mediaDoor(database.media, mediaLinks),
      ...restReferenceDoors({ apiKey: demoKey }),
      homeDoor({ version: serviceVersion(), demoPersonas: demoLoaded ? demoPersonas : undefined }),
    ],
    logger,
    metrics,
    { sendTimeoutMs: config.SEND_TIMEOUT_MS },
  );
  // The worker starts first (its thread takes seconds to load): once the service answers, it is
  // whole, and whoever waits for /readyz finds the banner (URLs, demo keys) already printed.
  const worker = config.DELIVERY_WORKER
    ? await startServerWorker(config, { mongoUri, ...connectOptions }, outboxHint, logger, metrics)
    : undefined;
  const url = await listen(server, config.PORT, config.HOST);
  publicUrl ||= url;

  return {
    server,
    url,
    database,
    mongoUri,
    engine,
    demoLoaded,
    worker,
    services,
    async close() {
      // Ends live subscriptions, so their streams do not hold the server open.
      contentReadyFeed.close();
      liveChanges.close();
      // Connections whose stream just ended turn idle after closeGracefully looked: close those too.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      try {
        await Promise.all([
          closeGracefully(server, config.SHUTDOWN_GRACE_MS),
          worker?.stop(config.SHUTDOWN_GRACE_MS),
        ]);
      } finally {
        clearInterval(idle);
      }
      await usage.close(); // the last uses noted: after the last request, before the database goes
      await database.close();
      await engine?.close();
      outboxHint.close();
      loopDelay.stop();
    },
  };
}

async function isEmpty(database: Database): Promise<boolean> {
  for (const collection of Object.values(database.collections))
    if ((await collection.estimatedDocumentCount()) > 0) return false;
  return true;
}

/**
 * The worker has its own connection: its polling neither competes with requests for the pool nor
 * shows up in what a request costs. On its own thread it also has its own event loop and core.
 */
async function startServerWorker(
  config: Config,
  connection: WorkerConnection,
  hint: OutboxHint,
  logger: Logger,
  metrics: Metrics,
): Promise<ServerWorker> {
  const listeners = new Set<(counts: CommandCounts) => void>();
  const onCommands = (counts: CommandCounts) => {
    for (const [collection, command, count] of counts)
      metrics.mongoCommands.inc({ collection, command }, count);
    for (const listener of listeners) listener(counts);
  };
  const subscribe = (listener: (counts: CommandCounts) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };

  if (config.DELIVERY_WORKER_THREAD === 'worker') {
    const thread = await startDeliveryThread({
      config,
      connection,
      logger,
      hint,
      onAttempt: ({ kind, createdAt, outcome, answeredAt }) =>
        observeAttempt(metrics, { kind, createdAt }, outcome, answeredAt),
      onCommands,
    });
    return {
      onCommands: subscribe,
      get thread() {
        return thread.worker;
      },
      stop: (graceMs) => thread.stop(graceMs),
    };
  }

  const { mongoUri, ...connectOptions } = connection;
  const database = await connectDatabase(mongoUri, config.MONGODB_DB, connectOptions);
  if (config.MONGODB_COMMAND_METRICS)
    database.onCommand((event) => onCommands([[commandCollection(event), event.commandName, 1]]));
  const worker = deliveryWorkerFromConfig(database.collections, config, logger, database.media, {
    hint,
    onAttempt: (message, outcome, answeredAt) => observeAttempt(metrics, message, outcome, answeredAt),
  });
  worker.start();
  return {
    onCommands: subscribe,
    thread: undefined,
    async stop(graceMs) {
      await worker.stop(graceMs);
      await database.close();
    },
  };
}
