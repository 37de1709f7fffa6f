/**
 * A busy event loop is the service's overload, not a database outage: while the loop runs far
 * behind, requests for content are shed (OVERLOADED, 503, Retry-After: 1), and a driver timeout
 * the loop caused (a pool checkout that ran out while the loop was busy) is answered the same way,
 * without the outage warning, since the database, in a process of its own, answers all along.
 * The loop is made busy by this test itself: the app runs in its process.
 */

import { type EngineProcess, startEngineProcess } from '@meetings/embedded-mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset, loadDataset } from '../../seeds/index.js';
import { type App, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/db/connection.js';
import { createLogger } from '../../src/logger.js';
import { keyOf } from '../support/app.js';
import { logLines } from '../support/log-lines.js';

const { lines, sink } = logLines();
const admin = keyOf('account admin');
let engine: EngineProcess;
let app: App;

beforeAll(async () => {
  engine = await startEngineProcess();
  const seeding = await connectDatabase(engine.uri, 'meetings');
  await loadDataset(seeding.collections, demoDataset());
  await seeding.close();
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'warn',
    // One pooled connection: requests wait for it, and a wait runs out while the loop is busy.
    MONGODB_URI: `${engine.uri}${engine.uri.includes('?') ? '&' : '?'}maxPoolSize=1`,
    MONGODB_TIMEOUT_MS: '200',
    ADMISSION_MAX_LOOP_DELAY_MS: '100',
    DELIVERY_WORKER: 'false',
    RATE_LIMIT_GENERAL: '1000000',
    RATE_LIMIT_HEAVY: '1000000',
    ADMISSION_HEAVY_PER_CREDENTIAL: '1000',
    ADMISSION_BUDGET_MB: '1000000',
  });
  app = await startApp(config, createLogger('warn', sink));
}, 60_000);
afterAll(async () => {
  await app?.close();
  engine?.stop();
});

const small = '/graphql?query={meetings(first:5){edges{node{title}}}}';
const heavy = '/graphql?query={meetings(first:50){edges{node{title transcript{text}}}}}';
const restHeavy = '/external/v1/meetings?limit=50&include_transcript=true';

interface Answer {
  path: string;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
}

async function get(path: string): Promise<Answer> {
  const res = await fetch(`${app.url}${path}`, { headers: { 'x-api-key': admin } });
  const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
  return {
    path,
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code: body.errors?.[0]?.extensions?.code,
  };
}

/** Keeps the event loop busy for `ms`: turns of 400 ms of work with a moment between them. */
async function busyLoop(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const turn = performance.now() + 400;
    while (performance.now() < turn) {
      // the work of a saturated process
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('a busy event loop', () => {
  it('sheds content and answers driver timeouts as OVERLOADED with Retry-After: 1, never as an outage', async () => {
    expect((await get(heavy)).status).toBe(200);
    let busy = true;
    const answers: Answer[] = [];
    const client = async (path: string) => {
      while (busy) answers.push(await get(path));
    };
    const clients = Promise.all([small, small, heavy, heavy, restHeavy].map(client));
    await busyLoop(3_000);
    busy = false;
    await clients;

    const seen = answers.map((a) => `${a.status} ${a.code ?? ''}`);
    console.log(
      `busy loop: ${[...new Set(seen)].map((s) => `${s}: ${seen.filter((x) => x === s).length}`).join(', ')}`,
    );
    for (const a of answers) {
      expect([200, 503], JSON.stringify(a)).toContain(a.status);
      if (a.status === 503) {
        expect(a.retryAfter, JSON.stringify(a)).toBe('1');
        if (a.path.startsWith('/graphql')) expect(a.code, JSON.stringify(a)).toBe('OVERLOADED');
      }
    }
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(lines.filter((l) => /database unavailable/.test(l.msg))).toEqual([]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_shed_total\{reason="event_loop_delay"\} [1-9]/);

    // Once the loop keeps up again, everything is answered.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await get(heavy)).status).toBe(200);
    expect((await get(restHeavy)).status).toBe(200);
  }, 30_000);
});
