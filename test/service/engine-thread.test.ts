/**
 * The embedded engine on its own thread (what `npm start` runs without MONGODB_URI): a long
 * command keeps the engine busy, not the server; a crash of the thread is an outage (logged,
 * /readyz not ready); and the engine's startup failures still reach the operator as one line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EmbeddedMongoThread } from '@meetings/embedded-mongo';
import { type EngineProcess, startEngineProcess } from '@meetings/embedded-mongo';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { builtEntry, ensureBuild } from '../support/build.js';
import { logLines } from '../support/log-lines.js';
import { exitOf, outputOf } from '../support/processes.js';

const { lines, sink } = logLines();
let app: App;
let client: MongoClient;

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'info',
    SEED_DEMO: 'false',
    DELIVERY_WORKER: 'false',
    EMBEDDED_MONGO_PATH: ':memory:',
    EMBEDDED_MONGO_THREAD: 'worker',
  });
  app = await startApp(config, createLogger(config.LOG_LEVEL, sink));
  client = new MongoClient(app.mongoUri, { monitorCommands: true });
});
afterAll(async () => {
  await client?.close();
  await app?.close();
});

describe('the service with the engine on its own thread', () => {
  it('answers HTTP while the engine is busy with a long command', async () => {
    const scratch = client.db('scratch').collection('busy');
    await scratch.insertMany(Array.from({ length: 1000 }, (_, i) => ({ i, k: i % 10 })));
    // A million $expr evaluations: seconds of work in one command, which on a shared event loop
    // would hold every HTTP answer back until it ended.
    const sent = new Promise<void>((resolve) => client.once('commandStarted', () => resolve()));
    const finished: string[] = [];
    const busy = scratch
      .aggregate([
        {
          $lookup: {
            from: 'busy',
            let: { k: '$k' },
            pipeline: [{ $match: { $expr: { $eq: ['$k', '$$k'] } } }],
            as: 'same',
          },
        },
        { $count: 'n' },
      ])
      .toArray()
      .then((result) => {
        finished.push('aggregate');
        return result;
      });
    await sent;
    const health = await fetch(`${app.url}/healthz`);
    finished.push('healthz');
    expect(health.status).toBe(200);
    expect(await busy).toEqual([{ n: 1000 }]);
    expect(finished).toEqual(['healthz', 'aggregate']);
  });

  it('reports a crash of the engine thread, and /readyz turns not ready', async () => {
    const engine = app.engine as EmbeddedMongoThread;
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    await engine.worker.terminate();
    expect(lines.find((l) => l.msg === 'the embedded engine stopped unexpectedly')?.level).toBe('error');
    expect((await fetch(`${app.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200); // alive, not ready
  });
});

describe('`npm start` when the engine cannot start', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'meetings-held-'));
  let holder: EngineProcess;
  beforeAll(async () => {
    [holder] = await Promise.all([startEngineProcess({ path: dir }), ensureBuild()]);
  }, 180_000);
  afterAll(() => {
    holder?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a data directory held by another engine: one line on stderr, exit 1', async () => {
    const child = spawn(process.execPath, [builtEntry('service')], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', EMBEDDED_MONGO_PATH: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = outputOf(child);
    expect((await exitOf(child)).code).toBe(1);
    expect(output.stderr.trim()).toBe(
      `cannot start: Error: the embedded engine's data directory ${dir} is in use by process ${holder.child.pid}`,
    );
  });
});
