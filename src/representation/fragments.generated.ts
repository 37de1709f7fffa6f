// Generated from src/representation/fragments.graphql and the Pothos schema by graphql-codegen.
// Do not edit: run `npm run schema` to regenerate (a test fails when this file is stale).

/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> =
  | T
  | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
export type CalendarInviteesDomainsType = 'ONE_OR_MORE_EXTERNAL' | 'ONLY_INTERNAL';

export type DownloadFailureReason = 'GENERATION_FAILED' | 'GENERATION_TIMEOUT';

/** COMPLETED: the link works. EXPIRED: its link no longer works (a day passed, or the media was replaced): request a new download. PROCESSING and FAILED are the public API's, for media it must generate first; this service stores media ready to serve, so a download completes as it is made. */
export type DownloadStatus = 'COMPLETED' | 'EXPIRED' | 'FAILED' | 'PROCESSING';

export type SettingsAccessLevel = 'ACCOUNT_ADMIN' | 'NONE' | 'TEAM_ADMIN';

export type SharedWith = 'ALL_TEAMS' | 'MULTIPLE_TEAMS' | 'NO_TEAMS' | 'SINGLE_TEAM';

export type UserStatus = 'ACTIVE' | 'DEACTIVATED' | 'INVITED';

export type ViewAccessLevel = 'ALL_TEAMS' | 'MULTIPLE_TEAMS' | 'OWN_MEETINGS' | 'TEAM';

export type RestMeetingFragment = {
  title: string;
  meetingTitle: string | null;
  meetingType: string | null;
  recordingId: number;
  url: string;
  shareUrl: string;
  createdAt: string;
  scheduledStartTime: string;
  scheduledEndTime: string;
  recordingStartTime: string;
  recordingEndTime: string;
  calendarInviteesDomainsType: CalendarInviteesDomainsType;
  sharedWith: SharedWith;
  transcriptLanguage: string;
  meetingUrl: string | null;
  updatedAt: string;
  transcriptJson?: unknown;
  defaultSummaryJson?: unknown;
  actionItemsJson?: unknown;
  highlightsJson?: unknown;
  calendarInvitees: Array<{
    name: string | null;
    email: string | null;
    emailDomain: string | null;
    isExternal: boolean;
    matchedSpeakerDisplayName?: string | null;
  }>;
  recordedBy: { name: string | null; email: string; emailDomain: string; team: string | null };
  crmMatches?: {
    error: string | null;
    contacts: Array<{ name: string; email: string; recordUrl: string }>;
    companies: Array<{ name: string; recordUrl: string }>;
    deals: Array<{ name: string; amount: number; recordUrl: string }>;
  };
};

export type RestDownloadFragment = {
  id: string;
  recordingId: number;
  status: DownloadStatus;
  failureReason: DownloadFailureReason | null;
  video: RestDownloadFileFragment | null;
  audio: RestDownloadFileFragment | null;
};

export type RestDownloadFileFragment = {
  url: string;
  contentType: string;
  fileSizeBytes: number;
  expiresAt: string;
};

export type RestUserFragment = {
  name: string | null;
  email: string;
  createdAt: string;
  status: UserStatus;
  permissions: {
    settingsAccess: { level: SettingsAccessLevel; teams: Array<{ name: string }> };
    viewAccess: { level: ViewAccessLevel; teams: Array<{ name: string }> };
  } | null;
};
