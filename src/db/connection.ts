/**
 * The one data path: the official MongoDB driver. Command monitoring, when asked for, feeds metrics
 * and lets tests and the bench count the round trips a request costs. It is off by default: the
 * driver then decodes every reply whole to report it, and a cursor decodes it again (a page of ten
 * long transcripts: ~55 ms of CPU instead of ~35).
 */
import { type CommandStartedEvent, type Db, MongoClient } from 'mongodb';
import { type Collections, collectionsOf, ensureIndexes, upgradeDocuments } from './collections.js';
import { MediaStore } from './media-store.js';
import { watchReachability } from './reachability.js';

export interface Database {
  client: MongoClient;
  db: Db;
  collections: Collections;
  /** Recordings' media files (GridFS). */
  media: MediaStore;
  /**
   * Subscribes to every command the driver sends; returns the unsubscribe function. Only on a
   * database connected with `monitorCommands`.
   */
  onCommand(listener: (event: CommandStartedEvent) => void): () => void;
  ping(): Promise<boolean>;
  /** Whether the driver's monitor reaches the database (see reachability.ts); no round trip. */
  reachable(): boolean;
  close(): Promise<void>;
}

/** The collection a command addresses (find, insert, aggregate... name it as their first value). */
export function commandCollection(event: CommandStartedEvent): string {
  const target = event.command[event.commandName];
  return typeof target === 'string' ? target : '';
}

/** How long `ping` (readiness) waits for an answer, whatever the driver's timeouts. */
const PING_TIMEOUT_MS = 2_000;

/**
 * Driver options that bound every operation by `timeoutMs` when the database is absent or hung:
 * finding the server, connecting (also the monitor's checks), waiting for a pooled connection and
 * each socket read. `timeoutMS` (CSOT) is no help: it is a deprecated no-op since driver 7.8. A
 * read is retried once, so an operation fails within about twice `timeoutMs`.
 */
function boundedBy(timeoutMs: number) {
  return {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
  };
}

/**
 * `timeoutMs` bounds every operation (see boundedBy); without it (seeding, benchmarks, an
 * in-process engine) only server selection is, by 5 s, and a long bulk load is never cut.
 */
export async function connectDatabase(
  uri: string,
  dbName: string,
  options: { timeoutMs?: number; monitorCommands?: boolean } = {},
): Promise<Database> {
  const monitorCommands = options.monitorCommands ?? false;
  const client = new MongoClient(uri, {
    monitorCommands,
    // Options given here override the URI's: a bound the URI sets itself is left to it.
    ...Object.fromEntries(
      Object.entries(
        options.timeoutMs ? boundedBy(options.timeoutMs) : { serverSelectionTimeoutMS: 5_000 },
      ).filter(([name]) => !new RegExp(`[?&]${name}=`, 'i').test(uri)),
    ),
    appName: 'meetings-gateway',
  });
  const reachable = watchReachability(client);
  await client.connect();
  const db = client.db(dbName);
  const collections = await collectionsOf(db, client);
  const media = new MediaStore(db);
  await Promise.all([ensureIndexes(collections), media.ensureIndexes()]);
  await upgradeDocuments(collections);
  return {
    client,
    db,
    collections,
    media,
    onCommand(listener) {
      if (!monitorCommands)
        throw new Error('commands are not monitored on this connection (monitorCommands)');
      client.on('commandStarted', listener);
      return () => client.off('commandStarted', listener);
    },
    async ping() {
      // Its own deadline: the driver's may be longer, and readiness must answer in time.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
      });
      const answered = db.command({ ping: 1 }).then(
        () => true,
        () => false,
      );
      try {
        return await Promise.race([answered, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    reachable,
    close: () => client.close(),
  };
}
