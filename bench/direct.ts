/**
 * The *direct* baseline: what the four measured endpoints cost without GraphQL. A minimal
 * node:http handler that sends the same driver queries as the service (authentication, the rate
 * limit counter, the page, one query per kind of content for the whole page, the CRM connection
 * and records), through the same domain functions, and builds the same JSON by hand.
 *
 * It serves only what the benchmark asks: GET /external/v1/meetings (limit and include_* flags),
 * GET /external/v1/recordings/{id}/transcript, and POST /graphql with the benchmark's query.
 * The orchestrator checks one response per scenario against the service's before measuring.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ObjectId } from 'mongodb';
import { loadConfig } from '../src/config.js';
import type { Collections } from '../src/db/collections.js';
import type {
  ActionItemsDoc,
  HighlightsDoc,
  MeetingDoc,
  MeetingTypeDoc,
  SummaryDoc,
  TeamDoc,
  TranscriptDoc,
  UserDoc,
} from '../src/db/documents.js';
import { contentByRecording, contentFields, highlightText, playbackUrl } from '../src/domain/content.js';
import { CredentialCache } from '../src/domain/credential-cache.js';
import { type CrmMatches, crmConnectionOf, crmMatchesFor } from '../src/domain/crm.js';
import { emailDomain } from '../src/domain/email.js';
import { DomainError } from '../src/domain/errors.js';
import { findMeeting, listMeetings } from '../src/domain/meetings.js';
import { type Bucket, countRequest, type RateLimitPolicy } from '../src/domain/rate-limits.js';
import { sharedWithOf } from '../src/domain/sharing.js';
import { presentedCredential, type Viewer } from '../src/domain/viewer.js';
import { sendJson } from '../src/http/respond.js';
import type { Includes } from '../src/representation/meeting.js';

export const allIncludes: Includes = {
  include_transcript: true,
  include_summary: true,
  include_action_items: true,
  include_highlights: true,
  include_crm_matches: true,
};

/** Everything a page of meetings shows beyond the meeting documents, fetched once for the page. */
interface PageData {
  meetings: MeetingDoc[];
  users: Map<string, UserDoc>;
  teams: Map<string, TeamDoc>;
  /** The ids of every team of each meeting's organisation, by organisation id (for `shared_with`). */
  orgTeamIds: Map<string, ObjectId[]>;
  types: Map<string, MeetingTypeDoc>;
  transcripts: (TranscriptDoc | null)[];
  summaries: (SummaryDoc | null)[];
  actionItems: (ActionItemsDoc | null)[];
  highlights: (HighlightsDoc | null)[];
  crm: CrmMatches[];
}

const hex = (id: ObjectId) => id.toHexString();

async function byIds<T extends { _id: ObjectId }>(
  find: (ids: ObjectId[]) => Promise<T[]>,
  ids: (ObjectId | null)[],
): Promise<Map<string, T>> {
  const unique = new Map<string, ObjectId>();
  for (const id of ids) if (id) unique.set(hex(id), id);
  if (unique.size === 0) return new Map();
  const docs = await find([...unique.values()]);
  return new Map(docs.map((d) => [hex(d._id), d]));
}

/** Team ids by organisation, for the organisations of `meetings`: one query, as the service's loader. */
/** Every team of the page's organisations, in one query: by id (recorders' teams) and by organisation (sharedWith). */
async function orgTeams(
  collections: Collections,
  meetings: MeetingDoc[],
): Promise<{ teams: Map<string, TeamDoc>; orgTeamIds: Map<string, ObjectId[]> }> {
  const orgIds = new Map(meetings.map((m) => [hex(m.orgId), m.orgId]));
  const teams = orgIds.size
    ? await collections.teams.find({ orgId: { $in: [...orgIds.values()] } }).toArray()
    : [];
  const orgTeamIds = new Map([...orgIds.keys()].map((id) => [id, [] as ObjectId[]]));
  for (const t of teams) orgTeamIds.get(hex(t.orgId))?.push(t._id);
  return { teams: new Map(teams.map((t) => [hex(t._id), t])), orgTeamIds };
}

async function pageData(
  collections: Collections,
  viewer: Viewer,
  meetings: MeetingDoc[],
  include: Includes,
): Promise<PageData> {
  const ids = meetings.map((m) => m.recordingId);
  const none = <T>(): Promise<(T | null)[]> => Promise.resolve(ids.map(() => null));
  const [users, { teams, orgTeamIds }, types, transcripts, summaries, actionItems, highlights, crm] =
    await Promise.all([
      byIds(
        (list) => collections.users.find({ _id: { $in: list } }).toArray(),
        meetings.map((m) => m.recorderId),
      ),
      orgTeams(collections, meetings),
      byIds(
        (list) => collections.meetingTypes.find({ _id: { $in: list } }).toArray(),
        meetings.map((m) => m.meetingTypeId),
      ),
      include.include_transcript && ids.length
        ? contentByRecording(collections.transcripts, ids, contentFields)
        : none<TranscriptDoc>(),
      include.include_summary && ids.length
        ? contentByRecording(collections.summaries, ids, contentFields)
        : none<SummaryDoc>(),
      include.include_action_items && ids.length
        ? contentByRecording(collections.actionItems, ids, contentFields)
        : none<ActionItemsDoc>(),
      include.include_highlights && ids.length
        ? contentByRecording(collections.highlights, ids, contentFields)
        : none<HighlightsDoc>(),
      include.include_crm_matches && ids.length
        ? crmConnectionOf(collections, viewer.user).then((c) => crmMatchesFor(collections, c, meetings))
        : Promise.resolve([]),
    ]);
  return { meetings, users, teams, orgTeamIds, types, transcripts, summaries, actionItems, highlights, crm };
}

function matchedSpeaker(transcript: TranscriptDoc | null, email: string | null): string | null {
  if (!email) return null;
  return (
    transcript?.entries.find((e) => e.speaker.matchedCalendarInviteeEmail === email)?.speaker.displayName ??
    null
  );
}

// ---------------------------------------------------------------- REST shape (snake_case)

function restMeeting(data: PageData, i: number, include: Includes) {
  const m = data.meetings[i]!;
  const recorder = data.users.get(hex(m.recorderId));
  const transcript = data.transcripts[i] ?? null;
  const email = recorder?.email ?? '';
  const crm = data.crm[i];
  return {
    title: m.title,
    meeting_title: m.meetingTitle,
    meeting_type: m.meetingTypeId ? (data.types.get(hex(m.meetingTypeId))?.name ?? null) : null,
    recording_id: m.recordingId,
    url: m.url,
    share_url: m.shareUrl,
    created_at: m.createdAt.toISOString(),
    scheduled_start_time: m.scheduledStartTime.toISOString(),
    scheduled_end_time: m.scheduledEndTime.toISOString(),
    recording_start_time: m.recordingStartTime.toISOString(),
    recording_end_time: m.recordingEndTime.toISOString(),
    calendar_invitees_domains_type: m.domainsType,
    shared_with: sharedWithOf(m, data.orgTeamIds.get(hex(m.orgId)) ?? []),
    transcript_language: m.transcriptLanguage,
    calendar_invitees: m.calendarInvitees.map((invitee) => ({
      name: invitee.name,
      email: invitee.email,
      email_domain: invitee.emailDomain,
      is_external: invitee.isExternal,
      ...(include.include_transcript
        ? { matched_speaker_display_name: matchedSpeaker(transcript, invitee.email) }
        : {}),
    })),
    recorded_by: {
      name: recorder?.name ?? email,
      email,
      email_domain: emailDomain(email) ?? '',
      team: m.teamId ? (data.teams.get(hex(m.teamId))?.name ?? null) : null,
    },
    meeting_url: m.meetingUrl,
    ...(include.include_transcript
      ? {
          transcript:
            transcript?.entries.map((e) => ({
              speaker: {
                display_name: e.speaker.displayName,
                matched_calendar_invitee_email: e.speaker.matchedCalendarInviteeEmail,
              },
              text: e.text,
              timestamp: e.timestamp,
            })) ?? null,
        }
      : {}),
    ...(include.include_summary
      ? {
          default_summary: data.summaries[i]
            ? {
                template_name: data.summaries[i].templateName,
                markdown_formatted: data.summaries[i].markdownFormatted,
              }
            : null,
        }
      : {}),
    ...(include.include_action_items
      ? {
          action_items: (data.actionItems[i]?.items ?? []).map((a) => ({
            description: a.description,
            user_generated: a.userGenerated,
            completed: a.completed,
            recording_timestamp: a.recordingTimestamp,
            recording_playback_url: playbackUrl(m.url, a.recordingTimestamp),
            assignee: { name: a.assignee.name, email: a.assignee.email, team: a.assignee.team },
          })),
        }
      : {}),
    ...(include.include_highlights
      ? {
          highlights: (data.highlights[i]?.items ?? []).map((h) => ({
            type: h.type,
            summary: h.summary,
            start_time: h.startTime,
            end_time: h.endTime,
            ...(highlightText(h) !== null ? { text: h.text } : {}),
          })),
        }
      : {}),
    ...(include.include_crm_matches && crm
      ? {
          crm_matches: {
            contacts: crm.contacts.map((c) => ({ name: c.name, email: c.email, record_url: c.recordUrl })),
            companies: crm.companies.map((c) => ({ name: c.name, record_url: c.recordUrl })),
            deals: crm.deals.map((d) => ({ name: d.name, amount: d.amount, record_url: d.recordUrl })),
            error: crm.error,
          },
        }
      : {}),
  };
}

// ---------------------------------------------------------------- GraphQL shape (the bench query)

/** The benchmark's GraphQL query: the fields of REST /meetings with every include, as a client writes it. */
export const benchGraphQLQuery = /* GraphQL */ `query BenchMeetings($first: Int!) {
  meetings(first: $first) {
    edges {
      node {
        title meetingTitle meetingType recordingId url shareUrl createdAt scheduledStartTime scheduledEndTime
        recordingStartTime recordingEndTime calendarInviteesDomainsType sharedWith transcriptLanguage meetingUrl
        calendarInvitees { name email emailDomain isExternal matchedSpeakerDisplayName }
        recordedBy { name email emailDomain team }
        transcript { speaker { displayName matchedCalendarInviteeEmail } text timestamp }
        defaultSummary { templateName markdownFormatted }
        actionItems { description userGenerated completed recordingTimestamp recordingPlaybackUrl assignee { name email team } }
        highlights { type summary startTime endTime text }
        crmMatches { contacts { name email recordUrl } companies { name recordUrl } deals { name amount recordUrl } error }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

function graphqlMeeting(data: PageData, i: number) {
  const m = data.meetings[i]!;
  const recorder = data.users.get(hex(m.recorderId));
  const transcript = data.transcripts[i] ?? null;
  const summary = data.summaries[i];
  const crm = data.crm[i]!;
  return {
    title: m.title,
    meetingTitle: m.meetingTitle,
    meetingType: m.meetingTypeId ? (data.types.get(hex(m.meetingTypeId))?.name ?? null) : null,
    recordingId: m.recordingId,
    url: m.url,
    shareUrl: m.shareUrl,
    createdAt: m.createdAt.toISOString(),
    scheduledStartTime: m.scheduledStartTime.toISOString(),
    scheduledEndTime: m.scheduledEndTime.toISOString(),
    recordingStartTime: m.recordingStartTime.toISOString(),
    recordingEndTime: m.recordingEndTime.toISOString(),
    calendarInviteesDomainsType: m.domainsType.toUpperCase(),
    sharedWith: sharedWithOf(m, data.orgTeamIds.get(hex(m.orgId)) ?? []).toUpperCase(),
    transcriptLanguage: m.transcriptLanguage,
    meetingUrl: m.meetingUrl,
    calendarInvitees: m.calendarInvitees.map((invitee) => ({
      name: invitee.name,
      email: invitee.email,
      emailDomain: invitee.emailDomain,
      isExternal: invitee.isExternal,
      matchedSpeakerDisplayName: matchedSpeaker(transcript, invitee.email),
    })),
    recordedBy: {
      name: recorder?.name ?? null,
      email: recorder?.email ?? '',
      emailDomain: emailDomain(recorder?.email) ?? '',
      team: m.teamId ? (data.teams.get(hex(m.teamId))?.name ?? null) : null,
    },
    transcript:
      transcript?.entries.map((e) => ({
        speaker: {
          displayName: e.speaker.displayName,
          matchedCalendarInviteeEmail: e.speaker.matchedCalendarInviteeEmail,
        },
        text: e.text,
        timestamp: e.timestamp,
      })) ?? null,
    defaultSummary: summary
      ? { templateName: summary.templateName, markdownFormatted: summary.markdownFormatted }
      : null,
    actionItems: (data.actionItems[i]?.items ?? []).map((a) => ({
      description: a.description,
      userGenerated: a.userGenerated,
      completed: a.completed,
      recordingTimestamp: a.recordingTimestamp,
      recordingPlaybackUrl: playbackUrl(m.url, a.recordingTimestamp),
      assignee: { name: a.assignee.name, email: a.assignee.email, team: a.assignee.team },
    })),
    highlights: (data.highlights[i]?.items ?? []).map((h) => ({
      type: h.type,
      summary: h.summary,
      startTime: h.startTime,
      endTime: h.endTime,
      text: highlightText(h),
    })),
    crmMatches: {
      contacts: crm.contacts.map((c) => ({ name: c.name, email: c.email, recordUrl: c.recordUrl })),
      companies: crm.companies.map((c) => ({ name: c.name, recordUrl: c.recordUrl })),
      deals: crm.deals.map((d) => ({ name: d.name, amount: d.amount, recordUrl: d.recordUrl })),
      error: crm.error,
    },
  };
}

// ---------------------------------------------------------------- the handler

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const flag = (params: URLSearchParams, name: string) => params.get(name) === 'true';

export function directHandler(collections: Collections, policy: RateLimitPolicy) {
  // Keys recognised through the service's own cache: the comparison is of what follows.
  const config = loadConfig(process.env);
  const credentials = new CredentialCache(
    collections,
    {},
    { ttlMs: config.CREDENTIAL_CACHE_MS, organisationTtlMs: config.DIRECTORY_CACHE_MS },
  );
  async function viewerOf(req: IncomingMessage): Promise<Viewer> {
    const presented = presentedCredential({
      get: (name) => {
        const value = req.headers[name];
        return typeof value === 'string' ? value : null;
      },
    });
    if (!presented) throw new HttpError(401, 'Send an API key.');
    const caller = await credentials.recognise(presented);
    if (!('viewer' in caller)) throw new HttpError(401, 'Send an API key.');
    return caller.viewer;
  }

  async function limited(viewer: Viewer, bucket: Bucket): Promise<Record<string, string>> {
    const state = await countRequest(collections, policy, viewer.credentialId, bucket);
    const headers = {
      'ratelimit-limit': String(state.limit),
      'ratelimit-remaining': String(state.remaining),
      'ratelimit-reset': String(state.resetSeconds),
    };
    if (!state.allowed) throw new HttpError(429, 'Too many requests.');
    return headers;
  }

  async function page(viewer: Viewer, first: number, include: Includes) {
    const found = await listMeetings(collections, viewer, {}, { first, after: null });
    const data = await pageData(collections, viewer, found.items, include);
    return { found, data };
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://direct');
      if (req.method === 'GET' && url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
      if (req.method === 'GET' && url.pathname === '/external/v1/meetings') {
        const q = url.searchParams;
        const include = Object.fromEntries(
          Object.keys(allIncludes).map((name) => [name, flag(q, name)]),
        ) as unknown as Includes;
        const limit = Number(q.get('limit') ?? 10);
        const viewer = await viewerOf(req);
        const headers = await limited(
          viewer,
          include.include_transcript || include.include_summary ? 'heavy' : 'general',
        );
        const { found, data } = await page(viewer, limit, include);
        return sendJson(
          res,
          200,
          {
            limit,
            next_cursor: found.hasNextPage ? (found.cursors.at(-1) ?? null) : null,
            items: data.meetings.map((_, i) => restMeeting(data, i, include)),
          },
          headers,
        );
      }
      const transcriptPath = /^\/external\/v1\/recordings\/(\d+)\/transcript$/.exec(url.pathname);
      if (req.method === 'GET' && transcriptPath) {
        const recordingId = Number(transcriptPath[1]);
        const viewer = await viewerOf(req);
        const headers = await limited(viewer, 'heavy');
        const meeting = await findMeeting(collections, viewer, recordingId);
        if (!meeting) return sendJson(res, 404, { error: `No recording with id ${recordingId}.` }, headers);
        const [transcript] = await contentByRecording(collections.transcripts, [recordingId], contentFields);
        return sendJson(
          res,
          200,
          {
            transcript: (transcript?.entries ?? []).map((e) => ({
              speaker: {
                display_name: e.speaker.displayName,
                matched_calendar_invitee_email: e.speaker.matchedCalendarInviteeEmail,
              },
              text: e.text,
              timestamp: e.timestamp,
            })),
          },
          headers,
        );
      }
      if (req.method === 'POST' && url.pathname === '/graphql') {
        const body = JSON.parse(await readBody(req)) as { variables?: { first?: number } };
        const viewer = await viewerOf(req);
        const headers = await limited(viewer, 'heavy');
        const { found, data } = await page(viewer, body.variables?.first ?? 10, allIncludes);
        return sendJson(
          res,
          200,
          {
            data: {
              meetings: {
                edges: data.meetings.map((_, i) => ({ node: graphqlMeeting(data, i) })),
                pageInfo: { hasNextPage: found.hasNextPage, endCursor: found.cursors.at(-1) ?? null },
              },
            },
          },
          headers,
        );
      }
      return sendJson(res, 404, { error: 'not served by the direct baseline' });
    } catch (error) {
      if (error instanceof HttpError) return sendJson(res, error.status, { error: error.message });
      if (error instanceof DomainError) return sendJson(res, error.status, { error: error.message });
      sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
    }
  };
}
