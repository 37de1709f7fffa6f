/**
 * The server's delivery worker on its own thread (DELIVERY_WORKER_THREAD=worker, as `npm start`
 * runs it): work a request queues reaches it at once (the hint crosses threads), its attempts and
 * commands show in the server's /metrics, it is started again after a crash, and the server's stop
 * ends it.
 */
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';
import { createWebhook, emailOf, ingest, recordingJson, startDeliveryTest } from './support.js';

const owner = 'team admin (Sales)';

let t: TestApp;
let rx: Receiver;
let closed = false;

beforeAll(async () => {
  // A worker that polled would find the work within a minute: only the hint brings it sooner.
  [t, rx] = await startDeliveryTest({
    DELIVERY_WORKER: 'true',
    DELIVERY_WORKER_THREAD: 'worker',
    DELIVERY_POLL_MS: '60000',
  });
  await createWebhook(t, owner, `${rx.url}/hook`, { triggeredFor: ['MY_RECORDINGS'] });
});
afterAll(async () => {
  if (!closed) await t.close();
  await rx.close();
});

const thread = (): Worker => t.app.worker!.thread!;

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('the delivery worker on its own thread', () => {
  it("delivers an ingestion's event at once, from a thread other than the server's", async () => {
    expect(thread().threadId).toBeGreaterThan(0);
    const started = Date.now();
    const { recordingId } = await ingest(t, recordingJson(emailOf(owner)));
    const [event] = await rx.waitFor(1, '/hook', 10_000);
    expect(JSON.parse(event!.body).recording_id).toBe(recordingId);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("counts the thread's attempts and commands in the server's /metrics", async () => {
    // Reports cross threads after the attempt is recorded: wait for them rather than race them.
    await expect
      .poll(() => metric('delivery_attempts_total', 'outcome="delivered"'), { timeout: 5_000 })
      .toBeGreaterThanOrEqual(1);
    // Only the worker logs attempts: these commands came from the thread's own connection.
    expect(await metric('mongodb_commands_total', 'collection="deliveryAttempts"')).toBeGreaterThanOrEqual(1);
  });

  it('is started again after its thread crashes, and delivers what comes next', async () => {
    const crashed = thread();
    await crashed.terminate();
    await expect.poll(() => thread() !== crashed && thread().threadId > 0, { timeout: 10_000 }).toBe(true);
    const { recordingId } = await ingest(t, recordingJson(emailOf(owner)));
    const events = await rx.waitFor(2, '/hook', 10_000);
    expect(events.map((e) => JSON.parse(e.body).recording_id)).toContain(recordingId);
  });

  it("ends with the server's stop", async () => {
    const running = thread();
    const exited = once(running, 'exit');
    closed = true;
    await t.close();
    const [code] = (await exited) as [number];
    expect(code).toBe(0);
  });
});
