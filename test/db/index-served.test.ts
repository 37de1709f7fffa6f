/**
 * Every query the app sends is served by an index. The app runs with the database profiler at
 * level 2 (mongod's `profile` command; the embedded engine has it too) while this test does what
 * users do through both doors, as every demo persona: REST lists under each filter and include,
 * paging, detail, transcript and summary (also to a destination_url), the directory endpoints,
 * webhooks; GraphQL meetings with every lazy field and a second page, searches, teams, users, meeting types,
 * webhooks CRUD; media downloads and their links; the ingestion of recordings, the live feed, the delivery worker sending webhook
 * events and deliveries, the metrics' outbox gauges; recordings updated and deleted (and the
 * sweeps finishing what a dead process left), the change feed, updated_after, change events, live
 * changes, the feed's trim; on every request, the credential lookup and
 * the rate limiter. Then no profiled operation whose filter touches a collection may be a COLLSCAN:
 * the failure lists the query shapes (collection, filter keys, sort) so the missing index is plain.
 *
 * It runs in `npm test` on the embedded engine and against any MongoDB with MONGODB_URI set, so a
 * missing index shows here before it shows in production. The embedded planner, like mongod's,
 * never weighs a collection scan against an index that applies (a scan is only the fallback), so
 * the verdict does not depend on how few documents the demo data has.
 */
import { randomBytes } from 'node:crypto';
import { BSON, type Document, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPersonas } from '../../seeds/index.js';
import { EgressGuard } from '../../src/delivery/egress.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { settledPosition, trimLog } from '../../src/domain/change-log.js';
import { ContentReadyFeed } from '../../src/domain/content-ready-feed.js';
import { LiveChanges } from '../../src/domain/live-changes.js';
import { storeMedia } from '../../src/domain/media.js';
import {
  createWebhook,
  emailOf,
  ingest,
  recordingJson,
  SERVICE_TOKEN,
  silentLogger,
  startDeliveryTest,
} from '../delivery/support.js';
import { authHeaders, keyOf, type TestApp } from '../support/app.js';
import type { Receiver } from '../support/receiver.js';

/**
 * Queries allowed to scan, each with its reason. Matched on the shape's collection and filter.
 * A new one needs a reason a reviewer would accept.
 */
const EXCEPTIONS: { collection: string; filter: string; reason: string }[] = [
  {
    collection: 'media.files',
    filter: '{}',
    reason:
      "the driver's GridFSBucket asks whether the bucket is empty (findOne({}), one document) before its first upload in a process, to create its indexes",
  },
];

let t: TestApp;
let rx: Receiver;
const external = process.env.MONGODB_URI;
const profile: Document[] = [];

const active = demoPersonas.filter((p) => !p.label.includes('(401)'));
const credentialOf = (label: string) => {
  const persona = demoPersonas.find((p) => p.label === label)!;
  return persona.kind === 'connected_app' ? `Bearer ${persona.apiKey}` : persona.apiKey;
};

beforeAll(async () => {
  [t, rx] = await startDeliveryTest(
    external ? { MONGODB_URI: external, MONGODB_DB: `index_served_${randomBytes(4).toString('hex')}` } : {},
  );
  await t.app.database.db.command({ profile: 2 });
}, 60_000);

afterAll(async () => {
  await t?.app.database.db.command({ profile: 0 });
  if (external) await t?.app.database.db.dropDatabase();
  await rx?.close();
  await t?.close();
});

/**
 * Moves what the profiler wrote so far into `profile`, and starts it afresh: system.profile is
 * capped (1 MB on mongod), so it is read after each part, before old entries could be dropped.
 */
async function harvest(): Promise<void> {
  const db = t.app.database.db;
  await db.command({ profile: 0 });
  const entries = await db.collection('system.profile').find({}).toArray();
  // Near the cap, the oldest entries may have gone: harvest more often.
  const bytes = entries.reduce((sum, e) => sum + BSON.calculateObjectSize(e), 0);
  expect(bytes, 'system.profile nearly full: entries may have been dropped').toBeLessThan(768 * 1024);
  profile.push(...entries);
  await db.collection('system.profile').drop();
  await db.command({ profile: 2 });
}

async function rest(path: string, label: string, query: Record<string, unknown> = {}): Promise<any> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const v of value) params.append(`${name}[]`, String(v));
    else params.append(name, String(value));
  }
  const res = await fetch(`${t.url}/external/v1${path}?${params}`, {
    headers: authHeaders(credentialOf(label)),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${label} GET ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function gql(label: string, query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await t.graphql(query, variables, credentialOf(label));
  if (res.body.errors) throw new Error(`${label}: ${JSON.stringify(res.body.errors)}`);
  return res.body.data;
}

const meetingFields = `recordingId title meetingType sharedWith createdAt
  recordedBy { email name team } calendarInvitees { email isExternal matchedSpeakerDisplayName }
  transcript { text speaker { displayName } } defaultSummary { markdownFormatted }
  actionItems { description assignee { email } } highlights { type }
  crmMatches { contacts { email } companies { name } deals { name } error }`;
/** Connected apps may not select transcript and defaultSummary through `meetings`. */
const appMeetingFields = meetingFields.replace(/transcript \{[^}]*\}[^}]*\} defaultSummary \{[^}]*\}/, '');

describe('every query the app sends is served by an index', () => {
  it('REST: lists under every filter and include, paging, detail, directory, webhooks', async () => {
    const includes = {
      include_action_items: true,
      include_crm_matches: true,
      include_highlights: true,
    };
    for (const p of active) {
      const app = p.kind === 'connected_app';
      const all = { ...includes, ...(app ? {} : { include_summary: true, include_transcript: true }) };
      const first = await rest('/meetings', p.label, { ...all, limit: 3 });
      if (first.next_cursor) await rest('/meetings', p.label, { limit: 3, cursor: first.next_cursor });
      await rest('/meetings', p.label, { teams: ['Sales', 'Support'] });
      await rest('/meetings', p.label, { meeting_type: 'Discovery Call' });
      await rest('/meetings', p.label, { recorded_by: [emailOf('member: own meetings + CRM'), p.email] });
      await rest('/meetings', p.label, {
        created_after: '2026-01-01T00:00:00Z',
        created_before: '2027-01-01T00:00:00Z',
      });
      await rest('/meetings', p.label, {
        calendar_invitees_domains: ['initech.test'],
        calendar_invitees_domains_type: 'one_or_more_external',
      });
      const [meeting] = first.items;
      if (meeting) {
        await rest(`/recordings/${meeting.recording_id}/transcript`, p.label);
        await rest(`/recordings/${meeting.recording_id}/summary`, p.label);
        await rest(`/recordings/${meeting.recording_id}/summary`, p.label, {
          destination_url: `${rx.url}/summary`,
        });
      }
      await rest('/teams', p.label);
      await rest('/team_members', p.label, { team: 'Sales' });
      await rest('/meeting_types', p.label);
      if (p.label === 'account admin') await rest('/users', p.label);
      await harvest();
    }
    const created = await fetch(`${t.url}/external/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(keyOf('account admin')) },
      body: JSON.stringify({
        destination_url: `${rx.url}/rest-hook`,
        include_summary: true,
        triggered_for: ['my_recordings'],
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const deleted = await fetch(`${t.url}/external/v1/webhooks/${id}`, {
      method: 'DELETE',
      headers: authHeaders(keyOf('account admin')),
    });
    expect(deleted.status).toBe(204);
    await harvest();
  });

  it('GraphQL: meetings with every lazy field and a second page, directory, webhooks CRUD', async () => {
    for (const p of active) {
      const fields = p.kind === 'connected_app' ? appMeetingFields : meetingFields;
      const page = `query($after: String, $filter: MeetingFilter) { meetings(first: 4, after: $after, filter: $filter) {
        edges { node { ${fields} } } pageInfo { endCursor hasNextPage } } }`;
      const first = await gql(p.label, page);
      if (first.meetings.pageInfo.hasNextPage)
        await gql(p.label, page, { after: first.meetings.pageInfo.endCursor });
      await gql(p.label, page, { filter: { teams: ['Sales'], meetingType: 'Discovery Call' } });
      await gql(p.label, page, { filter: { recordedBy: [p.email], createdAfter: '2026-01-01T00:00:00Z' } });
      await gql(p.label, page, { filter: { attendees: [p.email, 'priya.raman@initech.test'] } });
      await gql(p.label, page, { filter: { search: 'pricing "walk you through" -zyzzyva' } });
      await gql(
        p.label,
        `query($filter: MeetingFilter) { meetings(first: 4, filter: $filter, orderBy: RELEVANCE) {
          edges { node { recordingId } ${p.kind === 'connected_app' ? '' : 'matches { field snippet }'} } } }`,
        { filter: { search: 'onboarding', teams: ['Sales'] } },
      );
      const recordingId = first.meetings.edges[0]?.node.recordingId;
      if (recordingId !== undefined)
        await gql(p.label, `query($id: Int!) { meeting(recordingId: $id) { ${meetingFields} } }`, {
          id: recordingId,
        });
      await gql(
        p.label,
        `{ viewer { email team { name } } teams { edges { node { name } } }
           teamMembers(team: "Sales") { edges { node { email } } }
           meetingTypes { edges { node { name status } } }
           webhooks { id url deliveries { edges { node { id status attempts { outcome } } } } } }`,
      );
      if (p.label === 'account admin')
        await gql(p.label, `{ users(filter: { team: "Sales" }) { edges { node { email team { name } } } } }`);
      await harvest();
    }
    const { id } = await createWebhook(t, 'account admin', `${rx.url}/gql-hook`, {
      triggeredFor: ['MY_RECORDINGS'],
    });
    await gql('account admin', `query($id: ID!) { webhook(id: $id) { id url enabled } }`, { id });
    await gql('account admin', `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id });
    await gql('account admin', `mutation($id: ID!) { deleteWebhook(id: $id) { deletedId } }`, { id });
    await harvest();
  });

  it('ingestion, and the delivery worker sending the webhook events and deliveries', async () => {
    for (const label of ['account admin', 'team admin (Sales)', 'external user (Globex)'])
      await createWebhook(t, label, `${rx.url}/events`, {
        triggeredFor: ['MY_RECORDINGS', 'SHARED_EXTERNAL_RECORDINGS', 'MY_SHARED_WITH_TEAM_RECORDINGS'],
        includeTranscript: true,
        includeCrmMatches: true,
      });
    const tom = emailOf('team admin (Sales)');
    const gina = emailOf('external user (Globex)');
    const sharings = [
      { users: [], teams: ['Sales'], all_teams: false },
      { users: [], teams: [], all_teams: true },
      { users: [gina], teams: [], all_teams: false },
    ];
    // The live feed (subscriptions) polls for meetings that became ready.
    const feed = new ContentReadyFeed(t.app.database.collections, undefined, 20);
    const live = await feed.subscribe(() => true);
    for (const sharing of sharings) await ingest(t, recordingJson(tom, { sharing }));
    expect((await live.next()).done).toBe(false);
    feed.close();
    await ingest(t, recordingJson(gina, { sharing: { users: [tom], teams: [], all_teams: false } }));
    const worker = new DeliveryWorker({
      collections: t.app.database.collections,
      media: t.app.database.media,
      logger: silentLogger,
      egress: new EgressGuard(['127.0.0.1/32']),
      timeoutMs: 3_000,
      leaseMs: 10_000,
      sweepGraceMs: 0,
    });
    try {
      while ((await worker.runOnce()) > 0);
    } finally {
      await worker.stop(100);
    }
    expect(rx.received.length).toBeGreaterThan(0);
    await gql(
      'team admin (Sales)',
      `{ webhooks { deliveries { edges { node { status attempts { outcome } } } } } }`,
    );
    // The outbox gauges are counted at scrape time.
    expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
    await harvest();
  });

  it('media: stored, downloaded (with a destination), its status read, its link followed in ranges', async () => {
    const [{ recordingId }] = (
      await gql('account admin', '{ meetings(first: 1) { edges { node { recordingId } } } }')
    ).meetings.edges.map((e: any) => e.node);
    const { collections, media } = t.app.database;
    const bytes = randomBytes(600_000);
    for (
      let i = 0;
      i < 2;
      i++ // the second time finds it stored already
    )
      await storeMedia(collections, media, recordingId, {
        contentType: 'video/mp4',
        open: async function* () {
          yield bytes;
        },
      });
    const made = await fetch(`${t.url}/external/v1/recordings/${recordingId}/download`, {
      method: 'POST',
      headers: { ...authHeaders(credentialOf('account admin')), 'content-type': 'application/json' },
      body: JSON.stringify({ destination_url: `${rx.url}/download` }),
    });
    const download = await made.json();
    expect(made.status, JSON.stringify(download)).toBe(202);
    await rest(`/recordings/${recordingId}/downloads/${download.download_id}`, 'account admin');
    for (const range of ['bytes=0-99', 'bytes=300000-', 'bytes=-10']) {
      const res = await fetch(download.video.url, { headers: { range } });
      expect(res.status).toBe(206);
      await res.arrayBuffer();
    }
    await harvest();
  });

  it('keeping a mirror: updates, deletions (and a sweep finishing them), the change feed, updated_after, change events, live changes', async () => {
    const { collections, media } = t.app.database;
    const tomLabel = 'team admin (Sales)';
    const tom = emailOf(tomLabel);
    await t.graphql(
      `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret } }`,
      {
        input: {
          destinationUrl: `${rx.url}/changes`,
          triggeredFor: ['MY_RECORDINGS', 'MY_SHARED_WITH_TEAM_RECORDINGS', 'SHARED_TEAM_RECORDINGS'],
          includeSummary: true,
          events: ['MEETING_UPDATED', 'MEETING_DELETED'],
        },
      },
      keyOf(tomLabel),
    );
    const worker = new DeliveryWorker({
      collections,
      media,
      logger: silentLogger,
      egress: new EgressGuard(['127.0.0.1/32']),
      sweepGraceMs: 0,
    });
    const live = new LiveChanges(collections, undefined, 20);
    try {
      await worker.runOnce(); // change events are queued from here on
      const changing = await live.subscribe(() => true);
      const since = new Date().toISOString();
      const recording = recordingJson(tom, { sharing: { users: [], teams: ['Sales'], all_teams: false } });
      await ingest(t, recording);
      await ingest(t, { ...recording, title: 'Renamed' });
      await ingest(t, { ...recording, title: 'Renamed', sharing: { users: [], teams: [], all_teams: true } });
      expect((await changing.next()).done).toBe(false);
      await storeMedia(collections, media, recording.recording_id, {
        contentType: 'audio/mpeg',
        open: async function* () {
          yield randomBytes(1000);
        },
      });
      // Left by processes that died: a change not logged, a deletion not finished.
      const [left, deleting] = [recordingJson(tom), recordingJson(tom)];
      for (const r of [left, deleting]) await ingest(t, r);
      const mark = (kinds: string[]) => ({ id: new ObjectId(), kinds, since: new Date(0), before: null });
      await collections.meetings.updateOne(
        { recordingId: left.recording_id },
        { $set: { pendingChange: mark(['content']) as any } },
      );
      await collections.meetings.updateOne(
        { recordingId: deleting.recording_id },
        { $set: { pendingChange: mark(['deleted']) as any } },
      );
      const deleted = await t.graphql(
        'mutation($id: Int!) { deleteRecording(recordingId: $id) }',
        { id: recording.recording_id },
        `Bearer ${SERVICE_TOKEN}`,
      );
      expect(deleted.body.data.deleteRecording).toBe(true);
      while ((await worker.runOnce()) > 0);
      expect(rx.at('/changes').length).toBeGreaterThan(0);

      const feed = `query($after: String) { meetingChanges(after: $after) {
        edges { node { recordingId kinds removed meeting { title updatedAt } } } pageInfo { endCursor } } }`;
      for (const p of active) {
        const { meetingChangesCursor } = await gql(p.label, '{ meetingChangesCursor }');
        const first = await gql(p.label, feed);
        await gql(p.label, feed, { after: first.meetingChanges.pageInfo.endCursor });
        await gql(p.label, feed, { after: meetingChangesCursor });
        await gql(
          p.label,
          'query($after: DateTime) { meetings(filter: { updatedAfter: $after }) { edges { node { recordingId updatedAt } } } }',
          { after: since },
        );
        const page = await rest('/meetings', p.label, { updated_after: since, limit: 2 });
        if (page.next_cursor)
          await rest('/meetings', p.label, { updated_after: since, limit: 2, cursor: page.next_cursor });
      }
      // What workers do once a minute.
      await trimLog(collections, new Date(), 30 * 24 * 3600_000);
      await settledPosition(collections, new Date());
    } finally {
      live.close();
      await worker.stop(100);
    }
    await harvest();
  });

  it('no profiled query is a collection scan', () => {
    const scans = new Map<string, string>();
    let queries = 0;
    for (const entry of profile) {
      const query = queryOf(entry);
      if (!query) continue;
      queries++;
      if (!String(entry.planSummary).includes('COLLSCAN')) continue;
      const collection = String(entry.ns).split('.').slice(1).join('.');
      const filter = JSON.stringify(shapeOf(query.filter));
      if (EXCEPTIONS.some((e) => e.collection === collection && e.filter === filter)) continue;
      const shape = `${collection} ${entry.op} filter ${filter}${query.sort ? ` sort ${JSON.stringify(query.sort)}` : ''}`;
      scans.set(shape, shape);
    }
    if (process.env.SHOW_PLANS) {
      const seen = new Map<string, number>();
      for (const entry of profile) {
        const q = queryOf(entry);
        if (!q) continue;
        const key = `${entry.ns} ${entry.op} ${JSON.stringify(shapeOf(q.filter))} ${JSON.stringify(q.sort ?? null)} => ${entry.planSummary}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      console.log(
        [...seen]
          .map(([k, n]) => `${n}\t${k}`)
          .sort()
          .join('\n'),
      );
    }
    // The parts above did send queries, and the profiler saw them.
    expect(queries).toBeGreaterThan(200);
    expect([...scans.keys()].sort(), 'query shapes served by a collection scan: index them').toEqual([]);
  });
});

/** The filter (and sort) of a profiled operation that reads a collection, or null for other entries. */
function queryOf(entry: Document): { filter: Document; sort?: Document } | null {
  const ns = String(entry.ns);
  if (ns.endsWith('.$cmd') || ns.endsWith('.system.profile')) return null;
  const command = entry.command as Document;
  switch (entry.op) {
    case 'query':
      return { filter: command.filter ?? {}, sort: command.sort };
    case 'update':
    case 'remove':
      return { filter: command.q ?? {} };
    case 'command': {
      const name = Object.keys(command)[0]!.toLowerCase();
      if (name === 'count' || name === 'distinct') return { filter: command.query ?? {} };
      if (name === 'findandmodify') return { filter: command.query ?? {}, sort: command.sort };
      if (name === 'aggregate') return { filter: command.pipeline?.[0]?.$match ?? {} };
      return null;
    }
    default:
      return null;
  }
}

/** A filter with its values left out: field names and operators, what an index is chosen by. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value === null || typeof value !== 'object' || (value as { _bsontype?: string })._bsontype) return 1;
  if (value instanceof Date || value instanceof RegExp) return 1;
  const out: Document = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$and' || k === '$or' || k === '$nor' || !k.startsWith('$') ? shapeOf(v) : 1;
  }
  return out;
}
