/**
 * Typed collections and the indexes the queries of docs/api/access.md need. `ensureIndexes` is idempotent:
 * createIndexes with an identical spec is a no-op on MongoDB.
 */
import {
  type ClientBulkWriteModel,
  type ClientBulkWriteOptions,
  type ClientBulkWriteResult,
  type Collection,
  type Db,
  type Document,
  type IndexDescription,
  MongoBulkWriteError,
  type MongoClient,
  type OptionalUnlessRequiredId,
} from 'mongodb';
import {
  type AppDoc,
  CHANGE_LOG_SETTLED,
  CHANGE_SEQ_COUNTER,
  type ContentDocs,
  type ContentKind,
  type CounterDoc,
  type CredentialDoc,
  type CrmConnectionDoc,
  type CrmRecordDoc,
  contentKinds,
  type DeliveryAttemptDoc,
  type DownloadDoc,
  type MeetingChangeDoc,
  type MeetingDoc,
  type MeetingTypeDoc,
  type OAuthRecordDoc,
  type OrganisationDoc,
  type OutboxDoc,
  type RateLimitDoc,
  type ServiceKeyDoc,
  type TeamDoc,
  type UserDoc,
  type WebhookDoc,
} from './documents.js';

type ContentCollections = { [K in ContentKind]: Collection<ContentDocs[K]> };

export interface Collections extends ContentCollections {
  organisations: Collection<OrganisationDoc>;
  teams: Collection<TeamDoc>;
  users: Collection<UserDoc>;
  credentials: Collection<CredentialDoc>;
  meetingTypes: Collection<MeetingTypeDoc>;
  meetings: Collection<MeetingDoc>;
  /** The change log (domain/change-log.ts). */
  changes: Collection<MeetingChangeDoc>;
  crmConnections: Collection<CrmConnectionDoc>;
  crmRecords: Collection<CrmRecordDoc>;
  webhooks: Collection<WebhookDoc>;
  outbox: Collection<OutboxDoc>;
  deliveryAttempts: Collection<DeliveryAttemptDoc>;
  rateLimits: Collection<RateLimitDoc>;
  counters: Collection<CounterDoc>;
  downloads: Collection<DownloadDoc>;
  serviceKeys: Collection<ServiceKeyDoc>;
  apps: Collection<AppDoc>;
  oauth: Collection<OAuthRecordDoc>;
}

/** Writes to several collections in one command, in order: the server's bulkWrite (MongoDB 8.0). */
export type BulkWriteAcross = (
  models: ClientBulkWriteModel[],
  options: ClientBulkWriteOptions,
) => Promise<ClientBulkWriteResult>;

const acrossCollections = new WeakMap<Collections, BulkWriteAcross>();

/**
 * The server's bulkWrite command for `collections`, or undefined when their server is older than
 * 8.0 (its callers then write collection by collection).
 */
export function bulkWriteAcross(collections: Collections): BulkWriteAcross | undefined {
  return acrossCollections.get(collections);
}

/**
 * Inserts `docs` in one unordered insert: those a unique index refuses (they exist already) are
 * refused one by one, the others stored. Returns the indexes of the refused; any other failure is
 * thrown.
 */
export async function insertNew<T extends Document>(
  collection: Collection<T>,
  docs: OptionalUnlessRequiredId<T>[],
): Promise<Set<number>> {
  if (docs.length === 0) return new Set();
  try {
    await collection.insertMany(docs, { ordered: false });
    return new Set();
  } catch (error) {
    const refusals = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
    if (refusals.length === 0 || !refusals.every((e) => e.code === 11000)) throw error;
    return new Set(refusals.map((e) => e.index));
  }
}

/** `${database}.${collection}`: how a write across collections names each one. */
export function namespaceOf(collection: Pick<Collection, 'dbName' | 'collectionName'>): string {
  return `${collection.dbName}.${collection.collectionName}`;
}

export type CollectionName = keyof Collections;

const byRecording: IndexDescription[] = [{ key: { recordingId: 1 }, unique: true }];
const contentIndexes = Object.fromEntries(contentKinds.map((kind) => [kind, byRecording])) as Record<
  ContentKind,
  IndexDescription[]
>;

/**
 * The words of a meeting, for search (domain/search.ts): one text index per collection that holds
 * some (MongoDB allows one). Weights rank a word in a title above the same word said once in an
 * hour of transcript.
 */
const searchIndex = (key: Record<string, 'text'>, weight: number): IndexDescription => ({
  key,
  name: 'search',
  weights: Object.fromEntries(Object.keys(key).map((field) => [field, weight])),
  default_language: 'english',
});

/** Newest first by recording start, ties by recording id: the keyset order of every meeting list. */
const meetingKeyset = { recordingStartTime: -1, recordingId: -1 } as const;

const indexes: { [K in CollectionName]: IndexDescription[] } = {
  organisations: [{ key: { slug: 1 }, unique: true }],
  teams: [{ key: { orgId: 1, name: 1 }, unique: true }],
  users: [{ key: { email: 1 }, unique: true }, { key: { orgId: 1, teamId: 1 } }],
  credentials: [
    { key: { secretHash: 1 }, unique: true },
    { key: { userId: 1 } },
    // OAuth access tokens: revoked with their grant, dropped once expired.
    { key: { grantId: 1 }, partialFilterExpression: { grantId: { $exists: true } } },
    { key: { purgeAt: 1 }, expireAfterSeconds: 0 },
  ],
  meetingTypes: [
    { key: { orgId: 1, name: 1 }, unique: true },
    // The meeting_type filter looks a name up in every organisation (shared meetings).
    { key: { name: 1 } },
  ],
  meetings: [
    { key: { recordingId: 1 }, unique: true },
    // The four ways to see a meeting (docs/api/access.md), each followed by the list order.
    { key: { recorderId: 1, ...meetingKeyset } },
    { key: { sharedWithEmails: 1, ...meetingKeyset } },
    { key: { orgId: 1, sharedTeamIds: 1, ...meetingKeyset } },
    { key: { orgId: 1, sharedWithAllTeams: 1, ...meetingKeyset } },
    // A viewer of all teams (an account admin) sees every shared meeting of the organisation: its
    // list reads the organisation's meetings in list order and stops after a page, where the
    // indexes above would all be read and sorted (100k meetings: 68 ms a page, 4.3 ms with it).
    { key: { orgId: 1, ...meetingKeyset } },
    // A created_before window excludes the newest meetings, which the walk above reads first (the
    // whole organisation when the window is old); this index finds the window's few meetings, and
    // the planner picks whichever finds the page first.
    { key: { orgId: 1, createdAt: -1 } },
    // The attendees filter (GraphQL): meetings with one of the emails among their invitees.
    { key: { 'calendarInvitees.email': 1, ...meetingKeyset } },
    searchIndex({ title: 'text', meetingTitle: 'text' }, 10),
    // Live updates poll for recently ready meetings; workers sweep unfinished fan-outs.
    { key: { contentReadyAt: 1 } },
    { key: { eventsPending: 1, contentReadyAt: 1 }, partialFilterExpression: { eventsPending: true } },
    {
      key: { summaryPending: 1, summaryPendingSince: 1 },
      partialFilterExpression: { summaryPending: true },
    },
    // updated_after: the organisation's meetings in the order they changed.
    { key: { orgId: 1, updatedAt: 1, recordingId: 1 } },
    // Workers log the changes a process that died left unlogged.
    {
      key: { 'pendingChange.since': 1 },
      partialFilterExpression: { 'pendingChange.since': { $exists: true } },
    },
  ],
  // Read by position (_id); a change is logged once.
  changes: [{ key: { changeId: 1 }, unique: true, partialFilterExpression: { changeId: { $exists: true } } }],
  ...contentIndexes,
  transcripts: [
    ...byRecording,
    // The attendees filter: meetings whose transcript matched a speaker to one of the emails.
    { key: { 'speakers.matchedCalendarInviteeEmail': 1 } },
    searchIndex({ 'entries.text': 'text' }, 1),
  ],
  summaries: [...byRecording, searchIndex({ markdownFormatted: 'text' }, 5)],
  actionItems: [...byRecording, searchIndex({ 'items.description': 'text' }, 5)],
  crmConnections: [{ key: { 'owner.kind': 1, 'owner.id': 1 }, unique: true }],
  crmRecords: [
    { key: { connectionId: 1, kind: 1, email: 1 } },
    { key: { connectionId: 1, kind: 1, domain: 1 } },
    { key: { connectionId: 1, kind: 1, companyDomain: 1 } },
  ],
  webhooks: [
    { key: { ownerId: 1, createdAt: -1 } },
    // Candidate webhooks of a ready meeting: its recorder's, those of users it is shared with, its organisation's.
    { key: { ownerEmail: 1 } },
    { key: { ownerOrgId: 1 } },
  ],
  outbox: [
    { key: { messageId: 1 }, unique: true },
    {
      key: { webhookId: 1, recordingId: 1 },
      unique: true,
      partialFilterExpression: { kind: 'webhook_event' },
    },
    // A change event exists once per webhook and change.
    {
      key: { webhookId: 1, 'change.position': 1 },
      unique: true,
      partialFilterExpression: { kind: 'change_event' },
    },
    { key: { status: 1, nextAttemptAt: 1 } },
    // A webhook's deliveries, newest first.
    { key: { webhookId: 1, createdAt: -1, _id: -1 } },
  ],
  deliveryAttempts: [{ key: { outboxId: 1, attemptedAt: 1 } }],
  rateLimits: [{ key: { expiresAt: 1 }, expireAfterSeconds: 0 }],
  counters: [],
  // Read by id; kept a week after their link expired, so their status reads `expired` meanwhile.
  downloads: [
    { key: { expiresAt: 1 }, expireAfterSeconds: 7 * 24 * 3600 },
    // A deleted recording's downloads go with it.
    { key: { recordingId: 1 } },
  ],
  serviceKeys: [],
  apps: [{ key: { clientId: 1 }, unique: true }, { key: { orgId: 1, createdAt: -1 } }],
  oauth: [
    { key: { grantId: 1 } },
    { key: { model: 1, uid: 1 }, partialFilterExpression: { uid: { $exists: true } } },
    // A user's grants, an app's grants (consent remembered, apps deleted).
    { key: { model: 1, accountId: 1, clientId: 1 }, partialFilterExpression: { model: 'Grant' } },
    { key: { model: 1, clientId: 1 }, partialFilterExpression: { model: 'Grant' } },
    { key: { expiresAt: 1 }, expireAfterSeconds: 0 },
  ],
};

/** `client`'s server version decides whether writes across collections are one command. */
export async function collectionsOf(db: Db, client: MongoClient): Promise<Collections> {
  const names = Object.keys(indexes) as CollectionName[];
  const collections = Object.fromEntries(
    names.map((name) => [name, db.collection(name)]),
  ) as unknown as Collections;
  const { versionArray } = await client.db('admin').command({ buildInfo: 1 });
  if (Array.isArray(versionArray) && versionArray[0] >= 8)
    acrossCollections.set(collections, (models, options) => client.bulkWrite(models, options));
  return collections;
}

export async function ensureIndexes(collections: Collections): Promise<void> {
  await Promise.all(
    (Object.keys(indexes) as CollectionName[])
      .filter((name) => indexes[name].length > 0)
      .map((name) => collections[name].createIndexes(indexes[name])),
  );
}

/**
 * Brings documents an older version stored up to what the code reads. Meetings stored before the
 * change log (a database with meetings and no change log counter) get position 0 and `updatedAt`
 * (their createdAt, or now if later), and the log's times start after them
 * (domain/change-log.ts), so `updated_after` lists them. Once the counter exists there is nothing
 * to do, and an empty database is left untouched.
 */
export async function upgradeDocuments(collections: Collections, now = new Date()): Promise<void> {
  if (await collections.counters.findOne({ _id: CHANGE_SEQ_COUNTER })) return;
  if (!(await collections.meetings.findOne({}, { projection: { _id: 1 } }))) return;
  await collections.meetings.updateMany({ changeSeq: { $exists: false } }, [
    { $set: { changeSeq: 0, updatedAt: { $min: ['$createdAt', now] } } },
  ]);
  // The counter last: a process that dies before it upgrades again, which changes nothing twice.
  await Promise.all(
    [CHANGE_LOG_SETTLED, CHANGE_SEQ_COUNTER].map((_id) =>
      collections.counters.updateOne(
        { _id },
        { $max: { atMs: now.getTime() }, $setOnInsert: { value: 0 } },
        { upsert: true },
      ),
    ),
  );
}
