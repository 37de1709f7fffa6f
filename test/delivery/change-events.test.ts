/**
 * Webhook events of changes, opted in through GraphQL: meeting.updated and meeting.deleted, queued
 * from the change log by the workers, Standard Webhooks signed, once each; webhooks that did not
 * opt in receive what they always did.
 */
import { ObjectId } from 'mongodb';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Received, Receiver } from '../support/receiver.js';
import { emailOf, ingest, recordingJson, SERVICE_TOKEN, startDeliveryTest, testWorker } from './support.js';

const tom = 'team admin (Sales)';
const sam = 'member: own meetings + CRM';
const shared = (...teams: string[]) => ({ sharing: { users: [], teams, all_teams: false } });

let t: TestApp;
let rx: Receiver;
const workers: DeliveryWorker[] = [];
const webhooks: [string, string][] = [];

beforeAll(async () => {
  [t, rx] = await startDeliveryTest();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(100)));
  for (const [persona, id] of webhooks.splice(0))
    await t.graphql(`mutation($id: ID!) { deleteWebhook(id: $id) { deletedId } }`, { id }, keyOf(persona));
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

async function webhook(persona: string, path: string, input: Record<string, unknown>) {
  const res = await t.graphql(
    `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { id events } } }`,
    { input: { destinationUrl: `${rx.url}${path}`, includeSummary: true, ...input } },
    keyOf(persona),
  );
  expect(res.body.errors).toBeUndefined();
  const { secret, webhook } = res.body.data.createWebhook;
  webhooks.push([persona, webhook.id]);
  return { id: webhook.id as string, secret: secret as string, events: webhook.events as string[] };
}

async function remove(recordingId: number) {
  const res = await t.graphql(
    'mutation($id: Int!) { deleteRecording(recordingId: $id) }',
    { id: recordingId },
    `Bearer ${SERVICE_TOKEN}`,
  );
  expect(res.body.errors).toBeUndefined();
}

/** Queues the events of what was logged (the sweep), then sends what is due. */
async function drain(): Promise<void> {
  const { worker } = testWorker(t.app.database, workers);
  await worker.runOnce();
}

/** The body, checked against the webhook's secret as a receiver would with the Standard Webhooks library. */
function verified(secret: string, request: Received): any {
  return new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>);
}

describe('change events', () => {
  it('a webhook that did not opt in receives content ready alone, as before: nothing for updates or deletions', async () => {
    const hook = await webhook(tom, '/plain', { triggeredFor: ['MY_RECORDINGS'] });
    expect(hook.events).toEqual(['CONTENT_READY']);
    const recording = recordingJson(emailOf(tom));
    await ingest(t, recording);
    await drain();
    await ingest(t, { ...recording, title: 'Changed' });
    await remove(recording.recording_id);
    await drain();
    await drain();
    const received = await rx.waitFor(1, '/plain');
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.at('/plain')).toHaveLength(1);
    const body = verified(hook.secret, received[0]!);
    // The public API's body: the bare Meeting, without this service's extension fields.
    expect(body.recording_id).toBe(recording.recording_id);
    expect(body).not.toHaveProperty('updated_at');
    expect(body).not.toHaveProperty('type');
  });

  it('an opted-in webhook receives meeting.updated and meeting.deleted, signed, each once', async () => {
    const hook = await webhook(sam, '/mirror', {
      triggeredFor: ['MY_RECORDINGS', 'MY_SHARED_WITH_TEAM_RECORDINGS'],
      events: ['CONTENT_READY', 'MEETING_UPDATED', 'MEETING_DELETED'],
    });
    const recording = recordingJson(emailOf(sam));
    const id = recording.recording_id;
    await ingest(t, recording);
    await drain();
    await ingest(t, { ...recording, title: 'Renamed' });
    await drain();
    await ingest(t, { ...recording, title: 'Renamed', ...shared('Sales') });
    await drain();
    await remove(id);
    await drain();
    await drain();

    const requests = await rx.waitFor(4, '/mirror');
    const bodies = requests.map((r) => verified(hook.secret, r));
    expect(bodies[0]).toMatchObject({ recording_id: id, title: recording.title });
    expect(bodies[1]).toMatchObject({
      type: 'meeting.updated',
      data: { recording_id: id, changes: ['content'], meeting: { recording_id: id, title: 'Renamed' } },
    });
    expect(bodies[1].data.meeting.updated_at).toEqual(expect.any(String));
    expect(bodies[1].data.meeting.default_summary).toBeDefined();
    expect(bodies[2]).toMatchObject({
      type: 'meeting.updated',
      data: { changes: ['sharing'], meeting: { shared_with: 'single_team' } },
    });
    expect(bodies[3]).toEqual({
      type: 'meeting.deleted',
      timestamp: expect.any(String),
      data: { recording_id: id, reason: 'deleted' },
    });
    // Timestamps are when each change was logged, in order.
    expect(bodies[1].timestamp < bodies[2].timestamp && bodies[2].timestamp < bodies[3].timestamp).toBe(true);
    await drain();
    expect(rx.at('/mirror')).toHaveLength(4);
    const deliveries = await t.graphql(
      'query($id: ID!) { webhook(id: $id) { deliveries(first: 10) { edges { node { event status } } } } }',
      { id: hook.id },
      keyOf(sam),
    );
    expect(deliveries.body.data.webhook.deliveries.edges.map((e: any) => e.node.event)).toEqual([
      'MEETING_DELETED',
      'MEETING_UPDATED',
      'MEETING_UPDATED',
      'CONTENT_READY',
    ]);
  });

  it('a webhook whose owner loses access receives meeting.deleted, reason unshared; its triggered_for is respected', async () => {
    const team = await webhook(tom, '/team', {
      triggeredFor: ['SHARED_TEAM_RECORDINGS'],
      events: ['MEETING_UPDATED', 'MEETING_DELETED'],
    });
    const own = await webhook(tom, '/own-only', {
      triggeredFor: ['MY_RECORDINGS'],
      events: ['MEETING_UPDATED', 'MEETING_DELETED'],
    });
    const recording = recordingJson(emailOf(sam), shared('Sales'));
    await ingest(t, recording);
    await ingest(t, { ...recording, title: 'Seen by Sales' });
    await drain();
    await ingest(t, { ...recording, title: 'Seen by Sales', ...shared('Support') });
    await drain();
    await drain();
    const requests = await rx.waitFor(2, '/team');
    expect(requests.map((r) => verified(team.secret, r))).toMatchObject([
      { type: 'meeting.updated', data: { changes: ['content'], meeting: { title: 'Seen by Sales' } } },
      { type: 'meeting.deleted', data: { recording_id: recording.recording_id, reason: 'unshared' } },
    ]);
    // Sam's meeting is not one of Tom's recordings.
    expect(rx.at('/own-only')).toEqual([]);
    expect(own.events).toEqual(['MEETING_UPDATED', 'MEETING_DELETED']);
  });

  it('two workers following the log at once queue each event once', async () => {
    const hook = await webhook(sam, '/twice', {
      triggeredFor: ['MY_RECORDINGS'],
      events: ['MEETING_UPDATED'],
    });
    const recording = recordingJson(emailOf(sam));
    await ingest(t, recording);
    await drain(); // the log is followed from here on
    for (let i = 1; i <= 5; i++) await ingest(t, { ...recording, title: `Version ${i}` });
    const [a, b] = [testWorker(t.app.database, workers).worker, testWorker(t.app.database, workers).worker];
    await Promise.all([a.runOnce(), b.runOnce()]);
    await Promise.all([a.runOnce(), b.runOnce()]);
    const events = await t.app.database.collections.outbox
      .find({ webhookId: new ObjectId(hook.id), kind: 'change_event' })
      .toArray();
    expect(events.map((e) => e.change!.position).sort()).toHaveLength(5);
    expect(new Set(events.map((e) => e.change!.position)).size).toBe(5);
  });

  it('refuses an empty list of events', async () => {
    const res = await t.graphql(
      `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret } }`,
      {
        input: {
          destinationUrl: `${rx.url}/none`,
          includeSummary: true,
          triggeredFor: ['MY_RECORDINGS'],
          events: [],
        },
      },
      keyOf(sam),
    );
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', http: { status: 400 } });
  });
});
