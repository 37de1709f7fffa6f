/**
 * Every documented command stops cleanly: SIGTERM or SIGINT to the PID a container runtime or a
 * process manager holds (npm's, or node's for the built commands) drains, exits 0 within
 * SHUTDOWN_GRACE_MS and leaves no process behind; a request in flight still gets its answer. The
 * production commands run from dist/, built here when it is missing or stale (CI builds it once,
 * before its two suites: test/support/build.ts).
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { type EmbeddedMongo, startEmbeddedMongo } from '@meetings/embedded-mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuild } from '../support/build.js';
import { descendants, exitOf, isRunning, waitForOutput } from '../support/processes.js';

const graceMs = 5_000;
let engine: EmbeddedMongo;

beforeAll(async () => {
  [engine] = await Promise.all([startEmbeddedMongo(), ensureBuild()]);
}, 180_000);
afterAll(async () => {
  await engine?.close();
});

const server = { ready: /REST base URL: (http:\/\/\S+)\/external/, env: () => ({ SEED_DEMO: 'false' }) };
const worker = { ready: /delivery worker started/, env: () => ({ MONGODB_URI: engine.uri }) };
const commands = [
  { name: 'npm start', command: ['npm', 'start'], ...server },
  { name: 'npm run worker', command: ['npm', 'run', 'worker'], ...worker },
  { name: 'node dist/src/cli/service.js', command: [process.execPath, 'dist/src/cli/service.js'], ...server },
  {
    name: 'node dist/src/cli/worker.js',
    command: [process.execPath, 'dist/src/cli/worker.js'],
    ...worker,
  },
];

function start(command: string[], env: Record<string, string>) {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, {
    env: {
      ...process.env,
      PORT: '0',
      WORKER_PORT: '0',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: String(graceMs),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return child;
}

describe.each(commands)('$name', ({ command, ready, env }) => {
  it.each([
    'SIGTERM',
    'SIGINT',
  ] as const)('%s to its PID: exit 0 within the grace, no process left, the port closed', async (signal) => {
    const child = start(command, env());
    try {
      const url = ready.exec(await waitForOutput(child, ready))?.[1];
      const started = descendants(child.pid!);
      const stopAt = Date.now();
      child.kill(signal);
      expect(await exitOf(child)).toEqual({ code: 0, signal: null });
      expect(Date.now() - stopAt).toBeLessThan(graceMs);
      expect(started.filter(isRunning)).toEqual([]);
      if (url) await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('the built service (node dist/src/cli/service.js)', () => {
  it('serves GraphiQL and the REST door (whose documents are read from dist at start); a request in flight when SIGTERM arrives still gets its answer, then it exits 0', async () => {
    const child = start([process.execPath, 'dist/src/cli/service.js'], {});
    try {
      const banner = await waitForOutput(child, /REST base URL: (http:\/\/\S+)\/external[\s\S]*mk_demo\S+/);
      const url = server.ready.exec(banner)![1]!;
      const key = /mk_demo\S+/.exec(banner)![0];
      const graphiql = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
      expect(graphiql.status).toBe(200);
      expect(await graphiql.text()).toContain('GraphiQL');
      const meetings = await fetch(`${url}/external/v1/meetings?include_transcript=true`, {
        headers: { 'x-api-key': key },
      });
      expect(meetings.status).toBe(200);
      expect((await meetings.json()).items.length).toBeGreaterThan(0);

      const body = JSON.stringify({ query: '{ viewer { email } }' });
      const req = request(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': key },
      });
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
      });
      req.write(body.slice(0, 10));
      await delay(500); // the server has the request's head: the request is in flight
      const stopAt = Date.now();
      child.kill('SIGTERM');
      await delay(300);
      req.end(body.slice(10));
      const { status, text } = await response;
      expect(status).toBe(200);
      expect(JSON.parse(text)).toEqual({ data: { viewer: { email: expect.any(String) } } });
      expect(await exitOf(child)).toEqual({ code: 0, signal: null });
      expect(Date.now() - stopAt).toBeLessThan(graceMs);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000); // the demo dataset loads first: slow on a loaded machine
});
