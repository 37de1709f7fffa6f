// Connects the conformance suite to its target: a real MongoDB when MONGODB_URI is set, otherwise
// the embedded engine. Tests only use the driver's public API so both targets behave the same.
import { randomBytes } from 'node:crypto';
import { type Db, type Document, MongoClient, MongoServerError } from 'mongodb';
import { expect } from 'vitest';
import { type EmbeddedMongo, startEmbeddedMongo } from '../../src/index.js';

export interface Target {
  client: MongoClient;
  /** A fresh database, unique to the calling test file. */
  db: Db;
  /** True when running against the embedded engine. */
  embedded: boolean;
  uri: string;
  /** Drops the database and closes everything. */
  close(): Promise<void>;
}

export async function connectTarget(label: string): Promise<Target> {
  const external = process.env.MONGODB_URI;
  let engine: EmbeddedMongo | undefined;
  let uri: string;
  if (external) {
    uri = external;
  } else {
    engine = await startEmbeddedMongo();
    uri = engine.uri;
  }
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
  } catch (err) {
    await engine?.close();
    throw err;
  }
  const dbName = `conf_${label}_${randomBytes(4).toString('hex')}`.slice(0, 60);
  const db = client.db(dbName);
  return {
    client,
    db,
    embedded: engine !== undefined,
    uri,
    async close() {
      try {
        await db.dropDatabase();
      } finally {
        await client.close();
        await engine?.close();
      }
    },
  };
}

/** The server error `promise` fails with (the test fails if it succeeds or fails otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<MongoServerError> {
  const err = await promise.then(
    () => {
      throw new Error('expected the operation to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MongoServerError);
  return err as MongoServerError;
}

/** Stages of a winning plan, depth first (through SBE's `queryPlan` wrapper where there is one). */
export function stagesOf(plan: Document): Document[] {
  const node = (plan.queryPlan ?? plan) as Document;
  const children = [node.inputStage, ...((node.inputStages as Document[] | undefined) ?? [])].filter(Boolean);
  return [node, ...children.flatMap((child) => stagesOf(child as Document))];
}

/** The stages of the plan a cursor would run (explain, queryPlanner). */
export async function winningStages(cursor: {
  explain(verbosity: 'queryPlanner'): Promise<Document>;
}): Promise<Document[]> {
  const explained = await cursor.explain('queryPlanner');
  return stagesOf(explained.queryPlanner.winningPlan as Document);
}
