/**
 * The server under test: a fresh in-memory embedded engine (one per test file, so no file sees
 * another's data), or the server MONGODB_URI names. The internal client is the format's: it
 * loads initialData, reads outcomes and serves the runner's own assertions.
 */
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '../src/index.js';

export interface ServerUnderTest {
  uri: string;
  internal: MongoClient;
  /** The version runOnRequirements are evaluated against. */
  version: string;
  close(): Promise<void>;
}

/** Starts (or connects to) the server; `version` overrides the version it reports. */
export async function openServer(version?: string): Promise<ServerUnderTest> {
  const external = process.env.MONGODB_URI;
  const engine = external ? undefined : await startEmbeddedMongo();
  const uri = external ?? (engine?.uri as string);
  const internal = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  const close = async () => {
    await internal.close();
    await engine?.close();
  };
  try {
    return { uri, internal, version: version ?? (await reportedVersion(internal)), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The format compares the first three elements of buildInfo's versionArray. */
async function reportedVersion(client: MongoClient): Promise<string> {
  const info = await client.db('admin').command({ buildInfo: 1 });
  return (info.versionArray as number[]).slice(0, 3).join('.');
}
