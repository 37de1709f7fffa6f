/**
 * The worker claims, sends and records in batches: workers sharing the outbox never hold the same
 * message, a batch left by a dead worker goes out after its lease, every message of a batch gets
 * its outcome whatever the others' are, and a batch costs the same commands whatever its size.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commandCollection } from '../../src/db/connection.js';
import type { OutboxDoc } from '../../src/db/documents.js';
import type { DeliveryWorker, WorkerOptions } from '../../src/delivery/worker.js';
import { systemClock } from '../../src/domain/clock.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';
import { createWebhook, emailOf, ingest, recordingJson, startDeliveryTest, testWorker } from './support.js';

const tom = 'team admin (Sales)';
const sam = 'member: own meetings + CRM';
const mike = 'member: multiple teams';

let t: TestApp;
let rx: Receiver;
const workers: DeliveryWorker[] = [];
const webhookIds: string[] = [];

beforeAll(async () => {
  [t, rx] = await startDeliveryTest();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(100)));
  // Each test starts with no webhook of its own left and nothing due.
  for (const id of webhookIds.splice(0))
    await t.graphql(`mutation($id: ID!) { deleteWebhook(id: $id) { deletedId } }`, { id }, keyOf(tom));
  await collections().outbox.updateMany({ status: 'pending' }, { $set: { status: 'cancelled' } });
});
afterAll(async () => {
  await rx.close();
  await t.close();
});

const collections = () => t.app.database.collections;

/** A worker of the test's; one that is started hears the app's hint, as the app's own would. */
const newWorker = (options: Partial<WorkerOptions> = {}) =>
  testWorker(t.app.database, workers, { hint: t.app.services.outboxHint, ...options });

/** `count` webhooks of Tom's on his own recordings, at `${rx.url}/${name}/<i>`. */
async function webhooks(name: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { id } = await createWebhook(t, tom, `${rx.url}/${name}/${i}`, { triggeredFor: ['MY_RECORDINGS'] });
    webhookIds.push(id);
  }
}

async function ingestMany(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await ingest(t, recordingJson(emailOf(tom)));
}

const pending = () => collections().outbox.find({ status: 'pending' }).toArray();
const idsOf = (messages: OutboxDoc[]) => messages.map((m) => m.messageId).sort();

describe('batch claims', () => {
  it('two workers claiming at once never hold the same message; together they deliver each exactly once', async () => {
    await webhooks('pair', 4);
    await ingestMany(5);
    const queued = idsOf(await pending());
    expect(queued).toHaveLength(20);

    const a = newWorker({ batchSize: 6, concurrency: 2 });
    const b = newWorker({ batchSize: 6, concurrency: 2, clock: a.clock });
    const held: OutboxDoc[][] = [];
    for (;;) {
      const batches = await Promise.all([a.worker.claim(), b.worker.claim()]);
      if (batches.every((batch) => batch.length === 0)) break;
      held.push(...batches);
    }
    const claimed = held.flat();
    expect(idsOf(claimed)).toEqual(queued); // every message once: no two batches share one
    expect(held.every((batch) => new Set(batch.map((m) => m.leaseToken)).size <= 1)).toBe(true);

    // Delivered at once by both workers, batch by batch: each message reaches its receiver once.
    await Promise.all(held.map((batch, i) => (i % 2 === 0 ? a.worker : b.worker).deliver(batch)));
    const received = rx.received.filter((r) => r.path.startsWith('/pair/'));
    expect(received.map((r) => String(r.headers['webhook-id'])).sort()).toEqual(queued);
    expect(
      await collections().outbox.countDocuments({ messageId: { $in: queued }, status: 'delivered' }),
    ).toBe(20);
  });

  it('a batch held by a worker that died goes out after its lease, with the same ids, once', async () => {
    await webhooks('dead', 3);
    await ingestMany(2);
    const dead = newWorker();
    const batch = await dead.worker.claim(); // ...and the worker dies holding it
    expect(batch).toHaveLength(6);
    expect(new Set(batch.map((m) => m.leaseToken)).size).toBe(1);

    const { worker, clock } = newWorker({ clock: dead.clock });
    expect(await worker.runOnce()).toBe(0); // leased: nobody else may send it yet
    expect(rx.received.filter((r) => r.path.startsWith('/dead/'))).toHaveLength(0);
    clock.advance(10_001);
    expect(await worker.runOnce()).toBe(6);

    const received = rx.received.filter((r) => r.path.startsWith('/dead/'));
    expect(received.map((r) => String(r.headers['webhook-id'])).sort()).toEqual(idsOf(batch));
    const stored = await collections()
      .outbox.find({ _id: { $in: batch.map((m) => m._id) } })
      .toArray();
    expect(stored.every((m) => m.status === 'delivered' && m.attempts === 1 && m.leaseToken === null)).toBe(
      true,
    );
  });

  it('records the outcome of every message of a batch, also when some fail', async () => {
    await webhooks('mixed', 4);
    rx.respond('/mixed/0', { status: 204 });
    rx.respond('/mixed/1', { status: 500 });
    rx.respond('/mixed/2', { status: 410 });
    // The fourth webhook is gone by the time its event is sent.
    await ingestMany(1);
    const fourth = await collections().webhooks.findOne({ url: `${rx.url}/mixed/3` });
    await collections().webhooks.deleteOne({ _id: fourth!._id });

    const { worker } = newWorker();
    const batch = await worker.claim();
    expect(batch).toHaveLength(4);
    await worker.deliver(batch);

    const byPath = async (i: number) =>
      (await collections().outbox.findOne({
        _id: { $in: batch.map((m) => m._id) },
        destinationUrl: `${rx.url}/mixed/${i}`,
      }))!;
    expect(await byPath(0)).toMatchObject({ status: 'delivered', attempts: 1, lastResponseStatus: 204 });
    const retried = await byPath(1);
    expect(retried).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 500' });
    expect(retried.nextAttemptAt.getTime() - retried.lastAttemptAt!.getTime()).toBeGreaterThanOrEqual(4_500);
    expect(await byPath(2)).toMatchObject({ status: 'failed', attempts: 1, lastResponseStatus: 410 });
    expect(await byPath(3)).toMatchObject({
      status: 'cancelled',
      attempts: 0,
      lastError: 'the webhook was deleted',
    });
    const stored = await collections()
      .outbox.find({ _id: { $in: batch.map((m) => m._id) } })
      .toArray();
    expect(stored.every((m) => m.leaseToken === null)).toBe(true);
    const attempts = await collections()
      .deliveryAttempts.find({ outboxId: { $in: batch.map((m) => m._id) } })
      .toArray();
    expect(attempts.map((a) => [a.responseStatus, a.outcome, a.recorded]).sort()).toEqual([
      [204, 'delivered', true],
      [410, 'gone', true],
      [500, 'retry', true],
    ]);
    const gone = await collections().webhooks.findOne({ url: `${rx.url}/mixed/2` });
    expect(gone!.disabledReason).toBe('the receiver answered 410 Gone');
    webhookIds.splice(webhookIds.indexOf(fourth!._id.toHexString()), 1);
  });
});

describe('batches in a burst', () => {
  it('what is queued while a batch is prepared goes out with the next batch, not one batch per ingestion', async () => {
    await webhooks('burst', 2);
    // The worker's reads of webhooks (one per batch it prepares) wait at a gate the test opens.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let entered!: () => void;
    const preparing = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let batches = 0;
    const webhooksRead = collections().webhooks;
    const gated = new Proxy(webhooksRead, {
      get(target, key) {
        if (key !== 'find') return Reflect.get(target, key);
        return (...args: Parameters<typeof webhooksRead.find>) => {
          const cursor = target.find(...args);
          batches++;
          entered();
          return { toArray: () => gate.then(() => cursor.toArray()) };
        };
      },
    });
    const { worker } = newWorker({
      collections: { ...collections(), webhooks: gated },
      clock: systemClock, // messages are due when queued, by the real time
    });
    worker.start();
    await ingestMany(1); // its 2 events are claimed at once, and held in preparation
    await preparing;
    await ingestMany(3); // 6 more events queued while the first batch is prepared
    expect(batches).toBe(1);
    open();
    for (const path of ['/burst/0', '/burst/1']) expect(await rx.waitFor(4, path)).toHaveLength(4);
    expect(batches).toBe(2);
    await worker.stop(5_000); // waits for the outcomes to be recorded
    const attempts = await collections()
      .outbox.find({ destinationUrl: { $regex: '/burst/' } })
      .toArray();
    expect(attempts.every((m) => m.status === 'delivered' && m.attempts === 1)).toBe(true);
  });
});

describe('round trips', () => {
  it('a batch costs the same commands whatever its size', async () => {
    // Webhooks of three owners, one with every include (CRM matches too).
    for (const [persona, i] of [
      [tom, 0],
      [sam, 1],
      [mike, 2],
    ] as const) {
      const { id } = await createWebhook(t, persona, `${rx.url}/size/${i}`, {
        triggeredFor: ['MY_RECORDINGS', 'SHARED_TEAM_RECORDINGS'],
        includeTranscript: i === 1,
        includeSummary: true,
        includeActionItems: i === 1,
        includeCrmMatches: i === 1,
      });
      webhookIds.push(id);
    }
    const sharedWithSales = { sharing: { users: [], teams: ['Sales'], all_teams: false } };
    const commandsFor = async (recordings: number) => {
      for (let i = 0; i < recordings; i++) await ingest(t, recordingJson(emailOf(tom), sharedWithSales));
      const events = (await pending()).length;
      const { worker } = newWorker({ batchSize: 100 });
      const { result, commands } = await t.countCommands(() => worker.runOnce());
      expect(result).toBe(events);
      return { events, commands: commands.map((c) => `${c.commandName}:${commandCollection(c)}`).sort() };
    };
    const small = await commandsFor(2);
    const large = await commandsFor(12);
    expect(large.events).toBe(6 * small.events);
    expect(large.commands).toEqual(small.commands);
    // One bulk write records the outcomes, one insert logs the attempts, one stores the bodies.
    expect(small.commands.filter((c) => c === 'update:outbox')).toHaveLength(3); // lease, bodies, outcomes
    expect(small.commands.filter((c) => c === 'insert:deliveryAttempts')).toHaveLength(1);
    // The sweep's three reads of meetings (summaries, fan-outs and changes left unfinished), and
    // the batch's one, whatever the owners.
    expect(small.commands.filter((c) => c === 'find:meetings')).toHaveLength(4);
    // The batch's own, and the sweep's: unfinished fan-outs and changes (the three reads above), and
    // the change events' follower (where it stands, the log after it, and with changes logged the
    // webhooks that opted in and its position moved on).
    expect(small.commands.length).toBeLessThanOrEqual(30);
  });
});
