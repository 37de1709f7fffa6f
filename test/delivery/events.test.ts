/**
 * Webhook events end to end: ingestion → fan-out by triggered_for → worker (on a fake clock) →
 * a real receiver on 127.0.0.1, which verifies signatures with `standardwebhooks` (and the
 * official SDK's svix-based verifyWebhook) and parses payloads with the SDK's Meeting schema.
 */
import { Fathom } from 'fathom-typescript';
import { meetingFromJSON } from 'fathom-typescript/sdk/models/shared';
import { ObjectId } from 'mongodb';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxDoc } from '../../src/db/documents.js';
import type { DeliveryWorker, WorkerOptions } from '../../src/delivery/worker.js';
import { fanOutContentReady } from '../../src/domain/content-ready.js';
import { parseRecording } from '../../src/domain/recording-format.js';
import { storeRecordings } from '../../src/domain/recordings.js';
import { RETRY_DELAYS_MS } from '../../src/domain/retry-schedule.js';
import { keyOf, type TestApp } from '../support/app.js';
import type { Received, Receiver } from '../support/receiver.js';
import {
  createWebhook,
  emailOf,
  type FakeClock,
  ingest,
  recordingJson,
  startDeliveryTest,
  testWorker,
} from './support.js';

const tom = 'team admin (Sales)';
const sam = 'member: own meetings + CRM';
const tina = 'member: team view';
const mike = 'member: multiple teams';
const alice = 'account admin';
const gina = 'external user (Globex)';

let t: TestApp;
let rx: Receiver;
const workers: DeliveryWorker[] = [];

beforeAll(async () => {
  [t, rx] = await startDeliveryTest();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(100)));
});
afterAll(async () => {
  await rx.close();
  await t.close();
});

const collections = () => t.app.database.collections;

const newWorker = (options: Partial<WorkerOptions> = {}) => testWorker(t.app.database, workers, options);

/** Delivers everything due, after moving the clock up to the real time if it is behind. */
async function drain(worker: DeliveryWorker, clock: FakeClock): Promise<number> {
  if (clock.now().getTime() < Date.now()) clock.set(new Date());
  return worker.runOnce();
}

/** The event of one webhook for one recording. */
const eventOf = (webhookId: string, recordingId: number) =>
  collections().outbox.findOne({ webhookId: new ObjectId(webhookId), recordingId });

const recordingIdsAt = (path: string) =>
  rx
    .at(path)
    .map((r) => JSON.parse(r.body).recording_id as number)
    .sort();

/** Whether `signature` (a webhook-signature header) holds a valid v1 signature of `r` by `secret`. */
function signedBy(r: Received, secret: string): boolean {
  const timestamp = new Date(Number(r.headers['webhook-timestamp']) * 1000);
  const expected = new StandardWebhook(secret).sign(String(r.headers['webhook-id']), timestamp, r.body);
  return String(r.headers['webhook-signature']).split(' ').includes(expected);
}

const deliveriesQuery = `query { webhooks { id deliveries(first: 20) { edges { node {
  id recordingId status attemptCount nextAttemptAt lastError finishedAt
  attempts { attemptedAt durationMs responseStatus error outcome } } } } } }`;

async function deliveriesOf(persona: string, webhookId: string) {
  const res = await t.graphql(deliveriesQuery, {}, keyOf(persona));
  expect(res.body.errors).toBeUndefined();
  const webhook = res.body.data.webhooks.find((w: { id: string }) => w.id === webhookId);
  return webhook.deliveries.edges.map((e: { node: unknown }) => e.node) as any[];
}

describe('leases', () => {
  it('a worker whose lease ran out records nothing; the worker that took over does', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/lease`, { triggeredFor: ['MY_RECORDINGS'] });
    const { recordingId } = await ingest(t, recordingJson(emailOf(tom)));
    const { worker: a, clock } = newWorker();
    const b = newWorker({ clock }).worker;
    clock.set(new Date());
    const mine = (m: OutboxDoc) => m.recordingId === recordingId && String(m.webhookId) === hook.id;

    const batchOfA = await a.claim();
    const first = batchOfA.find(mine);
    expect(first).toBeDefined();
    // A sends; the receiver holds its answer while A's lease runs out and B takes the batch over.
    rx.respond('/lease', { status: 200, delayMs: 500 });
    const aDelivering = a.deliver(batchOfA);
    await rx.waitFor(1, '/lease');
    clock.advance(10_001);
    const batchOfB = await b.claim();
    const second = batchOfB.find(mine);
    expect(second!.messageId).toBe(first!.messageId);
    expect(second!.leaseToken).not.toBe(first!.leaseToken);
    await b.deliver(batchOfB);
    await aDelivering; // A's answer comes, but its outcome cannot be recorded any more

    const event = await collections().outbox.findOne({ messageId: first!.messageId });
    expect(event).toMatchObject({ status: 'delivered', attempts: 1, leaseToken: null });
    const attempts = await collections().deliveryAttempts.find({ messageId: first!.messageId }).toArray();
    expect(attempts.map((x) => x.recorded).sort()).toEqual([false, true]);
    const received = rx.at('/lease');
    expect(received).toHaveLength(2);
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set([first!.messageId]));
    expect(received[0]!.body).toBe(received[1]!.body);
  });
});

describe('payload and signature', () => {
  it('is signed per Standard Webhooks: standardwebhooks and the SDK verify it; the SDK parses the Meeting', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/signed`, {
      triggeredFor: ['MY_RECORDINGS'],
      includeSummary: true,
    });
    const recording = recordingJson(emailOf(tom));
    expect(await ingest(t, recording)).toMatchObject({ becameReady: true });
    expect(await eventOf(hook.id, recording.recording_id)).toMatchObject({ status: 'pending', body: null });
    const { worker, clock } = newWorker();
    await drain(worker, clock);

    const [request] = await rx.waitFor(1, '/signed');
    const headers = request!.headers as Record<string, string>;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{20,}$/);
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const verified = new StandardWebhook(hook.secret).verify(request!.body, headers) as Record<
      string,
      unknown
    >;
    expect(verified.recording_id).toBe(recording.recording_id);
    expect(Fathom.verifyWebhook(hook.secret, headers, request!.body)).toMatchObject({
      recording_id: recording.recording_id,
    });
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(request!.body, headers),
    ).toThrow();

    const parsed = meetingFromJSON(request!.body);
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
    // The bare Meeting (no envelope), in the REST shape.
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({
      title: recording.title,
      recording_id: recording.recording_id,
      url: recording.url,
      recorded_by: { email: emailOf(tom), team: 'Sales' },
      calendar_invitees_domains_type: 'one_or_more_external',
      shared_with: 'no_teams',
      default_summary: {
        template_name: 'General',
        markdown_formatted: `## Summary of ${recording.recording_id}`,
      },
    });
    // Stored once, sent byte for byte.
    const event = await collections().outbox.findOne({ messageId: headers['webhook-id'] });
    expect(event!.body).toBe(request!.body);
  });

  it('carries exactly what the include flags ask for, with CRM matches from the owner’s CRM', async () => {
    const all = [
      'MY_RECORDINGS',
      'MY_SHARED_WITH_TEAM_RECORDINGS',
      'SHARED_TEAM_RECORDINGS',
      'SHARED_EXTERNAL_RECORDINGS',
    ];
    await createWebhook(t, tom, `${rx.url}/inc/tom-transcript`, {
      triggeredFor: all,
      includeTranscript: true,
    });
    await createWebhook(t, tom, `${rx.url}/inc/tom-crm`, { triggeredFor: all, includeCrmMatches: true });
    await createWebhook(t, tom, `${rx.url}/inc/tom-actions`, { triggeredFor: all, includeActionItems: true });
    await createWebhook(t, sam, `${rx.url}/inc/sam-all`, {
      triggeredFor: all,
      includeTranscript: true,
      includeSummary: true,
      includeActionItems: true,
      includeCrmMatches: true,
    });
    await createWebhook(t, tina, `${rx.url}/inc/tina-crm`, { triggeredFor: all, includeCrmMatches: true });
    const recording = recordingJson(emailOf(tom), {
      sharing: { users: [emailOf(tina)], teams: ['Sales'], all_teams: false },
    });
    expect((await ingest(t, recording)).eventsQueued).toBe(5);
    const { worker, clock } = newWorker();
    await drain(worker, clock);

    const payload = (path: string) => {
      const [r] = rx.at(path);
      expect(r, path).toBeDefined();
      expect(meetingFromJSON(r!.body).ok, path).toBe(true);
      return JSON.parse(r!.body);
    };
    const optional = ['transcript', 'default_summary', 'action_items', 'crm_matches', 'highlights'];
    const present = (body: object) => optional.filter((k) => k in body);

    const transcriptOnly = payload('/inc/tom-transcript');
    expect(present(transcriptOnly)).toEqual(['transcript']);
    expect(transcriptOnly.transcript).toEqual([
      {
        speaker: { display_name: 'Ravi', matched_calendar_invitee_email: 'ravi.shah@hooli.test' },
        text: 'Shall we start?',
        timestamp: '00:00:05',
      },
    ]);
    expect(transcriptOnly.calendar_invitees[1]).toEqual({
      name: 'Ravi Shah',
      email: 'ravi.shah@hooli.test',
      email_domain: 'hooli.test',
      is_external: true,
      matched_speaker_display_name: 'Ravi',
    });

    const actions = payload('/inc/tom-actions');
    expect(present(actions)).toEqual(['action_items']);
    expect(actions.action_items[0]).toMatchObject({
      description: 'Send the proposal',
      recording_playback_url: `${recording.url}?timestamp=600`,
    });
    expect('matched_speaker_display_name' in actions.calendar_invitees[1]).toBe(false);

    // Tom has no CRM of his own: the Sales team's (HubSpot) matches Priya Raman of Initech.
    const tomCrm = payload('/inc/tom-crm');
    expect(present(tomCrm)).toEqual(['crm_matches']);
    expect(tomCrm.crm_matches.error).toBeNull();
    expect(tomCrm.crm_matches.contacts.map((c: { email: string }) => c.email)).toEqual([
      'priya.raman@initech.test',
    ]);
    expect(tomCrm.crm_matches.companies.map((c: { name: string }) => c.name)).toEqual(['Initech']);

    // Sam's own CRM (Salesforce) wins over the team's: Ravi Shah of Hooli, and Initech.
    const samAll = payload('/inc/sam-all');
    expect(present(samAll)).toEqual(['transcript', 'default_summary', 'action_items', 'crm_matches']);
    expect(samAll.crm_matches.contacts.map((c: { email: string }) => c.email)).toEqual([
      'ravi.shah@hooli.test',
    ]);
    expect(samAll.crm_matches.companies.map((c: { name: string }) => c.name).sort()).toEqual([
      'Hooli',
      'Initech',
    ]);
    expect(
      samAll.crm_matches.deals.map((d: { amount: number }) => d.amount).sort((x: number, y: number) => x - y),
    ).toEqual([52_250.5, 120_000]);

    const tinaCrm = payload('/inc/tina-crm');
    expect(tinaCrm.crm_matches).toEqual({
      contacts: [],
      companies: [],
      deals: [],
      error: 'no CRM connected',
    });
  });
});

describe('triggered_for', () => {
  it('fires each webhook for exactly the categories docs/api/access.md gives the meeting for its owner', async () => {
    const hooks: Record<string, [string, string[]]> = {
      'tom-my': [tom, ['MY_RECORDINGS']],
      'tom-team': [tom, ['MY_SHARED_WITH_TEAM_RECORDINGS']],
      'sam-team': [sam, ['SHARED_TEAM_RECORDINGS']],
      'sam-ext': [sam, ['SHARED_EXTERNAL_RECORDINGS']],
      'tina-any': [tina, ['SHARED_TEAM_RECORDINGS', 'SHARED_EXTERNAL_RECORDINGS']],
      'mike-all': [
        mike,
        [
          'MY_RECORDINGS',
          'MY_SHARED_WITH_TEAM_RECORDINGS',
          'SHARED_TEAM_RECORDINGS',
          'SHARED_EXTERNAL_RECORDINGS',
        ],
      ],
      'alice-mine-ext': [alice, ['MY_RECORDINGS', 'SHARED_EXTERNAL_RECORDINGS']],
      'gina-my': [gina, ['MY_RECORDINGS']],
      'gina-ext': [gina, ['SHARED_EXTERNAL_RECORDINGS']],
      'gina-team': [gina, ['SHARED_TEAM_RECORDINGS', 'MY_SHARED_WITH_TEAM_RECORDINGS']],
    };
    for (const [name, [persona, triggeredFor]] of Object.entries(hooks)) {
      await createWebhook(t, persona, `${rx.url}/cat/${name}`, { triggeredFor });
    }
    const share = (users: string[], teams: string[] = [], all = false) => ({
      sharing: { users, teams, all_teams: all },
    });
    // Tom (Acme, team plan, Sales): private; shared with Sales; shared with Tina and Gina individually; all teams.
    const r1 = recordingJson(emailOf(tom), share([]));
    const r2 = recordingJson(emailOf(tom), share([], ['Sales']));
    const r3 = recordingJson(emailOf(tom), share([emailOf(tina), emailOf(gina)]));
    const r6 = recordingJson(emailOf(tom), share([], [], true));
    // Gina (Globex, individual plan) shares with Sam.
    const r4 = recordingJson(emailOf(gina), {
      ...share([emailOf(sam)]),
      calendar_invitees: [
        { name: 'Gina', email: emailOf(gina) },
        { name: 'Sam', email: emailOf(sam) },
      ],
    });
    for (const r of [r1, r2, r3, r4, r6]) await ingest(t, r);
    const { worker, clock } = newWorker();
    await drain(worker, clock);

    const ids = (...rs: { recording_id: number }[]) => rs.map((r) => r.recording_id).sort();
    expect(recordingIdsAt('/cat/tom-my')).toEqual(ids(r1, r3));
    expect(recordingIdsAt('/cat/tom-team')).toEqual(ids(r2, r6));
    expect(recordingIdsAt('/cat/sam-team')).toEqual(ids(r2, r6));
    expect(recordingIdsAt('/cat/sam-ext')).toEqual(ids(r4));
    expect(recordingIdsAt('/cat/tina-any')).toEqual(ids(r3, r6)); // not r2: Tina may not see it
    expect(recordingIdsAt('/cat/mike-all')).toEqual(ids(r2, r6)); // his view covers Sales
    expect(recordingIdsAt('/cat/alice-mine-ext')).toEqual([]); // she sees r2 and r6, as team recordings
    expect(recordingIdsAt('/cat/gina-my')).toEqual(ids(r4)); // individual plan: every meeting she recorded
    expect(recordingIdsAt('/cat/gina-ext')).toEqual(ids(r3)); // individual plan: any other user's share
    expect(recordingIdsAt('/cat/gina-team')).toEqual([]); // team categories: team plans only
  });
});

describe('fan-out', () => {
  it('is idempotent and durable: storing again fires nothing; a fan-out left pending is finished by a worker', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/durable`, { triggeredFor: ['MY_RECORDINGS'] });
    const recording = recordingJson(emailOf(tom));
    const { recording_id: id } = recording;
    const { default_summary, ...withoutSummary } = recording;
    expect(default_summary).toBeDefined();
    expect(await ingest(t, withoutSummary)).toMatchObject({
      contentReady: false,
      becameReady: false,
      eventsQueued: 0,
    });
    const ready = await ingest(t, recording);
    expect(ready).toMatchObject({ contentReady: true, becameReady: true });
    const events = () => collections().outbox.countDocuments({ recordingId: id });
    const queued = await events();
    expect(ready.eventsQueued).toBe(queued); // one per matching webhook (other tests' webhooks of Tom's too)
    expect(await eventOf(hook.id, id)).not.toBeNull();
    expect(await ingest(t, recording)).toMatchObject({
      contentReady: true,
      becameReady: false,
      eventsQueued: 0,
    });
    expect(await events()).toBe(queued);

    // The process died after marking the meeting ready, before (or while) fanning out.
    const crash = async () => {
      await collections().outbox.deleteMany({ recordingId: id });
      await collections().meetings.updateOne({ recordingId: id }, { $set: { eventsPending: true } });
    };
    await crash();
    const meeting = (await collections().meetings.findOne({ recordingId: id }))!;
    // Several processes repeating it at once still make one event per webhook.
    await Promise.all(
      Array.from({ length: 4 }, () => fanOutContentReady(collections(), [meeting], new Date())),
    );
    expect(await events()).toBe(queued);
    await crash();

    const { worker, clock } = newWorker();
    await drain(worker, clock); // the sweep finishes the fan-out, then the events go out
    expect(await events()).toBe(queued);
    expect((await collections().meetings.findOne({ recordingId: id }))!.eventsPending).toBe(false);
    expect(recordingIdsAt('/durable')).toEqual([id]);
    expect(rx.at('/durable')[0]!.headers['webhook-id']).toBe((await eventOf(hook.id, id))!.messageId);
  });

  it('a process that died between writing the summary and marking the meeting ready still fires, once', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/interrupted`, { triggeredFor: ['MY_RECORDINGS'] });
    const died = recordingJson(emailOf(tom));
    const neverWritten = recordingJson(emailOf(tom));
    const { default_summary } = died;
    for (const { default_summary: _, ...stored } of [died, neverWritten]) await ingest(t, stored);
    // What storeRecording leaves when the process dies after the summary write, before the mark:
    // the intent is on the meeting, the summary exists, the meeting is not ready.
    const intent = { $set: { summaryPending: true, summaryPendingSince: new Date() } };
    await collections().meetings.updateOne({ recordingId: died.recording_id }, intent);
    await collections().summaries.insertOne({
      _id: new ObjectId(),
      recordingId: died.recording_id,
      templateName: (default_summary as { template_name: string }).template_name,
      markdownFormatted: (default_summary as { markdown_formatted: string }).markdown_formatted,
    });
    // ...and when it died before the summary write: nothing to fire, the intent is dropped.
    await collections().meetings.updateOne({ recordingId: neverWritten.recording_id }, intent);

    const { worker, clock } = newWorker();
    await drain(worker, clock);
    await drain(worker, clock);
    expect(recordingIdsAt('/interrupted')).toEqual([died.recording_id]);
    const meeting = (await collections().meetings.findOne({ recordingId: died.recording_id }))!;
    expect(meeting.contentReadyAt).not.toBeNull();
    expect(meeting).not.toHaveProperty('summaryPending');
    const dropped = (await collections().meetings.findOne({ recordingId: neverWritten.recording_id }))!;
    expect(dropped.contentReadyAt).toBeNull();
    expect(dropped).not.toHaveProperty('summaryPending');
    expect(await eventOf(hook.id, neverWritten.recording_id)).toBeNull();
    // Storing it again fires nothing more.
    expect(await ingest(t, died)).toMatchObject({ becameReady: false, eventsQueued: 0 });
  });

  it('a batch, as a dataset load stores them, fires as one at a time does: each webhook its categories, once', async () => {
    const hooks = {
      mine: await createWebhook(t, tom, `${rx.url}/batch/tom-my`, { triggeredFor: ['MY_RECORDINGS'] }),
      team: await createWebhook(t, sam, `${rx.url}/batch/sam-team`, {
        triggeredFor: ['SHARED_TEAM_RECORDINGS'],
      }),
      ext: await createWebhook(t, gina, `${rx.url}/batch/gina-ext`, {
        triggeredFor: ['SHARED_EXTERNAL_RECORDINGS'],
      }),
    };
    const share = (users: string[], teams: string[] = []) => ({
      sharing: { users, teams, all_teams: false },
    });
    const priv = recordingJson(emailOf(tom), share([]));
    const sales = recordingJson(emailOf(tom), share([], ['Sales']));
    const toGina = recordingJson(emailOf(tom), share([emailOf(gina)]));
    const { default_summary: _, ...unsummarised } = recordingJson(emailOf(tom), share([], ['Sales']));
    const batch = [priv, sales, toGina, unsummarised];
    const events = (id: number) => collections().outbox.countDocuments({ recordingId: id });

    const stored = await storeRecordings(collections(), batch.map(parseRecording));
    expect(stored.map((s) => [s.meeting.recordingId, s.becameReady])).toEqual([
      [priv.recording_id, true],
      [sales.recording_id, true],
      [toGina.recording_id, true],
      [unsummarised.recording_id, false],
    ]);
    for (const s of stored) expect(s.eventsQueued).toBe(await events(s.meeting.recordingId));
    expect(stored[3]!.eventsQueued).toBe(0);
    for (const s of stored.slice(0, 3)) {
      expect(s.meeting).toMatchObject({ eventsPending: false });
      expect(s.meeting).not.toHaveProperty('summaryPending');
    }

    // Stored again (a second load of the same dataset), with two more at once: nothing fires twice.
    const later = [recordingJson(emailOf(tom), share([])), recordingJson(emailOf(tom), share([]))];
    const [again, other] = await Promise.all([
      storeRecordings(collections(), [...batch, ...later].map(parseRecording)),
      storeRecordings(collections(), later.map(parseRecording)),
    ]);
    expect(again.slice(0, 4).map((s) => [s.becameReady, s.eventsQueued])).toEqual(
      batch.map(() => [false, 0]),
    );
    for (const [i, r] of later.entries()) {
      // Each made ready by one of the two (both, should they mark it in the same millisecond).
      expect(again[4 + i]!.becameReady || other[i]!.becameReady).toBe(true);
      expect(await eventOf(hooks.mine.id, r.recording_id)).not.toBeNull();
    }
    const queued = await collections()
      .meetings.find({ recordingId: { $in: later.map((r) => r.recording_id) } })
      .toArray();
    expect(queued.map((m) => [m.eventsPending, 'summaryPending' in m])).toEqual([
      [false, false],
      [false, false],
    ]);

    const { worker, clock } = newWorker();
    await drain(worker, clock);
    const ids = (...rs: { recording_id: number }[]) => rs.map((r) => r.recording_id).sort();
    expect(recordingIdsAt('/batch/tom-my')).toEqual(ids(priv, toGina, ...later));
    expect(recordingIdsAt('/batch/sam-team')).toEqual(ids(sales));
    expect(recordingIdsAt('/batch/gina-ext')).toEqual(ids(toGina));
  });

  it('a batch with a name nobody knows, or a recording twice, writes nothing', async () => {
    const good = recordingJson(emailOf(tom));
    const unknown = recordingJson('nobody@acme.test');
    await expect(storeRecordings(collections(), [good, unknown].map(parseRecording))).rejects.toThrow(
      'Unknown recorder: nobody@acme.test',
    );
    await expect(storeRecordings(collections(), [good, good].map(parseRecording))).rejects.toThrow(
      `Recording ${good.recording_id} appears twice in one batch`,
    );
    expect(await collections().meetings.findOne({ recordingId: good.recording_id })).toBeNull();
  });

  it('recordings without an id get the next ones of the counter, in order, past every id given', async () => {
    const withoutId = () => ({ ...parseRecording(recordingJson(emailOf(tom))), recordingId: undefined });
    const given = parseRecording(recordingJson(emailOf(tom)));
    const stored = await storeRecordings(collections(), [withoutId(), given, withoutId()]);
    const [a, b, c] = stored.map((s) => s.meeting.recordingId);
    expect(b).toBe(given.recordingId);
    expect(a).toBeGreaterThan(given.recordingId!);
    expect(c).toBe(a! + 1);
  });

  it('sends nothing once the owner may no longer see the meeting', async () => {
    const hook = await createWebhook(t, sam, `${rx.url}/unshared`, {
      triggeredFor: ['SHARED_TEAM_RECORDINGS'],
    });
    const recording = recordingJson(emailOf(tom), {
      sharing: { users: [], teams: ['Sales'], all_teams: false },
    });
    await ingest(t, recording);
    expect(await eventOf(hook.id, recording.recording_id)).not.toBeNull();
    await ingest(t, { ...recording, sharing: { users: [], teams: [], all_teams: false } }); // made private
    const { worker, clock } = newWorker();
    await drain(worker, clock);
    expect(rx.at('/unshared')).toHaveLength(0);
    expect(await eventOf(hook.id, recording.recording_id)).toMatchObject({
      status: 'cancelled',
      lastError: 'its owner may no longer see the recording',
    });
  });
});

describe('outcomes', () => {
  it('retries on the full schedule (5 s … 24 h, with jitter), then fails; attempts are readable; failed ones can be redelivered', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/schedule`, { triggeredFor: ['MY_RECORDINGS'] });
    rx.respond('/schedule', { status: 500 });
    const recording = recordingJson(emailOf(tom));
    const since = new Date(Date.now() - 1000);
    await ingest(t, recording);
    const { worker, clock } = newWorker();
    const event = () => eventOf(hook.id, recording.recording_id);

    const attemptTimes: number[] = [];
    for (let i = 1; i <= 10; i++) {
      await drain(worker, clock);
      const e = (await event())!;
      expect(e.attempts).toBe(i);
      attemptTimes.push(e.lastAttemptAt!.getTime());
      if (i < 10) {
        expect(e.status).toBe('pending');
        clock.set(e.nextAttemptAt);
      } else expect(e).toMatchObject({ status: 'failed', lastResponseStatus: 500, lastError: 'HTTP 500' });
    }
    const gaps = attemptTimes.slice(1).map((at, i) => at - attemptTimes[i]!);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i]! * 0.9);
      expect(gap).toBeLessThanOrEqual(RETRY_DELAYS_MS[i]! * 1.1);
    });
    clock.advance(72 * 3600_000);
    await drain(worker, clock);
    const received = rx.at('/schedule');
    expect(received).toHaveLength(10); // nothing after the last attempt
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const timestamps = received.map((r) => Number(r.headers['webhook-timestamp']));
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    expect(new Set(timestamps).size).toBe(10); // re-signed with a fresh timestamp every time
    expect(received.every((r) => signedBy(r, hook.secret))).toBe(true);

    const [delivery] = await deliveriesOf(tom, hook.id);
    expect(delivery).toMatchObject({
      recordingId: recording.recording_id,
      status: 'FAILED',
      attemptCount: 10,
    });
    expect(delivery.nextAttemptAt).toBeNull();
    expect(delivery.attempts).toHaveLength(10);
    expect(delivery.attempts.map((a: { outcome: string }) => a.outcome)).toEqual([
      ...Array(9).fill('RETRY'),
      'FAILED',
    ]);
    expect(delivery.attempts.every((a: any) => a.responseStatus === 500 && a.error === 'HTTP 500')).toBe(
      true,
    );

    // Redeliver every failed event since a time: a fresh schedule, the same id and body.
    const redeliverAll = `mutation($id: ID!, $since: DateTime!) { redeliverFailedWebhookEvents(webhookId: $id, since: $since) { count } }`;
    const later = await t.graphql(
      redeliverAll,
      { id: hook.id, since: new Date(Date.now() + 60_000).toISOString() },
      keyOf(tom),
    );
    expect(later.body.data.redeliverFailedWebhookEvents.count).toBe(0);
    const res = await t.graphql(redeliverAll, { id: hook.id, since: since.toISOString() }, keyOf(tom));
    expect(res.body.data.redeliverFailedWebhookEvents.count).toBe(1);
    rx.respond('/schedule', { status: 204 });
    await drain(worker, clock);
    expect(await event()).toMatchObject({ status: 'delivered', attempts: 1 });
    const again = rx.at('/schedule')[10]!;
    expect(again.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
    expect(again.body).toBe(received[0]!.body);
  });

  it('3xx is a failure: the redirect is not followed, the event is retried', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/redirect`, { triggeredFor: ['MY_RECORDINGS'] });
    rx.respond('/redirect', { status: 302, headers: { location: `${rx.url}/redirect-target` } });
    const recording = recordingJson(emailOf(tom));
    await ingest(t, recording);
    const { worker, clock } = newWorker();
    await drain(worker, clock);
    expect(rx.at('/redirect')).toHaveLength(1);
    expect(rx.at('/redirect-target')).toHaveLength(0);
    const e = (await eventOf(hook.id, recording.recording_id))!;
    expect(e).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastResponseStatus: 302,
      lastError: 'HTTP 302',
    });
    const delay = e.nextAttemptAt.getTime() - e.lastAttemptAt!.getTime();
    expect(delay).toBeGreaterThanOrEqual(4_500);
    expect(delay).toBeLessThanOrEqual(5_500);
  });

  it('410 disables the webhook; no new events reach it; enabled again, failed events can be redelivered', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/gone`, { triggeredFor: ['MY_RECORDINGS'] });
    rx.respond('/gone', { status: 410 });
    const first = recordingJson(emailOf(tom));
    await ingest(t, first);
    const { worker, clock } = newWorker();
    await drain(worker, clock);
    expect(await eventOf(hook.id, first.recording_id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastResponseStatus: 410,
    });
    const state = `query { webhooks { id enabled disabledAt disabledReason } }`;
    const disabled = (await t.graphql(state, {}, keyOf(tom))).body.data.webhooks.find(
      (w: any) => w.id === hook.id,
    );
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'the receiver answered 410 Gone' });
    const whileDisabled = recordingJson(emailOf(tom));
    await ingest(t, whileDisabled);
    expect(await eventOf(hook.id, whileDisabled.recording_id)).toBeNull();

    const redeliver = `mutation($id: ID!, $since: DateTime!) { redeliverFailedWebhookEvents(webhookId: $id, since: $since) { count } }`;
    const refused = await t.graphql(redeliver, { id: hook.id, since: '2020-01-01T00:00:00Z' }, keyOf(tom));
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const enabled = await t.graphql(
      `mutation($id: ID!) { enableWebhook(id: $id) { enabled } }`,
      { id: hook.id },
      keyOf(tom),
    );
    expect(enabled.body.data.enableWebhook.enabled).toBe(true);
    rx.respond('/gone', { status: 200 });
    const res = await t.graphql(redeliver, { id: hook.id, since: '2020-01-01T00:00:00Z' }, keyOf(tom));
    expect(res.body.data.redeliverFailedWebhookEvents.count).toBe(1);
    await drain(worker, clock);
    expect(recordingIdsAt('/gone')).toEqual([first.recording_id, first.recording_id]);
  });

  it('429 and 503 honour Retry-After (seconds or a date); a shorter one does not beat the schedule', async () => {
    const { worker, clock } = newWorker();
    const cases: [string, Record<string, string>, number, number][] = [
      ['/busy-seconds', { 'retry-after': '120' }, 120_000, 120_000],
      ['/busy-short', { 'retry-after': '1' }, 4_500, 5_500],
    ];
    for (const [path, headers, min, max] of cases) {
      const hook = await createWebhook(t, tom, `${rx.url}${path}`, { triggeredFor: ['MY_RECORDINGS'] });
      rx.respond(path, { status: 429, headers });
      const recording = recordingJson(emailOf(tom));
      await ingest(t, recording);
      await drain(worker, clock);
      const e = (await eventOf(hook.id, recording.recording_id))!;
      const delay = e.nextAttemptAt.getTime() - e.lastAttemptAt!.getTime();
      expect(e.lastResponseStatus, path).toBe(429);
      expect(delay, path).toBeGreaterThanOrEqual(min);
      expect(delay, path).toBeLessThanOrEqual(max);
    }
    const unavailable = await createWebhook(t, tom, `${rx.url}/unavailable`, {
      triggeredFor: ['MY_RECORDINGS'],
    });
    rx.respond('/unavailable', () => ({
      status: 503,
      headers: { 'retry-after': new Date(clock.now().getTime() + 600_000).toUTCString() },
    }));
    const recording = recordingJson(emailOf(tom));
    await ingest(t, recording);
    await drain(worker, clock);
    const e = (await eventOf(unavailable.id, recording.recording_id))!;
    const delay = e.nextAttemptAt.getTime() - e.lastAttemptAt!.getTime();
    expect(e.lastResponseStatus).toBe(503);
    expect(delay).toBeGreaterThan(598_000);
    expect(delay).toBeLessThanOrEqual(600_000);
  });

  it('a webhook whose every delivery failed for 5 days is disabled; a success ends a run of failures', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/failing`, { triggeredFor: ['MY_RECORDINGS'] });
    rx.respond('/failing', { status: 500 });
    const recording = recordingJson(emailOf(tom));
    await ingest(t, recording);
    const { worker, clock } = newWorker();
    await drain(worker, clock);
    const webhook = () => collections().webhooks.findOne({ _id: new ObjectId(hook.id) });
    const started = (await webhook())!.failingSince!;
    expect(started).toBeInstanceOf(Date);
    clock.advance(4 * 24 * 3600_000); // another failure 4 days on: still enabled
    await worker.runOnce();
    expect((await eventOf(hook.id, recording.recording_id))!.attempts).toBe(2);
    expect((await webhook())!.disabledAt).toBeNull();
    clock.set(new Date(started.getTime() + 5 * 24 * 3600_000 + 1));
    // The next attempt of the event is due within the schedule; force it due now.
    await collections().outbox.updateOne(
      { webhookId: new ObjectId(hook.id), recordingId: recording.recording_id },
      { $set: { nextAttemptAt: clock.now() } },
    );
    await worker.runOnce();
    expect(await webhook()).toMatchObject({ disabledReason: 'every delivery failed for 5 days' });

    // Another webhook: one failure, then a success, clears the run.
    await createWebhook(t, tom, `${rx.url}/flaky`, { triggeredFor: ['MY_RECORDINGS'] });
    let calls = 0;
    rx.respond('/flaky', () => ({ status: calls++ === 0 ? 500 : 200 }));
    const second = recordingJson(emailOf(tom));
    await ingest(t, second);
    const fresh = newWorker();
    await drain(fresh.worker, fresh.clock);
    const flaky = () => collections().webhooks.findOne({ url: `${rx.url}/flaky` });
    expect((await flaky())!.failingSince).toBeInstanceOf(Date);
    fresh.clock.advance(6_000);
    await fresh.worker.runOnce();
    expect(await flaky()).toMatchObject({ failingSince: null, disabledAt: null });
  });
});

describe('redelivery and secrets', () => {
  it('redelivers one event with the same id and body; pending or foreign events are refused', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/again`, { triggeredFor: ['MY_RECORDINGS'] });
    const recording = recordingJson(emailOf(tom));
    await ingest(t, recording);
    const { worker, clock } = newWorker();
    const redeliver = `mutation($w: ID!, $e: ID!) { redeliverWebhookEvent(webhookId: $w, eventId: $e) { id status attemptCount } }`;
    const [pending] = await deliveriesOf(tom, hook.id);
    const early = await t.graphql(redeliver, { w: hook.id, e: pending.id }, keyOf(tom));
    expect(early.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    await drain(worker, clock);
    const foreign = await t.graphql(redeliver, { w: hook.id, e: pending.id }, keyOf(sam));
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const unknown = await t.graphql(redeliver, { w: hook.id, e: 'msg_nope' }, keyOf(tom));
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const res = await t.graphql(redeliver, { w: hook.id, e: pending.id }, keyOf(tom));
    expect(res.body.data.redeliverWebhookEvent).toEqual({
      id: pending.id,
      status: 'PENDING',
      attemptCount: 0,
    });
    clock.advance(2_000);
    await worker.runOnce();
    const [a, b] = rx.at('/again');
    expect(b).toBeDefined();
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
    expect(b!.body).toBe(a!.body);
    expect(Number(b!.headers['webhook-timestamp'])).toBeGreaterThan(Number(a!.headers['webhook-timestamp']));
    expect(signedBy(a!, hook.secret) && signedBy(b!, hook.secret)).toBe(true);
    const [after] = await deliveriesOf(tom, hook.id);
    expect(after.attempts.map((x: { outcome: string }) => x.outcome)).toEqual(['DELIVERED', 'DELIVERED']);
  });

  it('rotation: a new secret, and for 24 hours both sign (space-separated); then the new one alone', async () => {
    const hook = await createWebhook(t, tom, `${rx.url}/rotate`, { triggeredFor: ['MY_RECORDINGS'] });
    const rotated = await t.graphql(
      `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret previousSecretExpiresAt webhook { id previousSecretExpiresAt } } }`,
      { id: hook.id },
      keyOf(tom),
    );
    const { secret, previousSecretExpiresAt } = rotated.body.data.rotateWebhookSecret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(hook.secret);
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const recording = recordingJson(emailOf(tom));
    await ingest(t, recording);
    const { worker, clock } = newWorker();
    await drain(worker, clock);
    const [during] = await rx.waitFor(1, '/rotate');
    const headers = during!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new StandardWebhook(secret).verify(during!.body, headers)).toBeTruthy();
    expect(new StandardWebhook(hook.secret).verify(during!.body, headers)).toBeTruthy();

    clock.advance(24 * 3600_000 + 1000);
    const [event] = await deliveriesOf(tom, hook.id);
    await t.graphql(
      `mutation($w: ID!, $e: ID!) { redeliverWebhookEvent(webhookId: $w, eventId: $e) { id } }`,
      { w: hook.id, e: event.id },
      keyOf(tom),
    );
    await worker.runOnce();
    const after = rx.at('/rotate')[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(signedBy(after, secret)).toBe(true);
    expect(signedBy(after, hook.secret)).toBe(false);
  });
});

describe('asynchronous deliveries', () => {
  it('POSTs {"transcript": [...], "recording_id": N} and {"summary": {...}, "recording_id": N} with a stable webhook-id', async () => {
    const recording = recordingJson(emailOf(tina));
    await ingest(t, recording);
    const id = recording.recording_id;
    const transcript = await t.graphql(
      `mutation($id: Int!, $url: String!) { deliverTranscript(recordingId: $id, destinationUrl: $url) { destinationUrl messageId } }`,
      { id, url: `${rx.url}/deliver/transcript` },
      keyOf(tina),
    );
    const summary = await t.graphql(
      `mutation($id: Int!, $url: String!) { deliverSummary(recordingId: $id, destinationUrl: $url) { destinationUrl messageId } }`,
      { id, url: `${rx.url}/deliver/summary` },
      keyOf(tina),
    );
    rx.respond('/deliver/summary', { status: 500 }); // once, then fine
    const { worker, clock } = newWorker();
    await drain(worker, clock);
    rx.respond('/deliver/summary', { status: 200 });
    clock.advance(6_000);
    await worker.runOnce();

    const [t1] = rx.at('/deliver/transcript');
    expect(Object.keys(JSON.parse(t1!.body))).toEqual(['transcript', 'recording_id']);
    expect(JSON.parse(t1!.body)).toEqual({
      transcript: [
        {
          speaker: { display_name: 'Ravi', matched_calendar_invitee_email: 'ravi.shah@hooli.test' },
          text: 'Shall we start?',
          timestamp: '00:00:05',
        },
      ],
      recording_id: id,
    });
    expect(t1!.headers['webhook-id']).toBe(transcript.body.data.deliverTranscript.messageId);
    expect(t1!.headers['webhook-signature']).toBeUndefined(); // no secret: nothing to sign with
    const summaries = rx.at('/deliver/summary');
    expect(summaries).toHaveLength(2);
    expect(JSON.parse(summaries[1]!.body)).toEqual({
      summary: { template_name: 'General', markdown_formatted: `## Summary of ${id}` },
      recording_id: id,
    });
    expect(new Set(summaries.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([summary.body.data.deliverSummary.messageId]),
    );
  });
});
