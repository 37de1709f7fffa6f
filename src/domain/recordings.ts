/**
 * Storing a recording with its content: the one write path for meetings, used by the seeder and
 * by ingestion. Derived fields (invitee domains, company, sharing summary) are computed here, so
 * no caller can store them inconsistently.
 */
import type { Collection, ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import {
  type ContentKind,
  type ContentOf,
  contentKinds,
  type MeetingDoc,
  RECORDING_ID_COUNTER,
} from '../db/documents.js';
import { type Clock, systemClock } from './clock.js';
import { storedContentOf } from './content.js';
import { fanOutContentReady, markReady, recipientsOf } from './content-ready.js';
import { DomainError } from './errors.js';
import { companyDomainOf, describeInvitee, domainsTypeOf } from './invitees.js';
import type { OutboxHint } from './outbox.js';
import { ReferenceCache } from './reference-cache.js';

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
  /** True exactly once per recording: when it is first stored with its summary. */
  becameReady: boolean;
  /** Webhook events this call queued (only when it became ready). */
  eventsQueued: number;
}

/** What a recording's names resolved to: storeRecording looks them up; a bulk loader may know them. */
export interface ResolvedReferences {
  recordingId: number;
  orgId: ObjectId;
  orgDomains: string[];
  recorder: { _id: ObjectId; teamId: ObjectId | null };
  meetingTypeId: ObjectId | null;
  sharedTeamIds: ObjectId[];
}

/** The meeting document of a recording, without `_id` and its readiness marks. */
export function meetingFieldsOf(
  input: RecordingInput,
  refs: ResolvedReferences,
): Omit<MeetingDoc, '_id' | 'contentReadyAt'> {
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

/** How far past an explicit id a server moves the counter (see ReferenceCache.counterPast). */
const ID_HEADROOM = 1000;

async function allocateRecordingId(
  collections: Collections,
  references: ReferenceCache,
  wanted: number | undefined,
): Promise<number> {
  if (wanted !== undefined) {
    // Keep the counter ahead of explicit ids so later allocations never collide.
    await references.counterPast(wanted, ID_HEADROOM);
    return wanted;
  }
  const counter = await collections.counters.findOneAndUpdate(
    { _id: RECORDING_ID_COUNTER },
    { $inc: { value: 1 } },
    { upsert: true, returnDocument: 'after' },
  );
  return counter!.value;
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
  collections: Collections,
  references: ReferenceCache,
  input: RecordingInput,
) {
  const recorder = await references.recorder(input.recorderEmail);
  if (!recorder) throw new DomainError('BAD_USER_INPUT', `Unknown recorder: ${input.recorderEmail}`);
  // All of these need only the recorder's organisation id: one round trip for them together.
  const [org, meetingType, sharedTeamIds, recordingId] = await Promise.all([
    references.organisation(recorder.orgId),
    input.meetingType === null ? null : references.meetingType(recorder.orgId, input.meetingType),
    input.sharing.allTeams ? [] : resolveTeams(references, recorder.orgId, input.sharing.teams),
    allocateRecordingId(collections, references, input.recordingId),
  ]);
  if (!org) throw new DomainError('BAD_USER_INPUT', `The recorder's organisation does not exist`);
  if (input.meetingType !== null && !meetingType)
    throw new DomainError('BAD_USER_INPUT', `Unknown meeting type: ${input.meetingType}`);
  return { recorder, org, meetingTypeId: meetingType?._id ?? null, sharedTeamIds, recordingId };
}

export interface StoreOptions {
  clock?: Clock;
  /** The server's (ingestion); without one, every name is read from the database. */
  references?: ReferenceCache;
  /** The app's, told of the webhook events queued; without one, workers find them by polling. */
  hint?: OutboxHint;
}

/**
 * Stores a recording with its content: the one write path of the seeder, `npm run ingest` and the
 * ingestRecording mutation. The first time it is stored with a summary its content is ready and
 * the matching webhook events are queued (content-ready.ts); storing it again fires nothing.
 *
 * Its writes, each needed for durability without transactions: the meeting with the intent to
 * write a summary; the content (one write per kind, at once); the ready mark (which drops the
 * intent and marks the fan-out pending); the events (one bulk write); the end of the fan-out.
 */
export async function storeRecording(
  collections: Collections,
  input: RecordingInput,
  { clock = systemClock, references = new ReferenceCache(collections, 0), hint }: StoreOptions = {},
): Promise<StoredRecording> {
  const { recorder, org, meetingTypeId, sharedTeamIds, recordingId } = await resolveReferences(
    collections,
    references,
    input,
  );
  const now = clock.now();
  const { summaries: summary } = input.content;

  const fields = meetingFieldsOf(input, {
    recordingId,
    orgId: org._id,
    orgDomains: org.domains,
    recorder,
    meetingTypeId,
    sharedTeamIds,
  });
  const written = await collections.meetings.findOneAndUpdate(
    { recordingId },
    {
      // A summary about to be written: should this process die before the ready mark below, a
      // worker's sweep sees the intent and marks it (finishPendingFanOuts).
      $set: summary ? { ...fields, summaryPending: true, summaryPendingSince: now } : fields,
      $setOnInsert: { contentReadyAt: null, eventsPending: false },
    },
    { upsert: true, returnDocument: 'after' },
  );
  const { summaryPending: _, summaryPendingSince: __, ...meeting } = written!;

  // Who would get an event depends on the meeting alone: looked up while its content is written
  // and marked ready (used only if this call makes it ready).
  const recipients = summary ? recipientsOf(collections, meeting, references) : undefined;
  recipients?.catch(() => {}); // awaited below, unless a write fails first

  // Each kind it brings replaces that kind's document (its fields and their serialised form); the
  // others stay as stored.
  await Promise.all(
    contentKinds
      .filter((kind) => input.content[kind])
      .map((kind) => {
        const collection = collections[kind] as unknown as Collection<{ recordingId: number }>;
        const stored = storedContentOf(kind, input.content[kind]!, input.url);
        return collection.updateOne({ recordingId }, { $set: stored }, { upsert: true });
      }),
  );

  const becameReady = summary ? await markReady(collections, recordingId, now) : false;
  let eventsQueued = 0;
  if (becameReady) {
    meeting.contentReadyAt = now;
    eventsQueued = await fanOutContentReady(collections, meeting, now, { recipients, hint });
    meeting.eventsPending = false;
  }
  return { meeting, becameReady, eventsQueued };
}
