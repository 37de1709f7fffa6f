/**
 * A database for seed tests, through the real driver: MONGODB_URI when set, else the embedded
 * engine. Each call gets its own database name, dropped on close.
 */

import { startEmbeddedMongo } from '@meetings/embedded-mongo';
import { EJSON } from 'bson';
import type { Collections } from '../../src/db/collections.js';
import { connectDatabase, type Database } from '../../src/db/connection.js';

export interface TestDatabase {
  uri: string;
  dbName: string;
  database: Database;
  collections: Collections;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestDatabase(): Promise<TestDatabase> {
  const engine = process.env.MONGODB_URI ? undefined : await startEmbeddedMongo();
  const uri = process.env.MONGODB_URI ?? engine!.uri;
  const dbName = `seeds_test_${process.pid}_${++counter}`;
  const database = await connectDatabase(uri, dbName);
  return {
    uri,
    dbName,
    database,
    collections: database.collections,
    async close() {
      await database.db.dropDatabase();
      await database.close();
      await engine?.close();
    },
  };
}

/** Every document of every collection, as canonical Extended JSON (ObjectIds and dates exact). */
export async function dump(collections: Collections): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, collection] of Object.entries(collections)) {
    const docs = await collection.find({}).sort({ _id: 1 }).toArray();
    out[name] = EJSON.stringify(docs, { relaxed: false });
  }
  return out;
}
