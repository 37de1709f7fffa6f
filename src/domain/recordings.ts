/**
 * Storing recordings with their content: the one write path for meetings, used by the seeder (in
 * batches) and by ingestion (one at a time). Derived fields (invitee domains, company, sharing summary) are computed here, so
 * no caller can store them inconsistently.
 */
import { BSON, type Collection, ObjectId } from 'mongodb';
import { bulkWriteAcross, type Collections, namespaceOf } from '../db/collections.js';
import {
  type ChangeKind,
  type ContentKind,
  type ContentOf,
  contentKinds,
  type MeetingDoc,
  type PendingChangeDoc,
  RECORDING_ID_COUNTER,
} from '../db/documents.js';
import { logChanges } from './change-log.js';
import { type Clock, systemClock } from './clock.js';
import { storedContentOf } from './content.js';
import { fanOutContentReady, markReady, readyMarkModels, recipientsOf } from './content-ready.js';
import { DomainError } from './errors.js';
import { companyDomainOf, describeInvitee, domainsTypeOf } from './invitees.js';
import type { OutboxHint } from './outbox.js';
import { ReferenceCache } from './reference-cache.js';
import { sharingChanged } from './sharing.js';
import { audienceOf } from './visibility.js';

/** The meeting's own fields, stored as given. */
type StoredAsGiven = Pick<
  MeetingDoc,
  | 'title'
  | 'meetingTitle'
  | 'url'
  | 'shareUrl'
  | 'createdAt'
  | 'scheduledStartTime'
  | 'scheduledEndTime'
  | 'recordingStartTime'
  | 'recordingEndTime'
  | 'transcriptLanguage'
  | 'meetingUrl'
>;

export interface RecordingInput extends StoredAsGiven {
  /** Given by imports and seeds; allocated from a counter when absent. */
  recordingId?: number;
  recorderEmail: string;
  /** A meeting type of the recorder's organisation, by name. */
  meetingType: string | null;
  calendarInvitees: { name: string | null; email: string | null }[];
  sharing: { userEmails: string[]; teams: string[]; allTeams: boolean };
  /** The content it brings, by kind; a kind left out keeps what is stored. */
  content: { [K in ContentKind]?: ContentOf<K> };
}

export interface StoredRecording {
  meeting: MeetingDoc;
  /** What this call changed (none: it was stored like this already); in the change log. */
  changes: ChangeKind[];
  /** True exactly once per recording: when it is first stored with its summary. */
  becameReady: boolean;
  /** Webhook events this call queued (only when it became ready). */
  eventsQueued: number;
}

/** What a recording's names resolved to: storeRecordings looks them up; a bulk loader may know them. */
export interface ResolvedReferences {
  recordingId: number;
  orgId: ObjectId;
  orgDomains: string[];
  recorder: { _id: ObjectId; teamId: ObjectId | null };
  meetingTypeId: ObjectId | null;
  sharedTeamIds: ObjectId[];
}

/** The meeting document of a recording, without `_id`, its readiness marks and its place in the change log. */
export function meetingFieldsOf(
  input: RecordingInput,
  refs: ResolvedReferences,
): Omit<MeetingDoc, '_id' | 'contentReadyAt' | 'updatedAt' | 'changeSeq'> {
  const invitees = input.calendarInvitees.map((i) => describeInvitee(i, refs.orgDomains));
  return {
    recordingId: refs.recordingId,
    orgId: refs.orgId,
    recorderId: refs.recorder._id,
    teamId: refs.recorder.teamId,
    title: input.title,
    meetingTitle: input.meetingTitle,
    meetingTypeId: refs.meetingTypeId,
    url: input.url,
    shareUrl: input.shareUrl,
    createdAt: input.createdAt,
    scheduledStartTime: input.scheduledStartTime,
    scheduledEndTime: input.scheduledEndTime,
    recordingStartTime: input.recordingStartTime,
    recordingEndTime: input.recordingEndTime,
    transcriptLanguage: input.transcriptLanguage,
    meetingUrl: input.meetingUrl,
    calendarInvitees: invitees,
    domainsType: domainsTypeOf(invitees),
    companyDomain: companyDomainOf(invitees),
    sharedWithEmails: [...new Set(input.sharing.userEmails.map((e) => e.toLowerCase()))],
    sharedTeamIds: refs.sharedTeamIds,
    sharedWithAllTeams: input.sharing.allTeams,
  };
}

type MeetingFields = ReturnType<typeof meetingFieldsOf>;

/** What a recording says about its meeting besides who may see it: a change to it is a content change. */
function detailsOf(m: MeetingFields) {
  return JSON.stringify([
    m.recorderId,
    m.teamId,
    m.title,
    m.meetingTitle,
    m.meetingTypeId,
    m.url,
    m.shareUrl,
    m.createdAt,
    m.scheduledStartTime,
    m.scheduledEndTime,
    m.recordingStartTime,
    m.recordingEndTime,
    m.transcriptLanguage,
    m.meetingUrl,
    m.calendarInvitees,
  ]);
}

/** A recording as stored now: its meeting, and the version of each kind of content it has. */
interface StoredState {
  meeting: MeetingDoc;
  versions: Map<ContentKind, string | undefined>;
}

/**
 * The stored state of `recordingIds` (those stored before): their meetings, then, for those that
 * exist, the versions of the kinds of content `inputs` bring (one query per kind, at once). A batch
 * of new recordings costs the one query.
 */
async function storedStates(
  collections: Collections,
  recordingIds: readonly number[],
  inputs: readonly RecordingInput[],
): Promise<Map<number, StoredState>> {
  const meetings = await collections.meetings.find({ recordingId: { $in: [...recordingIds] } }).toArray();
  const states = new Map<number, StoredState>(
    meetings.map((meeting) => [meeting.recordingId, { meeting, versions: new Map() }]),
  );
  const bringing = (kind: ContentKind) =>
    recordingIds.filter((id, i) => states.has(id) && inputs[i]!.content[kind]);
  const kinds = contentKinds.filter((kind) => bringing(kind).length > 0);
  const versions = await Promise.all(
    kinds.map((kind) =>
      (collections[kind] as unknown as Collection<{ recordingId: number; version?: string }>)
        .find(
          { recordingId: { $in: bringing(kind) } },
          { projection: { _id: 0, recordingId: 1, version: 1 } },
        )
        .toArray(),
    ),
  );
  kinds.forEach((kind, i) => {
    for (const doc of versions[i]!) states.get(doc.recordingId)?.versions.set(kind, doc.version);
  });
  return states;
}

/**
 * What storing `fields` (and `writes`) over `stored` changes: created, or content and sharing, or
 * nothing. A recording cannot move to another organisation: its id is its organisation's.
 */
function changesOf(
  stored: StoredState | undefined,
  fields: MeetingFields,
  writes: readonly ContentWrite[],
): ChangeKind[] {
  if (!stored) return ['created'];
  const { meeting } = stored;
  if (!meeting.orgId.equals(fields.orgId))
    throw new DomainError(
      'BAD_USER_INPUT',
      `Recording ${fields.recordingId} belongs to another organisation than its recorder's: a recording stays in the organisation it was first stored in. Delete it first to store it anew.`,
    );
  const kinds: ChangeKind[] = [];
  const contentChanged = writes.some(
    (w) => w.recordingId === fields.recordingId && stored.versions.get(w.kind) !== w.stored.version,
  );
  if (contentChanged || detailsOf(meeting) !== detailsOf(fields)) kinds.push('content');
  if (sharingChanged(audienceOf(meeting), audienceOf(fields))) kinds.push('sharing');
  return kinds;
}

/** How far past an explicit id a server moves the counter (see ReferenceCache.counterPast). */
const ID_HEADROOM = 1000;

/**
 * The recording ids of `inputs`, in order: the ids they give (the counter moved past the highest,
 * so later allocations never collide), the others allocated from the counter in one step.
 */
async function allocateRecordingIds(
  collections: Collections,
  references: ReferenceCache,
  inputs: readonly RecordingInput[],
): Promise<number[]> {
  const given = inputs.flatMap((input) => (input.recordingId === undefined ? [] : [input.recordingId]));
  const duplicate = given.find((id, i) => given.indexOf(id) !== i);
  if (duplicate !== undefined)
    throw new DomainError('BAD_USER_INPUT', `Recording ${duplicate} appears twice in one batch`);
  const wanted = inputs.length - given.length;
  const [, last] = await Promise.all([
    given.length > 0 ? references.counterPast(Math.max(...given), ID_HEADROOM) : undefined,
    wanted > 0
      ? collections.counters
          .findOneAndUpdate(
            { _id: RECORDING_ID_COUNTER },
            { $inc: { value: wanted } },
            { upsert: true, returnDocument: 'after' },
          )
          .then((counter) => counter!.value)
      : 0,
  ]);
  let next = last - wanted;
  return inputs.map((input) => input.recordingId ?? ++next);
}

async function resolveTeams(
  references: ReferenceCache,
  orgId: ObjectId,
  names: string[],
): Promise<ObjectId[]> {
  const teams = await Promise.all(names.map((name) => references.team(orgId, name)));
  const missing = names.filter((_, i) => !teams[i]);
  if (missing.length > 0) throw new DomainError('BAD_USER_INPUT', `Unknown team: ${missing.join(', ')}`);
  return teams.map((team) => team!._id);
}

/** What a recording's names refer to: its recorder, their organisation, its meeting type and teams. */
async function resolveReferences(
  references: ReferenceCache,
  input: RecordingInput,
): Promise<Omit<ResolvedReferences, 'recordingId'>> {
  const recorder = await references.recorder(input.recorderEmail);
  if (!recorder) throw new DomainError('BAD_USER_INPUT', `Unknown recorder: ${input.recorderEmail}`);
  // All of these need only the recorder's organisation id: one round trip for them together.
  const [org, meetingType, sharedTeamIds] = await Promise.all([
    references.organisation(recorder.orgId),
    input.meetingType === null ? null : references.meetingType(recorder.orgId, input.meetingType),
    input.sharing.allTeams ? [] : resolveTeams(references, recorder.orgId, input.sharing.teams),
  ]);
  if (!org) throw new DomainError('BAD_USER_INPUT', `The recorder's organisation does not exist`);
  if (input.meetingType !== null && !meetingType)
    throw new DomainError('BAD_USER_INPUT', `Unknown meeting type: ${input.meetingType}`);
  return {
    orgId: org._id,
    orgDomains: org.domains,
    recorder,
    meetingTypeId: meetingType?._id ?? null,
    sharedTeamIds,
  };
}

/** A meeting as callers see it: without the marks of work under way (the summary's, the change's). */
function unmarked({
  summaryPending: _,
  summaryPendingSince: __,
  pendingChange: ___,
  ...meeting
}: MeetingDoc) {
  return meeting as MeetingDoc;
}

/** A meeting's write: what to set, and what to set only when it is created (its `_id` included). */
interface MeetingWrite {
  recordingId: number;
  update: { $set: Partial<MeetingDoc>; $setOnInsert: Partial<MeetingDoc> };
}

/** The meeting documents as written, without the marks; with them, for one meeting, what it was just before. */
interface WrittenMeetings {
  meetings: MeetingDoc[];
  /** The meeting as the write found it (null: it created it); only for a write of one meeting. */
  before?: MeetingDoc | null;
}

/**
 * Upserts the meeting documents and returns them as stored, in order, without the intent marks:
 * one findOneAndUpdate for one meeting (which also tells what it was just before: the change log's
 * `before`, exact even when another writer stores the same recording at the same moment), a bulk
 * write and a read for several (a batch's `before` is then what was read just before the write:
 * exact unless another writer stores one of its recordings in between; the seeder's batches run
 * alone).
 */
async function writeMeetings(
  collections: Collections,
  writes: readonly MeetingWrite[],
): Promise<WrittenMeetings> {
  if (writes.length === 0) return { meetings: [] };
  if (writes.length === 1) {
    const { recordingId, update } = writes[0]!;
    const options = { upsert: true, returnDocument: 'before' } as const;
    const before = await collections.meetings.findOneAndUpdate({ recordingId }, update, options);
    const after = (
      before ? { ...before, ...update.$set } : { ...update.$set, ...update.$setOnInsert }
    ) as MeetingDoc;
    return { meetings: [unmarked(after)], before };
  }
  await collections.meetings.bulkWrite(
    writes.map(({ recordingId, update }) => ({
      updateOne: { filter: { recordingId }, update, upsert: true },
    })),
  );
  const ids = writes.map((w) => w.recordingId);
  const byId = new Map(
    (await collections.meetings.find({ recordingId: { $in: ids } }).toArray()).map((m) => [m.recordingId, m]),
  );
  return { meetings: ids.map((id) => unmarked(byId.get(id)!)) };
}

/** MongoDB's document limit, less room for the update around it. */
const MAX_CONTENT_BYTES = 16 * 1024 * 1024 - 64 * 1024;

/**
 * A content document must fit in one MongoDB document; it holds its content twice (its fields, and
 * its serialised JSON). Measured only when its JSON alone is large: smaller ones always fit.
 */
function assertStorable(
  kind: ContentKind,
  recordingId: number,
  stored: { json: { length(): number } },
): void {
  if (stored.json.length() < 4 * 1024 * 1024) return;
  const size = BSON.calculateObjectSize(stored);
  if (size > MAX_CONTENT_BYTES)
    throw new DomainError(
      'BAD_USER_INPUT',
      `The ${contentNames[kind]} of recording ${recordingId} is too large to store: ${(size / 1024 / 1024).toFixed(1)} MB as stored, at most ${Math.floor(MAX_CONTENT_BYTES / 1024 / 1024)} MB (a MongoDB document; about 7 MB of JSON).`,
    );
}

const contentNames: Record<ContentKind, string> = {
  transcripts: 'transcript',
  summaries: 'summary',
  actionItems: 'action items',
  highlights: 'highlights',
};

/** One kind of content of one recording, as stored: it replaces that kind's document. */
interface ContentWrite {
  kind: ContentKind;
  recordingId: number;
  stored: { version: string };
}

/** A content write as an update, whichever command carries it. */
const contentUpsert = ({ recordingId, stored }: ContentWrite) => ({
  filter: { recordingId },
  update: { $set: stored },
  upsert: true,
});

/**
 * Writes the content (each kind brought replaces that kind's document, its fields and their
 * serialised form; the others stay as stored), then marks ready those of `summarised` it makes
 * ready (markReady), returning them. The marks must follow the content: a crash in between leaves
 * the intent for the sweep. On MongoDB 8.0 one ordered command does all of it; before, one bulk
 * write per kind at once, then the marks.
 */
async function writeContentAndReadyMarks(
  collections: Collections,
  writes: readonly ContentWrite[],
  summarised: readonly number[],
  now: Date,
  unready: readonly number[],
): Promise<number[]> {
  const across = bulkWriteAcross(collections);
  if (across) {
    const content = writes.map((write) => ({
      namespace: namespaceOf(collections[write.kind]),
      name: 'updateOne' as const,
      ...contentUpsert(write),
    }));
    const marks = summarised.length > 0 ? readyMarkModels(collections, summarised, now, unready) : undefined;
    if (content.length === 0 && !marks) return [];
    const result = await across([...content, ...(marks?.models ?? [])], {
      ordered: true,
      verboseResults: true,
    });
    return marks ? marks.made(result, content.length) : [];
  }
  await Promise.all(
    contentKinds.map((kind) => {
      const ofKind = writes.filter((w) => w.kind === kind);
      const collection = collections[kind] as unknown as Collection<{ recordingId: number }>;
      return ofKind.length > 0
        ? collection.bulkWrite(ofKind.map((write) => ({ updateOne: contentUpsert(write) })))
        : undefined;
    }),
  );
  return markReady(collections, summarised, now, unready);
}

export interface StoreOptions {
  clock?: Clock;
  /** The server's (ingestion); without one, every name is read from the database. */
  references?: ReferenceCache;
  /** The app's, told of the webhook events queued; without one, workers find them by polling. */
  hint?: OutboxHint;
}

/**
 * Stores recordings with their content: the one write path of the seeder (a batch at a time),
 * `npm run ingest` and the ingestRecording mutation (one at a time). The first time one is stored
 * with a summary its content is ready and the matching webhook events are queued
 * (content-ready.ts); storing it again fires no such event, but what it changes (content,
 * sharing) goes into the change log (change-log.ts), and one stored as it is already is not written
 * at all. Every name is checked before anything is written: an unknown one fails the batch with
 * BAD_USER_INPUT.
 *
 * Its writes, each needed for durability without transactions, each one command for the whole
 * batch: the meetings with the intent to write a summary and the mark of their change; the content
 * and the ready marks (which drop the intent and mark the fan-out pending), one ordered command on
 * MongoDB 8.0, else one write per kind at once and then the marks; the change logged (a position,
 * the meetings told it, the entries, the marks cleared); the events; the end of the fan-out.
 */
export async function storeRecordings(
  collections: Collections,
  inputs: readonly RecordingInput[],
  { clock = systemClock, references = new ReferenceCache(collections, 0), hint }: StoreOptions = {},
): Promise<StoredRecording[]> {
  if (inputs.length === 0) return [];
  const allocated = allocateRecordingIds(collections, references, inputs);
  // What is stored now is read while the names are resolved: it needs the ids alone.
  const [resolved, recordingIds, states] = await Promise.all([
    Promise.all(inputs.map((input) => resolveReferences(references, input))),
    allocated,
    allocated.then((ids) => storedStates(collections, ids, inputs)),
  ]);
  const now = clock.now();
  const hasSummary = inputs.map((input) => input.content.summaries !== undefined);
  // Each kind brought, as stored: serialised before anything is written, so one too large to
  // store fails the batch as an unknown name does.
  const contentWrites: ContentWrite[] = contentKinds.flatMap((kind) =>
    inputs.flatMap((input, i) => {
      const content = input.content[kind];
      if (!content) return [];
      const stored = storedContentOf(kind, content, input.url);
      assertStorable(kind, recordingIds[i]!, stored);
      return [{ kind, recordingId: recordingIds[i]!, stored }];
    }),
  );

  const fields = inputs.map((input, i) =>
    meetingFieldsOf(input, { ...resolved[i]!, recordingId: recordingIds[i]! }),
  );
  const changes = fields.map((f) => changesOf(states.get(f.recordingId), f, contentWrites));
  // A recording stored as it is already is not written at all: a write of the same values could
  // undo, unlogged, what another writer stored in between.
  const writing = inputs.map((_, i) => i).filter((i) => changes[i]!.length > 0);
  const written = new Set(writing.map((i) => recordingIds[i]!));
  // A change is marked in the write that stores it, and logged once its content is written too:
  // should this process die in between, a worker's sweep logs it (change-log.ts).
  const marks = writing.map((i): PendingChangeDoc => {
    const stored = states.get(recordingIds[i]!)?.meeting;
    return { id: new ObjectId(), kinds: changes[i]!, since: now, before: stored ? audienceOf(stored) : null };
  });

  const { meetings, before } = await writeMeetings(
    collections,
    writing.map((i, w) => {
      // A summary about to be written: should this process die before the ready mark below, a
      // worker's sweep sees the intent and marks it (finishPendingFanOuts).
      const set = {
        ...fields[i]!,
        ...(hasSummary[i] && { summaryPending: true, summaryPendingSince: now }),
        pendingChange: marks[w]!,
      };
      // Its time and position come with its entry in the log.
      const setOnInsert = {
        _id: new ObjectId(),
        contentReadyAt: null,
        eventsPending: false,
        updatedAt: now,
        changeSeq: 0,
      };
      return { recordingId: recordingIds[i]!, update: { $set: set, $setOnInsert: setOnInsert } };
    }),
  );
  const summarised = meetings.filter((_, w) => hasSummary[writing[w]!]);

  // Who would get an event depends on the meeting alone: looked up while its content is written
  // and marked ready (used only for those this call makes ready).
  const recipients = summarised.length > 0 ? recipientsOf(collections, summarised, references) : undefined;
  recipients?.catch(() => {}); // awaited below, unless a write fails first

  const made = new Set(
    await writeContentAndReadyMarks(
      collections,
      contentWrites.filter((write) => written.has(write.recordingId)),
      summarised.map((m) => m.recordingId),
      now,
      summarised.filter((m) => !m.contentReadyAt).map((m) => m.recordingId),
    ),
  );
  // The change logged and the content-ready events queued, each with marks of its own: at once.
  const logging = logChanges(
    collections,
    meetings.map((meeting, w) => ({
      recordingId: meeting.recordingId,
      orgId: meeting.orgId,
      pending: marks[w]!,
      before: before === undefined ? (marks[w]!.before ?? null) : before && audienceOf(before),
      after: audienceOf(meeting),
    })),
    now,
  );
  const queued = new Map<number, number>();
  const fanningOut = (async () => {
    if (made.size === 0) return;
    const ready = summarised.filter((m) => made.has(m.recordingId));
    for (const meeting of ready) meeting.contentReadyAt = now;
    const readyRecipients = recipients!.then((all) =>
      all.filter((_, i) => made.has(summarised[i]!.recordingId)),
    );
    const created = await fanOutContentReady(collections, ready, now, { recipients: readyRecipients, hint });
    ready.forEach((meeting, i) => {
      meeting.eventsPending = false;
      queued.set(meeting.recordingId, created[i]!);
    });
  })();
  await Promise.all([logging, fanningOut]);
  const stored = new Map(meetings.map((m) => [m.recordingId, m]));
  // One not written (changed nothing) is as it was read.
  return recordingIds.map((recordingId, i) => ({
    meeting: stored.get(recordingId) ?? unmarked(states.get(recordingId)!.meeting),
    changes: changes[i]!,
    becameReady: made.has(recordingId),
    eventsQueued: queued.get(recordingId) ?? 0,
  }));
}

/** Stores one recording with its content (storeRecordings, a batch of one). */
export async function storeRecording(
  collections: Collections,
  input: RecordingInput,
  options?: StoreOptions,
): Promise<StoredRecording> {
  return (await storeRecordings(collections, [input], options))[0]!;
}
