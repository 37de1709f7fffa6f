// Generated from rest-compat/operations/*.graphql and the Pothos schema by graphql-codegen.
// Do not edit: run `npm run schema` to regenerate (a test fails when this file is stale).

import type {
  CalendarInviteesDomainsType,
  RestDownloadFragment,
  RestMeetingFragment,
  RestUserFragment,
  SettingsAccessLevel,
  UserStatus,
} from '../src/representation/fragments.generated.js';

/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };

export type CreateWebhookInput = {
  /** http(s); its host must resolve to public addresses only. */
  destinationUrl: string;
  /** What it is sent: content ready alone by default (as webhooks made through REST); add MEETING_UPDATED and MEETING_DELETED to keep a mirror in sync. Each is sent for the meetings triggeredFor covers. */
  events?: Array<WebhookEvent> | null | undefined;
  includeActionItems?: boolean | null | undefined;
  includeCrmMatches?: boolean | null | undefined;
  includeSummary?: boolean | null | undefined;
  includeTranscript?: boolean | null | undefined;
  triggeredFor: Array<TriggeredFor>;
};

/** Different fields combine with AND; the values of one list with OR. */
export type MeetingFilter = {
  /** Meetings any of these people attended: a calendar invitee, or a transcript speaker matched to one. Not in the REST API. */
  attendees?: Array<string> | null | undefined;
  /** The domain of the company the meeting is associated with. */
  companyDomains?: Array<string> | null | undefined;
  createdAfter?: string | null | undefined;
  createdBefore?: string | null | undefined;
  /** Omit for all. */
  domainsType?: CalendarInviteesDomainsType | null | undefined;
  /** A meeting type's name, matched exactly, whichever organisation the type is in (a meeting shared from another organisation has that organisation's types); an unknown name matches nothing. */
  meetingType?: string | null | undefined;
  /** Recorders. Meetings recorded outside your organisation are listed only when their recorder is named here. */
  recordedBy?: Array<string> | null | undefined;
  /** Meetings in which every word and "quoted phrase" occurs, in the title, summary, action items or transcript; -word or -"phrase" excludes. Words match by stem ("priced" finds "pricing"), case and accents aside; common words such as "the" are ignored. Each edge tells where it matched (matches). Not in the REST API. */
  search?: string | null | undefined;
  /** Names of the recorder's team. */
  teams?: Array<string> | null | undefined;
  /** Meetings changed after this instant, least recently changed first (the order of the change feed; orderBy is then ignored, and RELEVANCE refused). To poll, ask again with the updatedAt of the last meeting received: a change logged late still comes after it. Removals show only in meetingChanges. */
  updatedAfter?: string | null | undefined;
};

export type MeetingTypeStatus = 'ACTIVE' | 'INACTIVE';

export type TriggeredFor =
  /** Your private and individually shared recordings. */
  | 'MY_RECORDINGS'
  /** Team plans: your recordings shared with at least one team. */
  | 'MY_SHARED_WITH_TEAM_RECORDINGS'
  /** Recordings shared with you by users outside your organisation. */
  | 'SHARED_EXTERNAL_RECORDINGS'
  /** Team plans: recordings of others in your organisation that you may see. */
  | 'SHARED_TEAM_RECORDINGS';

export type UserFilter = {
  /** Not with status INVITED. */
  settingsAccess?: SettingsAccessLevel | null | undefined;
  status?: UserStatus | null | undefined;
  /** A team name. */
  team?: string | null | undefined;
};

export type WebhookEvent =
  /** A meeting whose content became ready (stored with its summary), once; its body is the bare Meeting, as the public API sends it. */
  | 'CONTENT_READY'
  /** A meeting you could see was deleted, or is no longer shared with you. Body: {type, timestamp, data: {recording_id, reason: "deleted" | "unshared"}}. */
  | 'MEETING_DELETED'
  /** A meeting you may see changed (content or sharing), after it was created. Body: Standard Webhooks' {type, timestamp, data: {recording_id, changes, meeting}}. */
  | 'MEETING_UPDATED';

export type RestCreateWebhookMutationVariables = Exact<{
  input: CreateWebhookInput;
}>;

export type RestCreateWebhookMutation = {
  createWebhook: {
    secret: string;
    webhook: {
      id: string;
      url: string;
      createdAt: string;
      includeTranscript: boolean;
      includeCrmMatches: boolean;
      includeSummary: boolean;
      includeActionItems: boolean;
      triggeredFor: Array<TriggeredFor>;
    };
  };
};

export type RestDeleteWebhookMutationVariables = Exact<{
  id: string | number;
}>;

export type RestDeleteWebhookMutation = { deleteWebhook: { deletedId: string } };

export type RestDeliverSummaryMutationVariables = Exact<{
  recordingId: number;
  destinationUrl: string;
}>;

export type RestDeliverSummaryMutation = { deliverSummary: { destinationUrl: string } };

export type RestDeliverTranscriptMutationVariables = Exact<{
  recordingId: number;
  destinationUrl: string;
}>;

export type RestDeliverTranscriptMutation = { deliverTranscript: { destinationUrl: string } };

export type RestGetDownloadQueryVariables = Exact<{
  id: string;
  recordingId: number;
}>;

export type RestGetDownloadQuery = { download: RestDownloadFragment | null };

export type RestListMeetingTypesQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
}>;

export type RestListMeetingTypesQuery = {
  meetingTypes: {
    edges: Array<{ node: { name: string; status: MeetingTypeStatus; createdAt: string } }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};

export type RestListMeetingsQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
  filter?: MeetingFilter | null | undefined;
  includeTranscript: boolean;
  includeSummary: boolean;
  includeActionItems: boolean;
  includeHighlights: boolean;
  includeCrmMatches: boolean;
}>;

export type RestListMeetingsQuery = {
  meetings: {
    edges: Array<{ node: RestMeetingFragment }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};

export type RestListTeamMembersQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
  team?: string | null | undefined;
}>;

export type RestListTeamMembersQuery = {
  teamMembers: {
    edges: Array<{ node: { name: string | null; email: string; createdAt: string } }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};

export type RestListTeamsQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
}>;

export type RestListTeamsQuery = {
  teams: {
    edges: Array<{ node: { name: string; createdAt: string } }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};

export type RestListUsersQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
  filter?: UserFilter | null | undefined;
}>;

export type RestListUsersQuery = {
  users: {
    edges: Array<{ node: RestUserFragment }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};

export type RestRecordingSummaryQueryVariables = Exact<{
  recordingId: number;
}>;

export type RestRecordingSummaryQuery = { meeting: { defaultSummaryJson: unknown } | null };

export type RestRecordingTranscriptQueryVariables = Exact<{
  recordingId: number;
}>;

export type RestRecordingTranscriptQuery = { meeting: { transcriptJson: unknown } | null };

export type RestRequestDownloadMutationVariables = Exact<{
  recordingId: number;
  destinationUrl?: string | null | undefined;
}>;

export type RestRequestDownloadMutation = { requestDownload: RestDownloadFragment };
