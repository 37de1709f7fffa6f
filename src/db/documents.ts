/**
 * The documents stored in MongoDB, one interface per collection.
 *
 * Field names are camelCase (the GraphQL side of the house); the REST layer alone speaks
 * snake_case. Ids are ObjectIds except `recordingId`, the public integer id of a meeting.
 */
import type { Binary, ObjectId } from 'mongodb';

export type Plan = 'team' | 'individual';
export type UserStatus = 'active' | 'deactivated' | 'invited';
export type SettingsAccessLevel = 'none' | 'team_admin' | 'account_admin';
export type ViewAccessLevel = 'own_meetings' | 'team' | 'multiple_teams' | 'all_teams';
export type MeetingTypeStatus = 'active' | 'inactive';
export type DomainsType = 'only_internal' | 'one_or_more_external';
export type SharedWith = 'no_teams' | 'single_team' | 'multiple_teams' | 'all_teams';
export type CredentialKind = 'api_key' | 'connected_app';
export type TriggeredFor =
  | 'my_recordings'
  | 'shared_external_recordings'
  | 'my_shared_with_team_recordings'
  | 'shared_team_recordings';

export interface OrganisationDoc {
  _id: ObjectId;
  /** Natural key used by seeds. */
  slug: string;
  name: string;
  /** Internal email domains, lower case. */
  domains: string[];
  plan: Plan;
  createdAt: Date;
}

export interface TeamDoc {
  _id: ObjectId;
  orgId: ObjectId;
  name: string;
  createdAt: Date;
}

export interface AccessGrant<L> {
  level: L;
  /** Teams the grant names explicitly (for team_admin, team, multiple_teams). */
  teamIds: ObjectId[];
}

export interface UserDoc {
  _id: ObjectId;
  orgId: ObjectId;
  /** Lower case, unique across the service. */
  email: string;
  name: string | null;
  status: UserStatus;
  teamId: ObjectId | null;
  settingsAccess: AccessGrant<SettingsAccessLevel>;
  viewAccess: AccessGrant<ViewAccessLevel>;
  createdAt: Date;
}

/** An API key or a connected-app (OAuth) token. Only the SHA-256 of the secret is stored. */
export interface CredentialDoc {
  _id: ObjectId;
  kind: CredentialKind;
  userId: ObjectId;
  /** hex SHA-256 of the plain secret. */
  secretHash: string;
  /** The first characters of the secret, to tell keys apart in listings. */
  prefix: string;
  label: string;
  /** For connected apps: the app's name. */
  appName: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** API keys made through the API may expire; older credentials have no such field. */
  expiresAt?: Date | null;
  /** When it was last presented (recorded once a second at most, credential-usage.ts). */
  lastUsedAt?: Date | null;
  /** An OAuth access token's: the grant it was issued under (revoking the grant revokes it). */
  grantId?: string;
  /** An OAuth access token's: the app (its client id). */
  clientId?: string;
  /** An OAuth access token's: what the authorization server keeps of it (src/oauth/storage.ts). */
  oauth?: Record<string, unknown>;
  /** An OAuth access token issued for the MCP door (resource `<public URL>/mcp`); absent: REST and GraphQL. */
  audience?: 'mcp';
  /** When the database may drop it (TTL index): set on OAuth access tokens only. */
  purgeAt?: Date;
}

export type AppKind = 'confidential' | 'public';

/** A connected app: an OAuth client registered by an account admin, or by itself (RFC 7591). */
export interface AppDoc {
  _id: ObjectId;
  /** The OAuth `client_id`. */
  clientId: string;
  name: string;
  /** The organisation whose account admin registered it; null when it registered itself. */
  orgId: ObjectId | null;
  createdBy: ObjectId | null;
  /** Matched exactly: https, or http on a loopback address. */
  redirectUris: string[];
  /** Confidential apps hold a secret; public ones (browser apps, MCP clients) prove PKCE instead. */
  kind: AppKind;
  /** hex SHA-256 of the secret (confidential apps). */
  secretHash: string | null;
  createdAt: Date;
  secretRotatedAt: Date | null;
}

/**
 * What the authorization server keeps besides access tokens and apps: authorization codes,
 * refresh tokens, grants, sign-in sessions and interactions (src/oauth/storage.ts). `_id` is the
 * model and the SHA-256 of the id oidc-provider gives it (for codes and tokens, the secret itself).
 */
export interface OAuthRecordDoc {
  _id: string;
  model: string;
  payload: Record<string, unknown>;
  grantId?: string;
  /** A session's fixed id (findByUid). */
  uid?: string;
  /** Grants: whose, and for which app (listing and revoking them). */
  accountId?: string;
  clientId?: string;
  /** When the database may drop it (TTL index); null: kept until removed. */
  expiresAt: Date | null;
}

export interface MeetingTypeDoc {
  _id: ObjectId;
  orgId: ObjectId;
  name: string;
  status: MeetingTypeStatus;
  createdAt: Date;
}

export interface InviteeDoc {
  name: string | null;
  email: string | null;
  emailDomain: string | null;
  isExternal: boolean;
}

export interface MeetingDoc {
  _id: ObjectId;
  recordingId: number;
  /** The recorder's organisation. */
  orgId: ObjectId;
  recorderId: ObjectId;
  /** The recorder's team when the meeting was stored ("its team" in docs/api/access.md). */
  teamId: ObjectId | null;
  title: string;
  meetingTitle: string | null;
  meetingTypeId: ObjectId | null;
  url: string;
  shareUrl: string;
  createdAt: Date;
  scheduledStartTime: Date;
  scheduledEndTime: Date;
  recordingStartTime: Date;
  recordingEndTime: Date;
  transcriptLanguage: string;
  meetingUrl: string | null;
  calendarInvitees: InviteeDoc[];
  domainsType: DomainsType;
  /** The external invitee domain that occurs most often (ties: alphabetical first); null if none. */
  companyDomain: string | null;
  /** Lower-case emails of users it is shared with individually. */
  sharedWithEmails: string[];
  /** Teams of the recorder's organisation it is shared with by name (empty when sharedWithAllTeams). */
  sharedTeamIds: ObjectId[];
  sharedWithAllTeams: boolean;
  /** Set when the meeting is first stored with a summary (content ready, docs/api/access.md). */
  contentReadyAt: Date | null;
  /**
   * True from the moment content became ready until one outbox event per matching webhook exists
   * (set in the same write as contentReadyAt). A worker finishes any fan-out left pending by a
   * process that died. Absent on meetings stored before it existed: false.
   */
  eventsPending?: boolean;
  /**
   * Set (with the time) before a summary is written and cleared with the ready mark: a process
   * that died in between left a summary without the mark, and a worker's sweep finishes the job.
   */
  summaryPending?: boolean;
  summaryPendingSince?: Date;
  /** The recording's media file (video or audio), when one was ingested (domain/media.ts). */
  media?: MeetingMediaDoc;
  /**
   * When the recording last changed (created, content, sharing): the time of its position in the
   * change log, strictly increasing with it. Meetings stored before the log existed have their
   * createdAt (upgradeDocuments).
   */
  updatedAt: Date;
  /** Its last change's position in the change log (0 for meetings stored before the log existed). */
  changeSeq: number;
  /**
   * A change stored but not yet in the change log (domain/change-log.ts): set in the write that
   * stores it and cleared once logged, so a process that dies in between leaves it for a sweep.
   */
  pendingChange?: PendingChangeDoc;
}

/** The fields that decide who may see a meeting (domain/visibility.ts). */
export type AudienceDoc = Pick<
  MeetingDoc,
  'orgId' | 'recorderId' | 'sharedWithEmails' | 'sharedTeamIds' | 'sharedWithAllTeams'
>;

/** What happened to a recording, as the change feed names it (a change may be content and sharing). */
export type ChangeKind = 'created' | 'content' | 'sharing' | 'deleted';

export interface PendingChangeDoc {
  /** The change's own id: logging it twice (the writer and a sweep) is refused by a unique index. */
  id: ObjectId;
  kinds: ChangeKind[];
  /** When it was stored (the meeting's updatedAt): a sweep logs changes pending longer than its grace. */
  since: Date;
  /** Who could see the meeting before it (null: it did not exist); a deletion's is the meeting's own. */
  before?: AudienceDoc | null;
}

/**
 * One position of the change log (`meetingChanges`, domain/change-log.ts): a change of one
 * recording, or a void, a position whose writer did not log it in time (it logs its change at a
 * later position instead). Positions are allocated from a counter, so a reader can tell a position
 * still being written (a gap) from one that exists.
 */
export type MeetingChangeDoc =
  | {
      _id: number;
      changeId: ObjectId;
      recordingId: number;
      orgId: ObjectId;
      kinds: ChangeKind[];
      /** Who could see it before the change (null: it did not exist) and after (null: deleted). */
      before: AudienceDoc | null;
      after: AudienceDoc | null;
      /** The time of its position: the meeting's updatedAt. */
      at: Date;
      loggedAt: Date;
    }
  | { _id: number; void: true; loggedAt: Date };

export type MediaKind = 'video' | 'audio';

/** What a meeting knows of its media file, held in GridFS (db/media-store.ts). */
export interface MeetingMediaDoc {
  /** The GridFS file (`media.files`). */
  fileId: ObjectId;
  kind: MediaKind;
  contentType: string;
  size: number;
  /** hex SHA-256 of the bytes: storing the same file again changes nothing; the ETag. */
  sha256: string;
  storedAt: Date;
}

/**
 * A download of a recording's media, private to the credential that requested it. The media is
 * stored ready to serve, so a download completes when it is made: its link is signed then, and
 * kept here so that every read and a delivery to destinationUrl show the same link.
 */
export interface DownloadDoc {
  /** `dl_` + 24 random base62 characters: the public download_id. */
  _id: string;
  recordingId: number;
  credentialId: ObjectId;
  requestedBy: ObjectId;
  createdAt: Date;
  kind: MediaKind;
  fileId: ObjectId;
  contentType: string;
  size: number;
  /** The signed link, good until `expiresAt` (a week later a TTL index removes the download). */
  url: string;
  expiresAt: Date;
}

/** Secrets the service makes for itself on its first start and every process shares. */
export interface ServiceKeyDoc {
  /** What the key is for, e.g. `mediaLinks`. */
  _id: string;
  secret: Binary;
  createdAt: Date;
}

export interface SpeakerDoc {
  displayName: string;
  matchedCalendarInviteeEmail: string | null;
}

export interface TranscriptEntryDoc {
  speaker: SpeakerDoc;
  text: string;
  /** HH:MM:SS */
  timestamp: string;
}

/**
 * Kept next to each content document's own fields, written with them (domain/content.ts). Absent
 * on documents an older version wrote: readers then build it from the fields.
 */
export interface SerialisedContent {
  /** The content as the public API serialises it (UTF-8 JSON): REST answers and webhook bodies copy these bytes. */
  json?: Binary;
  /** A digest of `json`: what processes holding its bytes check theirs against. */
  version?: string;
}

export interface TranscriptDoc extends SerialisedContent {
  _id: ObjectId;
  recordingId: number;
  entries: TranscriptEntryDoc[];
  /** Each speaker once, in order of first words: who invitees are matched to, without the entries. */
  speakers?: SpeakerDoc[];
}

export interface SummaryDoc extends SerialisedContent {
  _id: ObjectId;
  recordingId: number;
  templateName: string;
  markdownFormatted: string;
}

export interface ActionItemDoc {
  description: string;
  userGenerated: boolean;
  completed: boolean;
  /** HH:MM:SS */
  recordingTimestamp: string;
  assignee: { name: string | null; email: string | null; team: string | null };
}

export interface ActionItemsDoc extends SerialisedContent {
  _id: ObjectId;
  recordingId: number;
  items: ActionItemDoc[];
}

export interface HighlightDoc {
  type: string;
  summary: string | null;
  /** Seconds from the start of the recording. */
  startTime: number;
  endTime: number;
  text: string;
}

export interface HighlightsDoc extends SerialisedContent {
  _id: ObjectId;
  recordingId: number;
  items: HighlightDoc[];
}

/**
 * The content kinds of a meeting, each in a collection of its own (named as here), one document per
 * recording: a new kind is a document type above, an entry here and one in `contentKinds`.
 */
export interface ContentDocs {
  transcripts: TranscriptDoc;
  summaries: SummaryDoc;
  actionItems: ActionItemsDoc;
  highlights: HighlightsDoc;
}

export type ContentKind = keyof ContentDocs;

/** Every content kind, in the order of ContentDocs: their indexes, loaders and the write path iterate it. */
export const contentKinds: readonly ContentKind[] = ['transcripts', 'summaries', 'actionItems', 'highlights'];

/** A content kind's document as a recording brings it: without what storage adds. */
export type ContentOf<K extends ContentKind> = Omit<
  ContentDocs[K],
  '_id' | 'recordingId' | keyof SerialisedContent | 'speakers'
>;

export interface CrmOwner {
  kind: 'user' | 'team';
  id: ObjectId;
}

export interface CrmConnectionDoc {
  _id: ObjectId;
  owner: CrmOwner;
  provider: string;
  createdAt: Date;
}

/** One contact, company or deal of a CRM connection. Matching queries these by email or domain. */
export type CrmRecordDoc =
  | { _id: ObjectId; connectionId: ObjectId; kind: 'contact'; name: string; email: string; recordUrl: string }
  | {
      _id: ObjectId;
      connectionId: ObjectId;
      kind: 'company';
      name: string;
      domain: string;
      recordUrl: string;
    }
  | {
      _id: ObjectId;
      connectionId: ObjectId;
      kind: 'deal';
      name: string;
      amount: number;
      companyDomain: string;
      recordUrl: string;
    };

export interface WebhookDoc {
  _id: ObjectId;
  ownerId: ObjectId;
  url: string;
  /** The signing secret. It must be usable for HMAC, so it cannot be hashed; it is shown once. */
  secret: string;
  createdAt: Date;
  includeTranscript: boolean;
  includeCrmMatches: boolean;
  includeSummary: boolean;
  includeActionItems: boolean;
  triggeredFor: TriggeredFor[];
  /** The owner's email and organisation, so that a ready meeting finds its candidate webhooks in one query. */
  ownerEmail: string;
  ownerOrgId: ObjectId;
  /** After a rotation: the former secret, still signing (besides the new one) until expiresAt. */
  previousSecret: { secret: string; expiresAt: Date } | null;
  /** Set when deliveries stop: the receiver answered 410, or every delivery failed for 5 days. */
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Start of the current run of failed attempts; null after a success. */
  failingSince: Date | null;
  /** What it is sent (webhooks made through GraphQL may choose); absent: content ready alone. */
  events?: WebhookEventType[];
}

/**
 * What a webhook may be sent: content ready (the public API's one event, its body the bare
 * Meeting), and, opted in, the changes after it (Standard Webhooks `{type, timestamp, data}`).
 */
export type WebhookEventType = 'content_ready' | ChangeEventType;
export type ChangeEventType = 'meeting.updated' | 'meeting.deleted';

/** Named monotonic counters (recording ids). */
export interface CounterDoc {
  _id: string;
  value: number;
  /**
   * The change log's counter and its settled position: the time (ms) of the position, strictly
   * increasing with it (domain/change-log.ts).
   */
  atMs?: number;
}

/** The counter recording ids are allocated from, kept ahead of every explicit id. */
export const RECORDING_ID_COUNTER = 'recordingId';

/** The counter change log positions are allocated from. */
export const CHANGE_SEQ_COUNTER = 'changeSeq';

/**
 * The change log's trimmed start (`_id` in `counters`): positions below `value` were removed by
 * retention, so a cursor before it must resync.
 */
export const CHANGE_LOG_START = 'changeLogStart';

/** A position up to which the change log is known to have no gap (domain/change-log.ts). */
export const CHANGE_LOG_SETTLED = 'changeLogSettled';

export type OutboxKind =
  | 'webhook_event'
  | 'change_event'
  | 'transcript_delivery'
  | 'summary_delivery'
  | 'download_delivery';
/**
 * pending: due at nextAttemptAt (or leased); delivered: a 2xx came back; failed: retries exhausted,
 * 410, or the webhook disabled (can be redelivered); cancelled: nothing may be sent any more (the
 * webhook was deleted, or its owner may no longer see the meeting).
 */
export type OutboxStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/**
 * One message to push to a URL: a webhook event or an asynchronous delivery of a transcript or
 * summary. The delivery worker claims pending messages whose `nextAttemptAt` has come.
 */
export interface OutboxDoc {
  _id: ObjectId;
  /** Standard Webhooks `webhook-id`: the same on every attempt. */
  messageId: string;
  kind: OutboxKind;
  recordingId: number;
  /** For webhook events: the webhook; (webhookId, recordingId) is unique so an event exists once. */
  webhookId: ObjectId | null;
  /** For download deliveries: the download whose RecordingDownload is sent. */
  downloadId?: string;
  /** For change events: the change (its position in the change log is unique per webhook). */
  change?: OutboxChange;
  /** Who asked for it (the webhook owner, or the caller of a delivery). */
  requestedBy: ObjectId;
  destinationUrl: string;
  status: OutboxStatus;
  /** Attempts made since the event was queued or last redelivered (the retry schedule counts these). */
  attempts: number;
  /** When the next attempt is due; while leased, when the lease runs out. */
  nextAttemptAt: Date;
  createdAt: Date;
  /** The exact JSON sent, serialised once (at the first attempt) and signed as is on every attempt. */
  body: string | null;
  /** The claim of the worker delivering it; outcome updates filter on it, so a lapsed lease records nothing. */
  leaseToken: string | null;
  leaseExpiresAt: Date | null;
  /** The `deliveryAttempts` entry of the last attempt recorded: tells a worker which of its outcomes were. */
  lastAttemptId: ObjectId | null;
  lastAttemptAt: Date | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  /** When it was delivered, failed or cancelled. */
  finishedAt: Date | null;
}

/** The change a change event tells of (domain/change-events.ts). */
export interface OutboxChange {
  type: ChangeEventType;
  position: number;
  kinds: ChangeKind[];
  /** When it was logged: the event's timestamp. */
  at: Date;
  /** A meeting.deleted event's: deleted, or no longer shared with the webhook's owner. */
  reason?: 'deleted' | 'unshared';
}

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'gone';

/** One HTTP attempt of an outbox message, as logged by the worker that made it. */
export interface DeliveryAttemptDoc {
  _id: ObjectId;
  outboxId: ObjectId;
  messageId: string;
  webhookId: ObjectId | null;
  attemptedAt: Date;
  durationMs: number;
  /** The receiver's HTTP status; null when no response came (timeout, refused, guard). */
  responseStatus: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  /** False when the worker's lease had run out, so its outcome was not recorded. */
  recorded: boolean;
}

/** Requests counted in one fixed window for one credential and bucket (shared by every process). */
export interface RateLimitDoc {
  /** `${bucket}:${credentialId}:${windowStart}` */
  _id: string;
  count: number;
  /** End of the window; a TTL index removes the document after it. */
  expiresAt: Date;
}
