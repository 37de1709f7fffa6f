/**
 * The soak's request mix: REST and GraphQL requests as the bench's users send them (the account
 * admin, a team member, a webhook owner), each with the status a correct service answers, the
 * requests it must refuse among them. Every connection runs through the mix in order, again and
 * again; a request may read what the next one needs from its answer (the next page's cursor).
 */
import { benchAdmin, benchUsers } from '../../bench/dataset.js';
import { allIncludes, benchGraphQLQuery } from '../../bench/direct.js';

/** Per autocannon connection: what a request learnt for the next one (the next page's cursor). */
export interface MixContext {
  cursor?: string | null;
}

export interface MixEntry {
  /** Short name in the report. */
  kind: string;
  /** What a correct service answers. */
  expect: number;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The path of this request, when it depends on chance or on the previous answer. */
  dynamicPath?: (context: MixContext) => string;
  /** Reads what the next request needs from the answer. */
  read?: (body: string, context: MixContext) => void;
}

export const gqlBody = (query: string, variables: Record<string, unknown> = {}) =>
  JSON.stringify({ query, variables });

/** The mix: every connection runs through it in order, again and again. */
export function requestMix(recordings: number[], meetingNodeId: string): MixEntry[] {
  const admin = { 'x-api-key': benchAdmin.apiKey };
  const member = { 'x-api-key': benchUsers[2]!.apiKey }; // sees their team's shared meetings only
  const owner = { 'x-api-key': benchUsers[1]!.apiKey }; // the recorder of ingested recordings, owns webhook 0
  // As a current GraphQL client sends it: errors then come with their 4xx status (GraphQL over HTTP).
  const json = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
  };
  const everyInclude = Object.keys(allIncludes)
    .map((k) => `include_${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}=true`)
    .join('&');
  const randomRecording = () => recordings[Math.floor(Math.random() * recordings.length)]!;
  const rest = '/external/v1';
  const get = (kind: string, path: string, headers: Record<string, string>, expect = 200): MixEntry => ({
    kind,
    expect,
    method: 'GET',
    path: `${rest}${path}`,
    headers,
  });
  const gql = (
    kind: string,
    headers: Record<string, string>,
    query: string,
    variables: Record<string, unknown> = {},
    expect = 200,
  ): MixEntry => ({
    kind,
    expect,
    method: 'POST',
    path: '/graphql',
    headers: { ...headers, ...json },
    body: gqlBody(query, variables),
  });
  return [
    get('rest meetings', '/meetings?limit=10', admin),
    {
      ...get('rest meetings page 1', '/meetings?limit=10&include_summary=true', member),
      read: (body, context) => {
        try {
          context.cursor = (JSON.parse(body) as { next_cursor: string | null }).next_cursor;
        } catch {
          context.cursor = null;
        }
      },
    },
    {
      ...get('rest meetings page 2', '/meetings?limit=10&include_summary=true', member),
      dynamicPath: (context) =>
        `${rest}/meetings?limit=10&include_summary=true${context.cursor ? `&cursor=${encodeURIComponent(context.cursor)}` : ''}`,
    },
    gql('gql meetings, content', admin, benchGraphQLQuery, { first: 10 }),
    get('rest meetings, every include', `/meetings?limit=5&${everyInclude}`, admin),
    get(
      'rest meetings, filters',
      '/meetings?limit=20&meeting_type=Product%20Demo&calendar_invitees_domains_type=one_or_more_external' +
        '&created_after=2026-01-01T00:00:00Z&include_action_items=true&include_crm_matches=true',
      admin,
    ),
    get(
      'rest meetings, array filters',
      '/meetings?teams[]=Sales&teams[]=Support&calendar_invitees_domains[]=customer3.test&include_highlights=true',
      member,
    ),
    get(
      'rest meetings, recorded_by',
      `/meetings?recorded_by[]=${encodeURIComponent(benchUsers[1]!.email)}&limit=25`,
      admin,
    ),
    {
      ...get('rest transcript', '/recordings/0/transcript', admin),
      dynamicPath: () => `${rest}/recordings/${randomRecording()}/transcript`,
    },
    {
      ...get('rest summary', '/recordings/0/summary', admin),
      dynamicPath: () => `${rest}/recordings/${randomRecording()}/summary`,
    },
    get('rest teams', '/teams', admin),
    get('rest team_members', '/team_members?team=Sales&limit=50', member),
    get('rest users', '/users?limit=50', admin),
    get('rest meeting_types', '/meeting_types', member),
    gql(
      'gql meetings, member content',
      member,
      /* GraphQL */ `query SoakMember($first: Int!) {
        meetings(first: $first, filter: { domainsType: ONE_OR_MORE_EXTERNAL }) {
          edges { node { id recordingId title sharedWith recordedBy { email team }
            transcript { speaker { displayName } text timestamp } defaultSummary { markdownFormatted }
            actionItems { description completed } highlights { type text } } }
          pageInfo { hasNextPage endCursor }
        }
      }`,
      { first: 5 },
    ),
    gql(
      'gql node',
      admin,
      /* GraphQL */ `query SoakNode($id: ID!) {
        node(id: $id) { id ... on Meeting { recordingId title recordedBy { name email } highlights { text }
          crmMatches { contacts { email } companies { name } deals { name amount } error } } }
      }`,
      { id: meetingNodeId },
    ),
    gql(
      'gql viewer',
      member,
      /* GraphQL */ `{ viewer { email name team { name }
        permissions { settingsAccess { level } viewAccess { level teams { name } } } } }`,
    ),
    gql(
      'gql webhooks, deliveries',
      owner,
      /* GraphQL */ `{ webhooks { id enabled url deliveries(first: 5) { edges { node {
        id recordingId status attemptCount attempts { responseStatus outcome durationMs } } } } } }`,
    ),
    // Requests a correct service refuses.
    get('400 limit=0', '/meetings?limit=0', admin, 400),
    get('400 bad created_after', '/meetings?created_after=yesterday', admin, 400),
    get('400 bad include flag', '/meetings?include_transcript=yes', admin, 400),
    get('400 bad recording id', '/recordings/abc/transcript', admin, 400),
    get('404 unknown recording', '/recordings/99999999/summary', admin, 404),
    get('401 no key', '/meetings', {}, 401),
    get('401 unknown key', '/teams', { 'x-api-key': 'mk_not_a_key_0000000000000000' }, 401),
    get('403 users as a member', '/users', member, 403),
    { ...get('405 DELETE /meetings', '/meetings', admin, 405), method: 'DELETE' },
    gql('400 gql syntax', admin, '{ meetings(first: ', {}, 400),
    gql('400 gql unknown field', admin, '{ viewer { email salary } }', {}, 400),
    // The document of 'gql meetings, content': whatever the server caches or compiles for it is what refuses this.
    gql('400 gql bad variable', admin, benchGraphQLQuery, { first: 'ten' }, 400),
  ];
}
