/**
 * Keeping a mirror in sync: recordings stored again and deleted through the ingestion service,
 * the change feed (`meetingChanges`) as each persona sees it, its cursors, a change logged late,
 * a process that died between storing a change and logging it, and `updated_after` on both doors.
 * docs/api/mirroring.md is the contract.
 */
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeetingDoc } from '../../src/db/documents.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { logChanges, markedChange, trimLog } from '../../src/domain/change-log.js';
import { mediaInMemory, storeMedia } from '../../src/domain/media.js';
import { audienceOf } from '../../src/domain/visibility.js';
import {
  createWebhook,
  emailOf,
  recordingJson,
  SERVICE_TOKEN,
  SERVICE_TOKEN_SHA256,
  testWorker,
} from '../delivery/support.js';
import { type RestTestApp, startRestTestApp } from '../rest/support.js';
import { keyOf } from '../support/app.js';

const sam = 'member: own meetings + CRM';
const tom = 'team admin (Sales)';
const tina = 'member: team view';
const gina = 'external user (Globex)';
const shared = (...teams: string[]) => ({ sharing: { users: [], teams, all_teams: false } });

let r: RestTestApp;
const workers: DeliveryWorker[] = [];
beforeAll(async () => {
  r = await startRestTestApp({ INGEST_TOKEN_SHA256: SERVICE_TOKEN_SHA256, DELIVERY_WORKER: 'false' });
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(100)));
  await r?.close();
});

const collections = () => r.t.app.database.collections;
const service = `Bearer ${SERVICE_TOKEN}`;

async function store(recording: object): Promise<string[]> {
  const res = await r.t.graphql(
    'mutation($r: String!) { ingestRecording(recording: $r) { recordingId changes } }',
    { r: JSON.stringify(recording) },
    service,
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.ingestRecording.changes;
}

async function remove(recordingId: number): Promise<boolean> {
  const res = await r.t.graphql(
    'mutation($id: Int!) { deleteRecording(recordingId: $id) }',
    { id: recordingId },
    service,
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.deleteRecording;
}

async function cursorNow(persona: string): Promise<string> {
  const res = await r.t.graphql('{ meetingChangesCursor }', {}, keyOf(persona));
  expect(res.body.errors).toBeUndefined();
  return res.body.data.meetingChangesCursor;
}

interface Change {
  recordingId: number;
  kinds: string[];
  removed: boolean;
  meeting: { recordingId: number; title: string; updatedAt: string } | null;
}

const feedQuery = `query($after: String, $first: Int) {
  meetingChanges(after: $after, first: $first) {
    edges { cursor node { recordingId kinds removed meeting { recordingId title updatedAt } } }
    pageInfo { endCursor hasNextPage }
  }
}`;

async function feedPage(persona: string, after?: string, first?: number) {
  return r.t.graphql(feedQuery, { after, first }, keyOf(persona));
}

/** Every change after `after`, page after page, and the cursor where the feed stands. */
async function follow(
  persona: string,
  after: string,
  first = 100,
): Promise<{ changes: Change[]; cursor: string }> {
  const changes: Change[] = [];
  let cursor = after;
  for (;;) {
    const res = await feedPage(persona, cursor, first);
    expect(res.body.errors).toBeUndefined();
    const { edges, pageInfo } = res.body.data.meetingChanges;
    changes.push(...edges.map((e: { node: Change }) => e.node));
    cursor = pageInfo.endCursor;
    if (!pageInfo.hasNextPage) return { changes, cursor };
  }
}

const of = (changes: Change[], recordingId: number) => changes.filter((c) => c.recordingId === recordingId);

describe('storing again and deleting', () => {
  it('storing a recording again updates it; the same again changes nothing; each change is in the feed once, in order', async () => {
    const from = await cursorNow(sam);
    const recording = recordingJson(emailOf(sam), shared('Sales'));
    expect(await store(recording)).toEqual(['CREATED']);
    expect(await store(recording)).toEqual([]);
    expect(await store({ ...recording, title: 'Renamed' })).toEqual(['CONTENT']);
    expect(await store({ ...recording, title: 'Renamed', ...shared('Support') })).toEqual(['SHARING']);
    expect(await store({ ...recording, title: 'Renamed again', ...shared('Sales', 'Support') })).toEqual([
      'CONTENT',
      'SHARING',
    ]);
    // A summary regenerated is a content change.
    const summary = { template_name: 'General', markdown_formatted: '## Regenerated' };
    expect(
      await store({
        ...recording,
        title: 'Renamed again',
        ...shared('Sales', 'Support'),
        default_summary: summary,
      }),
    ).toEqual(['CONTENT']);

    const mine = of((await follow(sam, from)).changes, recording.recording_id);
    expect(mine.map((c) => c.kinds)).toEqual([
      ['CREATED'],
      ['CONTENT'],
      ['SHARING'],
      ['CONTENT', 'SHARING'],
      ['CONTENT'],
    ]);
    // Each change shows the meeting as it is now.
    for (const change of mine) {
      expect(change.removed).toBe(false);
      expect(change.meeting!.title).toBe('Renamed again');
    }
    const rest = await r.get(`/recordings/${recording.recording_id}/summary`, { key: keyOf(sam) });
    expect(rest.body.summary.markdown_formatted).toBe('## Regenerated');
  });

  it('a meeting no longer shared with a viewer is removed for them; one newly shared with them appears', async () => {
    const [fromSam, fromTom, fromTina] = (await Promise.all([sam, tom, tina].map(cursorNow))) as [
      string,
      string,
      string,
    ];
    const recording = recordingJson(emailOf(sam), shared('Sales'));
    const id = recording.recording_id;
    await store(recording);
    await store({ ...recording, ...shared('Support') });
    expect(await remove(id)).toBe(true);

    const forTom = of((await follow(tom, fromTom)).changes, id);
    expect(forTom.map((c) => [c.kinds, c.removed])).toEqual([
      [['CREATED'], true],
      [['SHARING'], true],
    ]);
    // Tina (Support) could not see it when it was created: she hears of it when it is shared with Support.
    const forTina = of((await follow(tina, fromTina)).changes, id);
    expect(forTina.map((c) => [c.kinds, c.removed])).toEqual([
      [['SHARING'], true],
      [['DELETED'], true],
    ]);
    const forSam = of((await follow(sam, fromSam)).changes, id);
    expect(forSam.map((c) => c.kinds)).toEqual([['CREATED'], ['SHARING'], ['DELETED']]);
    expect(forSam.every((c) => c.removed && c.meeting === null)).toBe(true);
  });

  it('a mirror following the feed holds what the meetings list shows', async () => {
    const from = await cursorNow(tom);
    const before = await r.getAll('/meetings', { key: keyOf(tom), query: { limit: 100 } });
    const mirror = new Map<number, string>(before.items.map((m) => [m.recording_id, m.title]));
    const a = recordingJson(emailOf(sam), shared('Sales'));
    const b = recordingJson(emailOf(tom));
    await store(a);
    await store(b);
    await store({ ...a, title: 'A, renamed' });
    await store({ ...b, ...shared('Support') }); // still his: he recorded it
    await remove(a.recording_id);
    for (const change of (await follow(tom, from, 2)).changes) {
      if (change.removed) mirror.delete(change.recordingId);
      else if (change.meeting) mirror.set(change.recordingId, change.meeting.title);
    }
    const after = await r.getAll('/meetings', { key: keyOf(tom), query: { limit: 100 } });
    expect(mirror).toEqual(new Map(after.items.map((m) => [m.recording_id, m.title])));
  });

  it('deleting takes the recording off every path, with its content, media and pending events; twice is no error', async () => {
    await createWebhook(r.t, sam, `${r.receiverUrl}/deleted`, { triggeredFor: ['MY_RECORDINGS'] });
    const recording = recordingJson(emailOf(sam));
    const id = recording.recording_id;
    await store(recording);
    const { media } = await storeMedia(
      collections(),
      r.t.app.database.media,
      id,
      mediaInMemory('audio/mpeg', Buffer.from('not really audio')),
    );
    expect(await collections().outbox.countDocuments({ recordingId: id, status: 'pending' })).toBe(1);
    const download = await r.request('POST', `/recordings/${id}/download`, { key: keyOf(sam) });
    expect(download.status).toBe(202);

    expect(await remove(id)).toBe(true);
    expect(await remove(id)).toBe(false);
    expect(await remove(987_654_321)).toBe(false);

    for (const what of ['transcript', 'summary']) {
      const res = await r.get(`/recordings/${id}/${what}`, { key: keyOf(sam) });
      expect([res.status, res.body]).toEqual([404, { error: `No recording with id ${id}.` }]);
    }
    const status = await r.get(`/recordings/${id}/downloads/${download.body.download_id}`, {
      key: keyOf(sam),
    });
    expect(status.status).toBe(404);
    const { items } = await r.getAll('/meetings', { key: keyOf(sam), query: { limit: 100 } });
    expect(items.map((m) => m.recording_id)).not.toContain(id);
    const one = await r.t.graphql(
      'query($id: Int!) { meeting(recordingId: $id) { title } }',
      { id },
      keyOf(sam),
    );
    expect(one.body.data.meeting).toBeNull();
    for (const kind of ['transcripts', 'summaries', 'actionItems', 'highlights'] as const)
      expect(await collections()[kind].countDocuments({ recordingId: id })).toBe(0);
    expect(await r.t.app.database.media.file(media.fileId)).toBeNull();
    expect(await collections().downloads.countDocuments({ recordingId: id })).toBe(0);
    const events = await collections().outbox.find({ recordingId: id }).toArray();
    expect(events.map((e) => [e.status, e.lastError])).toEqual([['cancelled', 'the recording was deleted']]);
    // One tombstone, however often it was deleted.
    expect(await collections().changes.countDocuments({ recordingId: id, kinds: 'deleted' })).toBe(1);
    // Stored again, it is created anew.
    expect(await store(recording)).toEqual(['CREATED']);
  });

  it('refuses to move a recording to another organisation, and changes nothing', async () => {
    const recording = recordingJson(emailOf(sam));
    await store(recording);
    const res = await r.t.graphql(
      'mutation($r: String!) { ingestRecording(recording: $r) { recordingId } }',
      { r: JSON.stringify({ ...recording, recorded_by: emailOf(gina), calendar_invitees: [] }) },
      service,
    );
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', http: { status: 400 } });
    expect(res.body.errors?.[0]?.message).toMatch(/another organisation/);
    const meeting = await collections().meetings.findOne({ recordingId: recording.recording_id });
    expect(meeting!.title).toBe(recording.title);
  });

  it('the deleteRecording mutation is the ingestion service’s alone', async () => {
    const res = await r.t.graphql('mutation { deleteRecording(recordingId: 1) }', {}, keyOf('account admin'));
    expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('a change logged late', () => {
  /** Takes the next position as a writer that has not logged its change yet does. */
  async function reservePosition(): Promise<number> {
    const counter = await collections().counters.findOneAndUpdate(
      { _id: 'changeSeq' },
      { $inc: { value: 1 } },
      { returnDocument: 'after' },
    );
    return counter!.value;
  }

  it('is not skipped: a reader stops before a position still being written, then reads it once written', async () => {
    const from = await cursorNow(sam);
    const early = recordingJson(emailOf(sam));
    await store(early);
    const position = await reservePosition();
    const later = recordingJson(emailOf(sam));
    await store(later);

    const first = await follow(sam, from);
    expect(first.changes.map((c) => c.recordingId)).toEqual([early.recording_id]);
    // The slow writer's change arrives.
    const meeting = (await collections().meetings.findOne({ recordingId: early.recording_id }))!;
    await collections().changes.insertOne({
      _id: position,
      changeId: new ObjectId(),
      recordingId: early.recording_id,
      orgId: meeting.orgId,
      kinds: ['content'],
      before: audienceOf(meeting),
      after: audienceOf(meeting),
      at: new Date(),
      loggedAt: new Date(),
    });
    const second = await follow(sam, first.cursor);
    expect(second.changes.map((c) => [c.recordingId, c.kinds])).toEqual([
      [early.recording_id, ['CONTENT']],
      [later.recording_id, ['CREATED']],
    ]);
  });

  it('a position left empty past the grace is voided; the writer then logs at a new position, once', async () => {
    const from = await cursorNow(sam);
    const position = await reservePosition();
    const later = recordingJson(emailOf(sam));
    await store(later);
    // The entry after the gap was logged long enough ago: the gap is a writer that died or stalled.
    await collections().changes.updateOne(
      { _id: position + 1 },
      { $set: { loggedAt: new Date(Date.now() - 60_000) } },
    );
    const { changes } = await follow(sam, from);
    expect(changes.map((c) => c.recordingId)).toEqual([later.recording_id]);
    expect(await collections().changes.findOne({ _id: position })).toMatchObject({ void: true });

    // A writer whose position was voided under it: its insert is refused, and it takes the next one.
    const next = (await collections().counters.findOne({ _id: 'changeSeq' }))!.value + 1;
    await collections().changes.insertOne({ _id: next, void: true, loggedAt: new Date() });
    const pending = { id: new ObjectId(), kinds: ['content' as const], since: new Date(), before: null };
    const marked = (await collections().meetings.findOneAndUpdate(
      { recordingId: later.recording_id },
      { $set: { title: 'Logged at last', pendingChange: pending } },
      { returnDocument: 'after' },
    )) as MeetingDoc & { pendingChange: typeof pending };
    await logChanges(collections(), [markedChange(marked)], new Date());
    const logged = await collections()
      .changes.find({ changeId: { $exists: true, $in: [pending.id] } })
      .toArray();
    expect(logged.map((e) => e._id)).toEqual([next + 1]);
    const stored = await collections().meetings.findOne({ recordingId: later.recording_id });
    expect([stored!.changeSeq, stored!.pendingChange]).toEqual([next + 1, undefined]);
  });
});

describe('a change logged twice', () => {
  it('leaves no gap: a deletion finished twice voids the position its second logging took, and readers go on at once', async () => {
    const from = await cursorNow(sam);
    const recording = recordingJson(emailOf(sam));
    await store(recording);
    // A deletion whose change is logged, and which another call then finishes too (as when two
    // deletions of one recording meet, or a sweep takes over from a writer thought dead).
    const mark = { id: new ObjectId(), kinds: ['deleted' as const], since: new Date() };
    const marked = (await collections().meetings.findOneAndUpdate(
      { recordingId: recording.recording_id },
      { $set: { pendingChange: mark } },
      { returnDocument: 'after' },
    )) as MeetingDoc & { pendingChange: typeof mark };
    await logChanges(collections(), [markedChange(marked)], new Date());
    expect(await remove(recording.recording_id)).toBe(false); // finished here, logged already
    const after = recordingJson(emailOf(sam));
    await store(after);
    const { changes } = await follow(sam, from);
    expect(changes.map((c) => [c.recordingId, c.kinds])).toEqual([
      [recording.recording_id, ['CREATED']],
      [recording.recording_id, ['DELETED']],
      [after.recording_id, ['CREATED']],
    ]);
  });
});

describe('a process that died part way', () => {
  it('a change stored but not logged is logged by a worker’s sweep, once', async () => {
    const from = await cursorNow(sam);
    const recording = recordingJson(emailOf(sam));
    await store(recording);
    const stored = (await collections().meetings.findOne({ recordingId: recording.recording_id }))!;
    // What storeRecordings writes first, and then nothing more: the process died.
    const mark = {
      id: new ObjectId(),
      kinds: ['content' as const],
      since: new Date(),
      before: audienceOf(stored),
    };
    await collections().meetings.updateOne(
      { recordingId: recording.recording_id },
      { $set: { title: 'Stored, then the process died', pendingChange: mark } },
    );
    const unlogged = await follow(sam, from);
    expect(of(unlogged.changes, recording.recording_id).map((c) => c.kinds)).toEqual([['CREATED']]);

    const { worker } = testWorker(r.t.app.database, workers);
    await worker.runOnce();
    await worker.runOnce();
    const swept = await follow(sam, unlogged.cursor);
    expect(of(swept.changes, recording.recording_id).map((c) => [c.kinds, c.meeting?.title])).toEqual([
      [['CONTENT'], 'Stored, then the process died'],
    ]);
    expect(
      (await collections().meetings.findOne({ recordingId: recording.recording_id }))!.pendingChange,
    ).toBeUndefined();
  });

  it('a deletion that stopped after its mark is finished by the sweep: logged once, content and meeting gone', async () => {
    const from = await cursorNow(sam);
    const recording = recordingJson(emailOf(sam));
    await store(recording);
    const mark = { id: new ObjectId(), kinds: ['deleted' as const], since: new Date() };
    await collections().meetings.updateOne(
      { recordingId: recording.recording_id },
      { $set: { pendingChange: mark } },
    );

    const { worker } = testWorker(r.t.app.database, workers);
    await worker.runOnce();
    expect(await collections().meetings.countDocuments({ recordingId: recording.recording_id })).toBe(0);
    expect(await collections().transcripts.countDocuments({ recordingId: recording.recording_id })).toBe(0);
    const { changes } = await follow(sam, from);
    expect(of(changes, recording.recording_id).map((c) => c.kinds)).toEqual([['CREATED'], ['DELETED']]);
  });
});

describe('updated_after', () => {
  it('lists what changed after an instant, least recently changed first, and a poller asking again misses nothing', async () => {
    const since = new Date().toISOString();
    const a = recordingJson(emailOf(sam));
    const b = recordingJson(emailOf(sam));
    await store(a);
    await store(b);
    await store({ ...a, title: 'A, changed last' });
    const poll = (after: string) =>
      r.getAll('/meetings', { key: keyOf(sam), query: { updated_after: after, limit: 1 } });
    const { items } = await poll(since);
    expect(items.map((m) => m.recording_id)).toEqual([b.recording_id, a.recording_id]);
    expect(items.map((m) => m.title)).toEqual([b.title, 'A, changed last']);
    expect(items[0].updated_at < items[1].updated_at).toBe(true);
    expect(items.every((m) => m.updated_at > since)).toBe(true);

    // GraphQL lists the same.
    const graphql = await r.t.graphql(
      'query($after: DateTime!) { meetings(first: 100, filter: { updatedAfter: $after }) { edges { node { recordingId updatedAt } } } }',
      { after: since },
      keyOf(sam),
    );
    expect(graphql.body.data.meetings.edges.map((e: any) => [e.node.recordingId, e.node.updatedAt])).toEqual(
      items.map((m) => [m.recording_id, m.updated_at]),
    );

    // Asked again from the last updated_at seen: exactly what changed since.
    await store({ ...b, title: 'B, changed again' });
    const again = await poll(items.at(-1)!.updated_at);
    expect(again.items.map((m) => [m.recording_id, m.title])).toEqual([[b.recording_id, 'B, changed again']]);
    expect((await poll(again.items.at(-1)!.updated_at)).items).toEqual([]);
  });

  it('does not list a change after one still being written until that one is logged (or voided)', async () => {
    const since = new Date().toISOString();
    const counter = await collections().counters.findOneAndUpdate(
      { _id: 'changeSeq' },
      { $inc: { value: 1 } },
      { returnDocument: 'after' },
    );
    const recording = recordingJson(emailOf(sam));
    await store(recording);
    const listed = async () =>
      (await r.getAll('/meetings', { key: keyOf(sam), query: { updated_after: since } })).items.map(
        (m) => m.recording_id,
      );
    expect(await listed()).toEqual([]);
    await collections().changes.updateOne(
      { _id: counter!.value + 1 },
      { $set: { loggedAt: new Date(Date.now() - 60_000) } },
    );
    expect(await listed()).toEqual([recording.recording_id]);
  });

  it('refuses an instant in the future or malformed, and ordering by relevance', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    const rest = await r.get('/meetings', { key: keyOf(sam), query: { updated_after: future } });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatch(/future/);
    const malformed = await r.get('/meetings', { key: keyOf(sam), query: { updated_after: 'yesterday' } });
    expect([malformed.status, malformed.body.error]).toEqual([400, expect.stringMatching(/updated_after/)]);
    const graphql = await r.t.graphql(
      `query($after: DateTime!) { meetings(filter: { updatedAfter: $after, search: "pricing" }, orderBy: RELEVANCE) { edges { cursor } } }`,
      { after: new Date(0).toISOString() },
      keyOf(sam),
    );
    expect(graphql.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      http: { status: 400 },
    });
  });
});

describe("the feed's cursors", () => {
  it('refuses a cursor that does not decode, of another list, of another viewer, and a page size out of range', async () => {
    const meetingsCursor = (await r.get('/meetings', { key: keyOf(sam), query: { limit: 1 } })).body
      .next_cursor;
    const cases: [string, string | undefined, number | undefined, RegExp][] = [
      ['garbage', 'not-a-cursor', undefined, /not valid/],
      ['another list', meetingsCursor, undefined, /not one of meetingChanges/],
      ['another viewer', await cursorNow(tom), undefined, /another user/],
      ['first 0', undefined, 0, /first/],
      ['first 101', undefined, 101, /first/],
    ];
    for (const [what, after, first, message] of cases) {
      const res = await feedPage(sam, after, first);
      expect(res.body.errors?.[0]?.extensions, what).toMatchObject({
        code: 'BAD_USER_INPUT',
        http: { status: 400 },
      });
      expect(res.body.errors?.[0]?.message, what).toMatch(message);
    }
  });

  it('tells a client whose cursor is older than the retention to resync, and starts without one from the oldest kept', async () => {
    const old = await cursorNow(sam);
    await store(recordingJson(emailOf(sam)));
    // Thirty-one days on, the worker trims what was logged before the 30-day window.
    const trimmed = await trimLog(
      collections(),
      new Date(Date.now() + 31 * 24 * 3600_000),
      30 * 24 * 3600_000,
    );
    expect(trimmed).toBeGreaterThan(0);
    const res = await feedPage(sam, old);
    expect(res.body.data?.meetingChanges ?? null).toBeNull();
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: 'RESYNC_REQUIRED',
      http: { status: 410 },
    });
    expect(res.body.errors?.[0]?.message).toMatch(/meetingChangesCursor/);
    // A fresh start works, from the oldest change kept (none: all were trimmed).
    const fresh = await feedPage(sam);
    expect(fresh.body.errors).toBeUndefined();
    expect(fresh.body.data.meetingChanges.edges).toEqual([]);
    const recording = recordingJson(emailOf(sam));
    await store(recording);
    const after = await follow(sam, fresh.body.data.meetingChanges.pageInfo.endCursor);
    expect(after.changes.map((c) => c.recordingId)).toEqual([recording.recording_id]);
  });
});
