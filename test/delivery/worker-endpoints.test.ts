/**
 * The worker alone (`npm run worker`, here built as production runs it) serves its own /healthz, /readyz and /metrics, so a process
 * manager can probe it and Prometheus can scrape its deliveries.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { builtEntry, ensureBuild } from '../support/build.js';
import { exitOf, waitForOutput } from '../support/processes.js';

let t: TestApp;
beforeAll(async () => {
  [t] = await Promise.all([startTestApp({ DELIVERY_WORKER: 'false' }), ensureBuild()]);
}, 180_000);
afterAll(() => t?.close());

describe('the standalone worker', () => {
  it('answers /healthz, /readyz and /metrics on WORKER_PORT, and stops on SIGTERM', async () => {
    const worker = spawn(process.execPath, [builtEntry('worker')], {
      env: { ...process.env, MONGODB_URI: t.app.mongoUri, WORKER_PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const started = await waitForOutput(worker, /"msg":"delivery worker started"/);
      const url = /"url":"(http:\/\/[^"]+)"/.exec(started)?.[1];
      expect(url).toBeDefined();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/outbox_messages\{status="pending"\} \d+/);
      expect(metrics).toContain('# TYPE delivery_attempts_total counter');
      expect(metrics).toContain('mongodb_commands_total');
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exitOf(worker)).toEqual({ code: 0, signal: null });
  });
});
