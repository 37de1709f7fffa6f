// The engines, clients and data directories a test opens: `afterEach(cleanUp)` closes and removes
// them, `closeOpened` closes them mid-test (to reopen a directory).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { type EmbeddedMongo, type EmbeddedMongoOptions, startEmbeddedMongo } from '../../src/index.js';

const dirs: string[] = [];
/** Closed in order: clients first, then what they connect to. */
export const opened: Array<{ close(): Promise<void> }> = [];

export function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'embedded-mongo-'));
  dirs.push(dir);
  return dir;
}

export async function start(
  options: EmbeddedMongoOptions,
): Promise<{ engine: EmbeddedMongo; client: MongoClient }> {
  const engine = await startEmbeddedMongo(options);
  opened.push(engine);
  const client = await new MongoClient(engine.uri).connect();
  opened.unshift(client);
  return { engine, client };
}

export async function closeOpened(): Promise<void> {
  for (const resource of opened.splice(0)) await resource.close();
}

export async function cleanUp(): Promise<void> {
  await closeOpened();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
