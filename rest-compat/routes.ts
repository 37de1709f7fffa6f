/**
 * The route table of /external/v1: for each endpoint its parameters, the GraphQL operation it
 * runs (rest-compat/operations/*.graphql) and the translation of the result into the REST shape
 * of docs/api/rest.md and docs/api/compatibility.md. Nothing here reads the database.
 */
import * as z from 'zod';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../src/domain/email.js';
import { restDownload } from '../src/representation/download.js';
import { lower, upper } from '../src/representation/enums.js';
import { includeFlags, includeVariables, restMeeting } from '../src/representation/meeting.js';
import * as S from '../src/representation/schemas.js';
import { restUser } from '../src/representation/user.js';
import * as E from './examples.js';
import type {
  MeetingFilter,
  RestCreateWebhookMutation,
  RestCreateWebhookMutationVariables,
  RestDeleteWebhookMutationVariables,
  RestDeliverSummaryMutation,
  RestDeliverSummaryMutationVariables,
  RestDeliverTranscriptMutation,
  RestDeliverTranscriptMutationVariables,
  RestGetDownloadQuery,
  RestGetDownloadQueryVariables,
  RestListMeetingsQuery,
  RestListMeetingsQueryVariables,
  RestListMeetingTypesQuery,
  RestListMeetingTypesQueryVariables,
  RestListTeamMembersQuery,
  RestListTeamMembersQueryVariables,
  RestListTeamsQuery,
  RestListTeamsQueryVariables,
  RestListUsersQuery,
  RestListUsersQueryVariables,
  RestRecordingSummaryQuery,
  RestRecordingSummaryQueryVariables,
  RestRecordingTranscriptQuery,
  RestRecordingTranscriptQueryVariables,
  RestRequestDownloadMutation,
  RestRequestDownloadMutationVariables,
  UserFilter,
} from './operations.generated.js';
import { defineRoute, type Examples, type Route } from './route.js';

// ---------------------------------------------------------------- shared parameters and shapes

const pageQuery = {
  cursor: z.string().optional().meta({ description: 'The next_cursor of the previous page.' }),
  limit: z
    .int()
    .min(1)
    .max(100)
    .default(10)
    .meta({ description: 'Page size, 1 to 100 (an extension: the public service always uses 10).' }),
};

interface Connection<N> {
  edges: { node: N }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** The paginated envelope: the page size applied, the next cursor (null on the last page), the items. */
function envelope<N, T>(connection: Connection<N>, limit: number, item: (node: N) => T) {
  return {
    limit,
    next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
    items: connection.edges.map((e) => item(e.node)),
  };
}

/** Examples of the paging parameters of every list. */
const pageExamples = (cursor: string) => ({ cursor, limit: 10 });

/** The 400 answers every list may give for its paging parameters. */
const badPage = { limit: E.badLimit, cursor: E.badCursor };

const page = (query: { cursor?: string | undefined; limit: number }) => ({
  first: query.limit,
  after: query.cursor ?? null,
});

const recordingPath = z.object({
  recording_id: z.int32().meta({ description: 'The recording id (an integer).' }),
});

const destinationQuery = z.object({
  destination_url: z.string().optional().meta({
    format: 'uri',
    description: 'When given, the content is POSTed to this URL and the answer is {destination_url}.',
  }),
});

// ---------------------------------------------------------------- translations

/** A recording that does not exist and one the caller may not see look the same. */
const notFound = (recordingId: number) => ({
  status: 404,
  body: { error: `No recording with id ${recordingId}.` },
});

// ---------------------------------------------------------------- the table

const listMeetings = defineRoute({
  operationId: 'listMeetings',
  method: 'GET',
  path: '/meetings',
  summary: 'List meetings',
  tag: 'Meetings',
  description:
    'Meetings you may see, newest first by recording start. Different parameters combine with AND, ' +
    'the values of one array parameter with OR. Meetings recorded outside your organisation are listed ' +
    'only when recorded_by[] names their recorder.',
  query: z.object({
    ...pageQuery,
    calendar_invitees_domains: z
      .array(z.string())
      .optional()
      .meta({ description: 'Company domains, exact match (case-insensitive); any of them.' }),
    calendar_invitees_domains_type: z
      .enum(['all', 'only_internal', 'one_or_more_external'])
      .default('all')
      .meta({ description: 'Whether the invitee list includes external email domains.' }),
    created_after: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'Only meetings created after this instant (ISO 8601 with Z or an offset).' }),
    created_before: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'Only meetings created before this instant (ISO 8601 with Z or an offset).' }),
    ...includeFlags,
    updated_after: z.iso.datetime({ offset: true }).optional().meta({
      description:
        'An extension of this service: only meetings changed (created, content, sharing) after this instant, least recently changed first instead of newest first. To poll, ask again with the updated_at of the last meeting received: a change logged late still comes after it. Deletions show in the GraphQL change feed (meetingChanges).',
    }),
    meeting_type: z.string().optional().meta({
      description: 'A meeting type name (see /meeting_types); an unknown name gives an empty list.',
    }),
    recorded_by: z
      .array(z.email({ pattern: EMAIL_PATTERN }).max(EMAIL_MAX_LENGTH))
      .optional()
      .meta({ description: 'Emails of recorders; any of them.' }),
    teams: z.array(z.string()).optional().meta({ description: "Names of the recorder's team; any of them." }),
  }),
  responses: { 200: { description: 'A page of meetings.', schema: S.listOf('MeetingList', S.Meeting) } },
  examples: {
    parameters: {
      ...pageExamples(E.meetingsCursor),
      calendar_invitees_domains: ['initech.test'],
      calendar_invitees_domains_type: 'one_or_more_external',
      created_after: '2026-09-01T00:00:00Z',
      created_before: '2026-10-01T00:00:00+02:00',
      include_action_items: true,
      include_crm_matches: true,
      include_highlights: true,
      include_summary: true,
      include_transcript: true,
      meeting_type: 'Discovery Call',
      recorded_by: ['sam.rivera@acme.test'],
      teams: ['Sales'],
      updated_after: '2026-09-18T00:00:00Z',
    },
    responses: {
      200: E.meetingPages,
      400: {
        ...badPage,
        date: E.error(
          'Date not ISO 8601',
          'Invalid query parameter "created_after": must be an ISO 8601 date-time with Z or an offset, e.g. 2026-01-31T09:00:00Z.',
        ),
        email: E.error('Not an email', 'Invalid query parameter "recorded_by[]": must be an email address.'),
        oauth: E.error(
          'Connected app asking for summaries',
          'OAuth users are not allowed to include summary.',
          'Connected apps (Authorization: Bearer) may not set include_summary or include_transcript.',
        ),
      },
      429: E.heavyRateLimited,
      503: E.heavyUnavailable,
    },
  },
  operations: ['ListMeetings'],
  graphql: ({ query: q }) => {
    const filter: MeetingFilter = {};
    if (q.recorded_by) filter.recordedBy = q.recorded_by;
    if (q.teams) filter.teams = q.teams;
    if (q.calendar_invitees_domains) filter.companyDomains = q.calendar_invitees_domains;
    if (q.calendar_invitees_domains_type !== 'all')
      filter.domainsType = upper(q.calendar_invitees_domains_type);
    if (q.created_after) filter.createdAfter = q.created_after;
    if (q.created_before) filter.createdBefore = q.created_before;
    if (q.updated_after) filter.updatedAfter = q.updated_after;
    if (q.meeting_type !== undefined) filter.meetingType = q.meeting_type;
    return {
      operation: 'ListMeetings',
      variables: { ...page(q), filter, ...includeVariables(q) } satisfies RestListMeetingsQueryVariables,
    };
  },
  respond: (data: RestListMeetingsQuery, { query: q }) => ({
    status: 200,
    body: envelope(data.meetings, q.limit, (m) => restMeeting(m, q)),
  }),
});

const listMeetingTypes = defineRoute({
  operationId: 'listMeetingTypes',
  method: 'GET',
  path: '/meeting_types',
  summary: 'List meeting types',
  tag: 'Meetings',
  description: "Your organisation's meeting types, active and inactive, by name: the values of meeting_type.",
  query: z.object(pageQuery),
  responses: {
    200: { description: 'A page of meeting types.', schema: S.listOf('MeetingTypeList', S.MeetingType) },
  },
  examples: {
    parameters: pageExamples(E.meetingTypesCursor),
    responses: { 200: E.meetingTypePage, 400: badPage },
  },
  operations: ['ListMeetingTypes'],
  graphql: ({ query: q }) => ({
    operation: 'ListMeetingTypes',
    variables: page(q) satisfies RestListMeetingTypesQueryVariables,
  }),
  respond: (data: RestListMeetingTypesQuery, { query: q }) => ({
    status: 200,
    body: envelope(data.meetingTypes, q.limit, (t) => ({
      name: t.name,
      status: lower(t.status),
      created_at: t.createdAt,
    })),
  }),
});

const listTeams = defineRoute({
  operationId: 'listTeams',
  method: 'GET',
  path: '/teams',
  summary: 'List teams',
  tag: 'Teams',
  description: "Your organisation's teams, by name.",
  query: z.object(pageQuery),
  responses: { 200: { description: 'A page of teams.', schema: S.listOf('TeamList', S.Team) } },
  examples: {
    parameters: pageExamples(E.teamsCursor),
    responses: { 200: E.teamPage, 400: badPage },
  },
  operations: ['ListTeams'],
  graphql: ({ query: q }) => ({
    operation: 'ListTeams',
    variables: page(q) satisfies RestListTeamsQueryVariables,
  }),
  respond: (data: RestListTeamsQuery, { query: q }) => ({
    status: 200,
    body: envelope(data.teams, q.limit, (t) => ({ name: t.name, created_at: t.createdAt })),
  }),
});

const listTeamMembers = defineRoute({
  operationId: 'listTeamMembers',
  method: 'GET',
  path: '/team_members',
  summary: 'List team members',
  tag: 'Teams',
  description: "Active members of your organisation's teams, by email.",
  query: z.object({
    ...pageQuery,
    team: z.string().optional().meta({ description: 'A team name: only its members.' }),
  }),
  responses: {
    200: { description: 'A page of team members.', schema: S.listOf('TeamMemberList', S.TeamMember) },
  },
  examples: {
    parameters: { ...pageExamples(E.teamMembersCursor), team: 'Sales' },
    responses: { 200: E.teamMemberPage, 400: badPage },
  },
  operations: ['ListTeamMembers'],
  graphql: ({ query: q }) => ({
    operation: 'ListTeamMembers',
    variables: { ...page(q), team: q.team ?? null } satisfies RestListTeamMembersQueryVariables,
  }),
  respond: (data: RestListTeamMembersQuery, { query: q }) => ({
    status: 200,
    body: envelope(data.teamMembers, q.limit, (u) => ({
      // The public shape has a name for every member; one who never gave one shows the email.
      name: u.name ?? u.email,
      email: u.email,
      created_at: u.createdAt,
    })),
  }),
});

const listUsers = defineRoute({
  operationId: 'listUsers',
  method: 'GET',
  path: '/users',
  summary: 'List users and their permissions',
  tag: 'Users',
  description:
    'Every user of the account: active, then deactivated, then invited. Account admins only (403 otherwise).',
  query: z.object({
    ...pageQuery,
    team: z.string().optional().meta({ description: 'A team name: only its users.' }),
    status: z.enum(S.userStatuses).optional().meta({ description: 'Only users with this status.' }),
    settings_access: z
      .enum(S.settingsAccessLevels)
      .optional()
      .meta({ description: 'Only users with this settings access level; not with status=invited.' }),
  }),
  responses: { 200: { description: 'A page of users.', schema: S.listOf('UserList', S.User) } },
  errors: { 403: 'The key does not belong to an account admin.' },
  examples: {
    parameters: {
      ...pageExamples(E.usersCursor),
      team: 'Engineering',
      status: 'active',
      settings_access: 'team_admin',
    },
    responses: {
      200: E.userPages,
      400: {
        ...badPage,
        invited: E.error(
          'status=invited with settings_access',
          'Invited users have no permissions yet: do not combine status=invited with settings_access.',
        ),
        status: E.error(
          'Unknown status',
          'Invalid query parameter "status": must be one of active, deactivated, invited.',
        ),
      },
      403: {
        forbidden: E.error('Not an account admin', 'You are not allowed to do this.'),
      },
    },
  },
  operations: ['ListUsers'],
  graphql: ({ query: q }) => {
    const filter: UserFilter = {};
    if (q.team !== undefined) filter.team = q.team;
    if (q.status) filter.status = upper(q.status);
    if (q.settings_access) filter.settingsAccess = upper(q.settings_access);
    return {
      operation: 'ListUsers',
      variables: { ...page(q), filter } satisfies RestListUsersQueryVariables,
    };
  },
  respond: (data: RestListUsersQuery, { query: q }) => ({
    status: 200,
    body: envelope(data.users, q.limit, restUser),
  }),
});

/** The variables of the transcript's and the summary's documents, which are alike. */
type ReadContentVariables = RestRecordingTranscriptQueryVariables & RestRecordingSummaryQueryVariables;
type DeliverContentVariables = RestDeliverTranscriptMutationVariables & RestDeliverSummaryMutationVariables;

/** What sets GET /recordings/{recording_id}/transcript and /summary apart. */
interface ContentRouteSpec<R extends { meeting: object | null }, D extends object> {
  /** The content, as the path, the summary and the descriptions name it. */
  kind: 'transcript' | 'summary';
  operationId: string;
  /** The document that reads the content and the one that queues its delivery to destination_url. */
  operations: { read: string; deliver: string };
  /** The 200 answer (a schema of schemas.ts) and its examples. */
  schema: z.ZodType;
  answers: Examples;
  callback: {
    name: string;
    /** What is POSTed, in the callback's description: "the same transcript as the synchronous answer". */
    delivers: string;
    schema: z.ZodType;
    examples: Examples;
  };
  /** The answer's body from the recording the read document found. */
  body(meeting: NonNullable<R['meeting']>): unknown;
  /** The destination_url the deliver document answered with. */
  destination(data: D): string;
}

/**
 * A route answering one kind of content of a recording, or, with destination_url, POSTing it
 * there (the deliver document) and answering {destination_url} at once.
 */
function contentRoute<R extends { meeting: object | null }, D extends object>(
  spec: ContentRouteSpec<R, D>,
): Route {
  const { kind, operations } = spec;
  return defineRoute({
    operationId: spec.operationId,
    method: 'GET',
    path: `/recordings/{recording_id}/${kind}`,
    summary: `Get the ${kind} of a recording`,
    tag: 'Recordings',
    description: `With destination_url the ${kind} is POSTed there (with recording_id) and the answer comes at once.`,
    pathParams: recordingPath,
    query: destinationQuery,
    responses: {
      200: { description: `The ${kind}, or where it will be delivered.`, schema: spec.schema },
    },
    errors: { 404: 'No such recording, or one you may not see.' },
    examples: {
      parameters: { recording_id: E.recordingId, destination_url: E.deliveryUrl },
      responses: {
        200: spec.answers,
        400: { recording_id: E.badRecordingId, destination_url: E.badDestination },
        404: E.notFoundRecording,
        429: E.heavyRateLimited,
        503: E.heavyUnavailable,
      },
    },
    callback: {
      name: spec.callback.name,
      url: '{$request.query.destination_url}',
      summary: `The ${kind}, POSTed to destination_url`,
      description:
        `Sent when the request gave destination_url: ${spec.callback.delivers}, with recording_id. ` +
        'It is unsigned (no webhook secret is involved), carries webhook-id and webhook-timestamp, and ' +
        'is retried like webhook events until the receiver answers 2xx.',
      schema: spec.callback.schema,
      examples: spec.callback.examples,
    },
    operations: [operations.read, operations.deliver],
    graphql: ({ path, query }) =>
      query.destination_url === undefined
        ? {
            operation: operations.read,
            variables: { recordingId: path.recording_id } satisfies ReadContentVariables,
          }
        : {
            operation: operations.deliver,
            variables: {
              recordingId: path.recording_id,
              destinationUrl: query.destination_url,
            } satisfies DeliverContentVariables,
          },
    respond: (data: R | D, { path }) => {
      if (!('meeting' in data)) return { status: 200, body: { destination_url: spec.destination(data) } };
      if (!data.meeting) return notFound(path.recording_id);
      return { status: 200, body: spec.body(data.meeting) };
    },
  });
}

const getRecordingTranscript = contentRoute<RestRecordingTranscriptQuery, RestDeliverTranscriptMutation>({
  kind: 'transcript',
  operationId: 'getRecordingTranscript',
  operations: { read: 'RecordingTranscript', deliver: 'DeliverTranscript' },
  schema: S.TranscriptResult,
  answers: E.transcriptAnswers,
  callback: {
    name: 'transcriptDelivery',
    delivers: 'the same transcript as the synchronous answer',
    schema: S.TranscriptDelivery,
    examples: E.transcriptDelivery,
  },
  body: (meeting) => ({ transcript: meeting.transcriptJson ?? [] }),
  destination: (data) => data.deliverTranscript.destinationUrl,
});

const getRecordingSummary = contentRoute<RestRecordingSummaryQuery, RestDeliverSummaryMutation>({
  kind: 'summary',
  operationId: 'getRecordingSummary',
  operations: { read: 'RecordingSummary', deliver: 'DeliverSummary' },
  schema: S.SummaryResult,
  answers: E.summaryAnswers,
  callback: {
    name: 'summaryDelivery',
    delivers: 'the same summary as the synchronous answer (null when the recording has none)',
    schema: S.SummaryDelivery,
    examples: E.summaryDelivery,
  },
  body: (meeting) => ({ summary: meeting.defaultSummaryJson ?? null }),
  destination: (data) => data.deliverSummary.destinationUrl,
});

const requestDownload = defineRoute({
  operationId: 'requestRecordingDownload',
  method: 'POST',
  path: '/recordings/{recording_id}/download',
  summary: "Request a download of a recording's media",
  tag: 'Recordings',
  description:
    'Makes a download of the video (or, for an audio-only recording, the audio): a signed link that ' +
    'streams the file for about 24 hours. The download is private to the key or token that requested ' +
    'it. The body is optional. With destination_url the completed download is also POSTed there. ' +
    'Requests count in a rate-limit bucket of their own (30 per 60 s).',
  pathParams: recordingPath,
  body: z.strictObject({
    destination_url: z.string().optional().meta({
      format: 'uri',
      description: 'When given, the completed download is POSTed to this URL too.',
    }),
  }),
  bodyOptional: true,
  responses: { 202: { description: 'The download.', schema: S.RecordingDownload } },
  errors: {
    404: 'No such recording, or one you may not see.',
    422: 'The recording has no downloadable media.',
  },
  examples: {
    parameters: { recording_id: E.recordingId },
    body: {
      empty: { summary: 'No destination (what automation platforms send)', value: {} },
      destination: { summary: 'With a destination', value: { destination_url: E.deliveryUrl } },
    },
    responses: {
      202: E.downloadAnswers,
      400: { recording_id: E.badRecordingId, destination_url: E.badDestination },
      404: E.notFoundRecording,
      422: E.noMedia,
      429: E.downloadRateLimited,
    },
  },
  callback: {
    name: 'downloadDelivery',
    url: '{$request.body#/destination_url}',
    summary: 'The completed download, POSTed to destination_url',
    description:
      'Sent when the request gave destination_url: the same RecordingDownload as the answer. It is ' +
      'unsigned (no webhook secret is involved), carries webhook-id and webhook-timestamp, and is retried ' +
      'like webhook events until the receiver answers 2xx.',
    schema: S.RecordingDownload,
    examples: E.downloadDelivery,
  },
  operations: ['RequestDownload'],
  graphql: ({ path, body }) => ({
    operation: 'RequestDownload',
    variables: {
      recordingId: path.recording_id,
      destinationUrl: body.destination_url ?? null,
    } satisfies RestRequestDownloadMutationVariables,
  }),
  respond: (data: RestRequestDownloadMutation) => ({
    status: 202,
    body: restDownload(data.requestDownload),
  }),
});

const getDownload = defineRoute({
  operationId: 'getRecordingDownload',
  method: 'GET',
  path: '/recordings/{recording_id}/downloads/{download_id}',
  summary: 'Get a download of a recording',
  tag: 'Recordings',
  description:
    'A download made with this key or token: a new signed link is not made; once the link has expired ' +
    'the status is expired and a new download gives a new one. Counts in the general rate-limit bucket.',
  pathParams: recordingPath.extend({
    download_id: z.string().meta({ description: 'The download_id of the download.' }),
  }),
  responses: { 200: { description: 'The download.', schema: S.RecordingDownload } },
  errors: { 404: 'No such recording or download of yours.' },
  examples: {
    parameters: { recording_id: E.recordingId, download_id: E.downloadId },
    responses: {
      200: E.downloadAnswers,
      400: { recording_id: E.badRecordingId },
      404: E.notFoundDownload,
    },
  },
  operations: ['GetDownload'],
  graphql: ({ path }) => ({
    operation: 'GetDownload',
    variables: {
      id: path.download_id,
      recordingId: path.recording_id,
    } satisfies RestGetDownloadQueryVariables,
  }),
  respond: (data: RestGetDownloadQuery, { path }) =>
    data.download
      ? { status: 200, body: restDownload(data.download) }
      : {
          status: 404,
          body: { error: `No download with id ${path.download_id} of recording ${path.recording_id}.` },
        },
});

/** `shared_with_me_external_recordings` is accepted for `shared_external_recordings` (public docs example). */
const triggeredForInput = z.enum([...S.triggeredForValues, 'shared_with_me_external_recordings']);

const createWebhook = defineRoute({
  operationId: 'createWebhook',
  method: 'POST',
  path: '/webhooks',
  summary: 'Create a webhook',
  tag: 'Webhooks',
  description:
    'New meeting content is POSTed to destination_url for the recordings of the triggered_for categories. ' +
    'At least one include_* flag must be true. The signing secret is shown in this answer only.',
  body: z.strictObject({
    destination_url: z.string().meta({ format: 'uri', description: 'An absolute http(s) URL.' }),
    triggered_for: z.array(triggeredForInput).min(1).meta({
      description: 'shared_with_me_external_recordings is a synonym of shared_external_recordings.',
    }),
    include_action_items: z.boolean().default(false),
    include_crm_matches: z.boolean().default(false),
    include_summary: z.boolean().default(false),
    include_transcript: z.boolean().default(false),
  }),
  responses: { 201: { description: 'The webhook, with its secret.', schema: S.Webhook } },
  examples: {
    parameters: {},
    body: E.createWebhookBody,
    responses: {
      201: E.createdWebhook,
      400: {
        includes: E.error(
          'No include flag',
          'At least one of include_transcript, include_crm_matches, include_summary and include_action_items must be true.',
        ),
        triggered_for: E.error(
          'triggered_for empty',
          'Invalid body property "triggered_for": give at least 1 value.',
        ),
        missing: E.error('destination_url missing', 'Missing body property "destination_url".'),
        unknown: E.error(
          'Unknown property',
          'Unknown body property "url"; allowed: destination_url, triggered_for, include_action_items, include_crm_matches, include_summary, include_transcript.',
        ),
        refused: E.error(
          'destination_url refused',
          'destination_url is refused: 10.0.0.5 is a private address.',
          'Webhooks go to public http(s) addresses only.',
        ),
      },
    },
  },
  operations: ['CreateWebhook'],
  graphql: ({ body }) => ({
    operation: 'CreateWebhook',
    variables: {
      input: {
        destinationUrl: body.destination_url,
        triggeredFor: body.triggered_for.map((t) =>
          t === 'shared_with_me_external_recordings' ? 'SHARED_EXTERNAL_RECORDINGS' : upper(t),
        ),
        includeActionItems: body.include_action_items,
        includeCrmMatches: body.include_crm_matches,
        includeSummary: body.include_summary,
        includeTranscript: body.include_transcript,
      },
    } satisfies RestCreateWebhookMutationVariables,
  }),
  respond: (data: RestCreateWebhookMutation) => {
    const { secret, webhook: w } = data.createWebhook;
    return {
      status: 201,
      body: {
        id: w.id,
        url: w.url,
        secret,
        created_at: w.createdAt,
        include_transcript: w.includeTranscript,
        include_crm_matches: w.includeCrmMatches,
        include_summary: w.includeSummary,
        include_action_items: w.includeActionItems,
        triggered_for: w.triggeredFor.map(lower),
      },
    };
  },
});

const deleteWebhook = defineRoute({
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/webhooks/{id}',
  summary: 'Delete a webhook',
  description:
    'Deletes one of your webhooks: no event is sent to it any more and its queued deliveries are ' +
    'cancelled (an attempt already under way may still arrive). The webhook of another user is the ' +
    'same 404 as an unknown id.',
  tag: 'Webhooks',
  pathParams: z.object({ id: z.string().meta({ description: 'The webhook id.' }) }),
  responses: { 204: { description: 'Deleted.' } },
  errors: { 404: 'No such webhook of yours.' },
  examples: {
    parameters: { id: E.webhookId },
    responses: {
      400: {
        encoding: E.error('Bad percent-encoding', 'Invalid path parameter "id": bad percent-encoding.'),
      },
      404: {
        missing: E.error(
          'No such webhook',
          `No webhook with id ${E.webhookId}.`,
          'Also the answer for a webhook of someone else.',
        ),
      },
    },
  },
  operations: ['DeleteWebhook'],
  graphql: ({ path }) => ({
    operation: 'DeleteWebhook',
    variables: { id: path.id } satisfies RestDeleteWebhookMutationVariables,
  }),
  respond: () => ({ status: 204 }),
});

export const routes: readonly Route[] = [
  listMeetings,
  listMeetingTypes,
  listTeams,
  listTeamMembers,
  listUsers,
  getRecordingTranscript,
  getRecordingSummary,
  requestDownload,
  getDownload,
  createWebhook,
  deleteWebhook,
];
