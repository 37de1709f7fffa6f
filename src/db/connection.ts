/**
 * The one data path: the official MongoDB driver. Command monitoring feeds metrics and lets tests
 * count the round trips a request costs.
 */
import { type CommandStartedEvent, type Db, MongoClient } from 'mongodb';
import { type Collections, collectionsOf, ensureIndexes } from './collections.js';

export interface Database {
  client: MongoClient;
  db: Db;
  collections: Collections;
  /** Subscribes to every command the driver sends; returns the unsubscribe function. */
  onCommand(listener: (event: CommandStartedEvent) => void): () => void;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The collection a command addresses (find, insert, aggregate... name it as their first value). */
export function commandCollection(event: CommandStartedEvent): string {
  const target = event.command[event.commandName];
  return typeof target === 'string' ? target : '';
}

export async function connectDatabase(uri: string, dbName: string): Promise<Database> {
  const client = new MongoClient(uri, {
    monitorCommands: true,
    // Options given here override the URI's: keep 5 s only as the default the URI may change.
    ...(/[?&]serverSelectionTimeoutMS=/i.test(uri) ? {} : { serverSelectionTimeoutMS: 5_000 }),
    appName: 'meetings-gateway',
  });
  await client.connect();
  const db = client.db(dbName);
  const collections = collectionsOf(db);
  await ensureIndexes(collections);
  return {
    client,
    db,
    collections,
    onCommand(listener) {
      client.on('commandStarted', listener);
      return () => client.off('commandStarted', listener);
    },
    async ping() {
      try {
        await db.command({ ping: 1 }, { timeoutMS: 2_000 });
        return true;
      } catch {
        return false;
      }
    },
    close: () => client.close(),
  };
}
