/**
 * The outbox's hint belongs to its app: two apps in one process (as the suite and the bench start
 * them), each with its delivery worker polling only once a minute, so that only a hint brings work
 * sooner. What one app queues wakes its own worker (here on its thread: the hint crosses by its
 * channel name) and leaves the other's asleep (it sends not a single command).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';
import { createWebhook, emailOf, ingest, recordingJson, startDeliveryTest } from './support.js';

const owner = 'team admin (Sales)';
const asleep = { DELIVERY_WORKER: 'true', DELIVERY_POLL_MS: '60000' };

let a: TestApp;
let b: TestApp;
let rxA: Receiver;
let rxB: Receiver;
/** Commands each app's worker sent (its own connection), as its app reports them. */
const commands = { a: 0, b: 0 };

beforeAll(async () => {
  [[a, rxA], [b, rxB]] = await Promise.all([
    startDeliveryTest({ ...asleep, DELIVERY_WORKER_THREAD: 'worker' }),
    startDeliveryTest(asleep),
  ]);
  a.app.worker!.onCommands((counts) => {
    for (const [, , count] of counts) commands.a += count;
  });
  b.app.worker!.onCommands((counts) => {
    for (const [, , count] of counts) commands.b += count;
  });
  await Promise.all([
    createWebhook(a, owner, `${rxA.url}/a`, { triggeredFor: ['MY_RECORDINGS'] }),
    createWebhook(b, owner, `${rxB.url}/b`, { triggeredFor: ['MY_RECORDINGS'] }),
  ]);
  // Each worker looked for work once as it started; now both sleep until a hint (or a minute).
  await quiet();
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), rxA?.close(), rxB?.close()]);
});

/** Until neither worker has sent a command for half a second. */
async function quiet(): Promise<void> {
  for (let seen = -1; seen !== commands.a + commands.b; ) {
    seen = commands.a + commands.b;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The app's worker delivered and logged `count` attempts (its last writes of a batch). */
async function logged(t: TestApp, count: number): Promise<void> {
  await expect
    .poll(() => t.app.database.collections.deliveryAttempts.countDocuments(), { timeout: 10_000 })
    .toBe(count);
}

describe("an app's outbox hint", () => {
  it("wakes that app's worker, on its thread, and not another app's in the process", async () => {
    const before = commands.b;
    const { recordingId } = await ingest(a, recordingJson(emailOf(owner)));
    const [event] = await rxA.waitFor(1, '/a', 10_000);
    expect(JSON.parse(event!.body).recording_id).toBe(recordingId);
    await logged(a, 1);
    await quiet();
    expect(commands.b - before, "B's worker was woken by A's hint").toBe(0);
  });

  it("wakes the other app's worker when that app queues, and not the first one's", async () => {
    const before = commands.a;
    const { recordingId } = await ingest(b, recordingJson(emailOf(owner)));
    const [event] = await rxB.waitFor(1, '/b', 10_000);
    expect(JSON.parse(event!.body).recording_id).toBe(recordingId);
    await logged(b, 1);
    await quiet();
    expect(commands.a - before, "A's worker was woken by B's hint").toBe(0);
    expect(rxA.received).toHaveLength(1);
  });
});
