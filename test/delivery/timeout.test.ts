/**
 * Time limits: the total timeout of an attempt (15 s) — a receiver that hangs for 16 s gets its
 * attempt cut, logged as a timeout and retried on the schedule (the one slow test of the suite) —
 * and stopping: a worker stopped mid-attempt hands the message back, and closing the server ends
 * live subscriptions at once.
 */
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../src/delivery/egress.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';
import { createWebhook, emailOf, ingest, recordingJson, silentLogger, startDeliveryTest } from './support.js';

let t: TestApp;
let rx: Receiver;
beforeAll(async () => {
  [t, rx] = await startDeliveryTest();
});
let closed = false;
afterAll(async () => {
  await rx.close();
  if (!closed) await t.close();
});

describe('timeouts', () => {
  it('cuts an attempt to a receiver that hangs for 16 s at 15 s, and retries it', async () => {
    const tom = 'team admin (Sales)';
    const hook = await createWebhook(t, tom, `${rx.url}/hang`, { triggeredFor: ['MY_RECORDINGS'] });
    rx.respond('/hang', { status: 200, delayMs: 16_000 });
    const recording = recordingJson(emailOf(tom));
    await ingest(t, recording);
    const { collections } = t.app.database;
    const worker = new DeliveryWorker({
      collections,
      media: t.app.database.media,
      logger: silentLogger,
      egress: new EgressGuard(['127.0.0.1/32']),
    });
    const started = Date.now();
    await worker.runOnce(); // the default timeout: 15 s
    const took = Date.now() - started;
    await worker.stop();

    expect(rx.at('/hang')).toHaveLength(1);
    // Cut at 15 s: a timer counts from the event loop's cached time, which can be a few ms
    // before `started` was read (one run measured 14,997 ms).
    expect(took).toBeGreaterThanOrEqual(14_950);
    expect(took).toBeLessThan(16_000);
    const event = (await collections.outbox.findOne({ webhookId: new ObjectId(hook.id) }))!;
    expect(event).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastResponseStatus: null,
      lastError: 'timed out after 15000 ms',
    });
    const [attempt] = await collections.deliveryAttempts.find({ outboxId: event._id }).toArray();
    expect(attempt).toMatchObject({ outcome: 'retry', responseStatus: null, recorded: true });
    expect(attempt!.durationMs).toBeGreaterThanOrEqual(14_900);
    expect(attempt!.durationMs).toBeLessThan(16_000);
  }, 30_000);

  it('a worker stopped mid-attempt aborts it after the grace and hands the message back at once', async () => {
    const tom = 'team admin (Sales)';
    const hook = await createWebhook(t, tom, `${rx.url}/stopped`, { triggeredFor: ['MY_RECORDINGS'] });
    rx.respond('/stopped', { status: 200, delayMs: 10_000 });
    await ingest(t, recordingJson(emailOf(tom)));
    const { collections } = t.app.database;
    const worker = new DeliveryWorker({
      collections,
      media: t.app.database.media,
      logger: silentLogger,
      egress: new EgressGuard(['127.0.0.1/32']),
      pollMs: 50,
    });
    worker.start();
    await rx.waitFor(1, '/stopped');
    const started = Date.now();
    await worker.stop(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    const event = (await collections.outbox.findOne({ webhookId: new ObjectId(hook.id) }))!;
    expect(event).toMatchObject({ status: 'pending', attempts: 0, leaseToken: null });
    expect(event.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    const [attempt] = await collections.deliveryAttempts.find({ outboxId: event._id }).toArray();
    expect(attempt).toMatchObject({ error: 'aborted: the worker stopped', recorded: true });
  });

  it('closing the server ends live subscriptions at once', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-api-key': keyOf('account admin'),
      },
      body: JSON.stringify({ query: 'subscription { meetingContentReady { recordingId } }' }),
    });
    expect(res.status).toBe(200);
    const text = res.text();
    const started = Date.now();
    closed = true;
    await t.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await text).toContain('event: complete');
  });
});
