/**
 * Meeting: every field of the spec, content resolved lazily through the per-request loaders,
 * and the `meetings` and `meeting` queries. Visibility is the domain's: lists are filtered by it,
 * single lookups and node ids return null for what the viewer may not see.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { DomainsType, InviteeDoc, MeetingDoc, SharedWith } from '../../db/documents.js';
import { emailDomain } from '../../domain/email.js';
import { DomainError } from '../../domain/errors.js';
import { findMeeting, listMeetings } from '../../domain/meetings.js';
import { sharedWithOf } from '../../domain/sharing.js';
import { builder } from '../builder.js';
import { connectionOf, pageArgs } from '../connection.js';
import { type GraphQLContext, viewerOf } from '../context.js';
import { contentFieldOf, selectedFieldNames } from '../selection.js';
import { CrmMatches } from './crm.js';
import { type MeetingEdge, MeetingOrder, matchesField, SearchMatch } from './search.js';

export const DomainsTypeEnum = builder.enumType('CalendarInviteesDomainsType', {
  values: {
    ONLY_INTERNAL: { value: 'only_internal' },
    ONE_OR_MORE_EXTERNAL: { value: 'one_or_more_external' },
  } as const satisfies Record<string, { value: DomainsType }>,
});

const SharedWithEnum = builder.enumType('SharedWith', {
  values: {
    NO_TEAMS: { value: 'no_teams' },
    SINGLE_TEAM: { value: 'single_team' },
    MULTIPLE_TEAMS: { value: 'multiple_teams' },
    ALL_TEAMS: { value: 'all_teams' },
  } as const satisfies Record<string, { value: SharedWith }>,
});

interface InviteeOfMeeting {
  invitee: InviteeDoc;
  recordingId: number;
}

const Invitee = builder.objectRef<InviteeOfMeeting>('Invitee').implement({
  fields: (t) => ({
    name: t.string({ nullable: true, resolve: ({ invitee }) => invitee.name }),
    email: t.string({ nullable: true, resolve: ({ invitee }) => invitee.email }),
    emailDomain: t.string({ nullable: true, resolve: ({ invitee }) => invitee.emailDomain }),
    isExternal: t.boolean({ resolve: ({ invitee }) => invitee.isExternal }),
    matchedSpeakerDisplayName: t.string({
      nullable: true,
      description: "The transcript speaker matched to this invitee (loads the meeting's transcript).",
      resolve: async ({ invitee, recordingId }, _args, { loaders }) => {
        if (!invitee.email) return null;
        // The transcript's speakers are stored apart from its entries: no need to read those.
        const transcript = await loaders.transcripts.load(recordingId);
        const speaker = transcript?.speakers?.find((s) => s.matchedCalendarInviteeEmail === invitee.email);
        return speaker?.displayName ?? null;
      },
    }),
  }),
});

const Recorder = builder.objectRef<MeetingDoc>('Recorder').implement({
  description: 'The user who recorded a meeting.',
  fields: (t) => ({
    name: t.string({
      nullable: true,
      resolve: async (m, _a, { loaders }) => (await loaders.users.load(m.recorderId))?.name ?? null,
    }),
    email: t.string({
      resolve: async (m, _a, { loaders }) => (await loaders.users.load(m.recorderId))?.email ?? '',
    }),
    emailDomain: t.string({
      resolve: async (m, _a, { loaders }) =>
        emailDomain((await loaders.users.load(m.recorderId))?.email) ?? '',
    }),
    team: t.string({
      nullable: true,
      resolve: async (m, _a, { loaders }) =>
        // The recorder's team is one of the meeting's organisation's teams, which sharedWith loads
        // anyway: one teams query serves both.
        m.teamId
          ? ((await loaders.orgTeams.load(m.orgId)).find((team) => team._id.equals(m.teamId!))?.name ?? null)
          : null,
    }),
  }),
});

export const Meeting = builder.objectRef<MeetingDoc>('Meeting');

builder.node(Meeting, {
  id: {
    resolve: (m) => m.recordingId,
    parse: (id) => {
      const n = Number(id);
      if (!Number.isSafeInteger(n) || n < 1) throw new DomainError('BAD_USER_INPUT', 'Not a meeting id.');
      return n;
    },
  },
  loadManyWithoutCache: (ids, { loaders }) =>
    loaders.meetings.loadMany(ids).then((r) => r.map((m) => (m instanceof Error ? null : m))),
  fields: (t) => ({
    recordingId: t.exposeInt('recordingId', {
      description: 'The public integer id, used in /recordings paths.',
    }),
    title: t.exposeString('title'),
    meetingTitle: t.exposeString('meetingTitle', { nullable: true }),
    meetingType: t.string({
      nullable: true,
      description: 'Name of the meeting type assigned.',
      resolve: async (m, _a, { loaders }) =>
        m.meetingTypeId ? ((await loaders.meetingTypes.load(m.meetingTypeId))?.name ?? null) : null,
    }),
    url: t.exposeString('url'),
    shareUrl: t.exposeString('shareUrl'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    scheduledStartTime: t.expose('scheduledStartTime', { type: 'DateTime' }),
    scheduledEndTime: t.expose('scheduledEndTime', { type: 'DateTime' }),
    recordingStartTime: t.expose('recordingStartTime', { type: 'DateTime' }),
    recordingEndTime: t.expose('recordingEndTime', { type: 'DateTime' }),
    calendarInviteesDomainsType: t.field({ type: DomainsTypeEnum, resolve: (m) => m.domainsType }),
    sharedWith: t.field({
      type: SharedWithEnum,
      // Shared team by team with every team of its organisation is ALL_TEAMS: that takes the
      // organisation's teams (one query for the page).
      resolve: async (m, _a, { loaders }) => {
        const orgTeamIds = (await loaders.orgTeams.load(m.orgId)).map((team) => team._id);
        return sharedWithOf(m, orgTeamIds);
      },
    }),
    transcriptLanguage: t.exposeString('transcriptLanguage'),
    meetingUrl: t.exposeString('meetingUrl', {
      nullable: true,
      description: 'Link to the conferencing meeting.',
    }),
    calendarInvitees: t.field({
      type: [Invitee],
      resolve: (m) => m.calendarInvitees.map((invitee) => ({ invitee, recordingId: m.recordingId })),
    }),
    recordedBy: t.field({ type: Recorder, resolve: (m) => m }),
    crmMatches: t.field({ type: CrmMatches, resolve: (m, _a, { loaders }) => loaders.crmMatches.load(m) }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      description:
        'When it last changed (created, content, sharing): its time in the change feed (meetingChanges). filter.updatedAfter lists meetings changed after an instant.',
    }),
  }),
});

const MeetingFilter = builder.inputType('MeetingFilter', {
  description: 'Different fields combine with AND; the values of one list with OR.',
  fields: (t) => ({
    recordedBy: t.field({
      type: ['Email'],
      required: false,
      description:
        'Recorders. Meetings recorded outside your organisation are listed only when their recorder is named here.',
    }),
    teams: t.stringList({ required: false, description: "Names of the recorder's team." }),
    companyDomains: t.stringList({
      required: false,
      description: 'The domain of the company the meeting is associated with.',
    }),
    domainsType: t.field({ type: DomainsTypeEnum, required: false, description: 'Omit for all.' }),
    createdAfter: t.field({ type: 'DateTime', required: false }),
    createdBefore: t.field({ type: 'DateTime', required: false }),
    meetingType: t.string({
      required: false,
      description:
        "A meeting type's name, matched exactly, whichever organisation the type is in (a meeting shared from another organisation has that organisation's types); an unknown name matches nothing.",
    }),
    attendees: t.field({
      type: ['Email'],
      required: false,
      description:
        'Meetings any of these people attended: a calendar invitee, or a transcript speaker matched to one. Not in the REST API.',
    }),
    updatedAfter: t.field({
      type: 'DateTime',
      required: false,
      description:
        'Meetings changed after this instant, least recently changed first (the order of the change feed; orderBy is then ignored, and RELEVANCE refused). To poll, ask again with the updatedAt of the last meeting received: a change logged late still comes after it. Removals show only in meetingChanges.',
    }),
    search: t.string({
      required: false,
      description:
        'Meetings in which every word and "quoted phrase" occurs, in the title, summary, action items or transcript; -word or -"phrase" excludes. Words match by stem ("priced" finds "pricing"), case and accents aside; common words such as "the" are ignored. Each edge tells where it matched (matches). Not in the REST API.',
    }),
  }),
});

/** Connected apps may read transcripts and summaries one recording at a time, not through lists. */
function refuseListedContentForApps(context: GraphQLContext, info: GraphQLResolveInfo): void {
  if (viewerOf(context).via !== 'connected_app') return;
  const selected = new Set(
    [...selectedFieldNames(info, ['edges', 'node']), ...selectedFieldNames(info, ['nodes'])].map(
      contentFieldOf,
    ),
  );
  if (selected.has('defaultSummary'))
    throw new DomainError('BAD_USER_INPUT', 'OAuth users are not allowed to include summary.');
  if (selected.has('transcript'))
    throw new DomainError('BAD_USER_INPUT', 'OAuth users are not allowed to include transcript.');
  // Matches quote summaries and transcripts: a few sentences per meeting, which an agent's search
  // on the MCP door is for (its token opens no other door); an app's token on REST and GraphQL
  // reads them one recording at a time like the rest.
  if (viewerOf(context).audience !== 'mcp' && selectedFieldNames(info, ['edges']).has('matches'))
    throw new DomainError('BAD_USER_INPUT', 'OAuth users are not allowed to include search matches.');
}

const MeetingList = builder.connectionObject(
  { type: Meeting, name: 'QueryMeetingsConnection' },
  {
    name: 'QueryMeetingsConnectionEdge',
    fields: (t) => ({
      matches: t.field({
        type: [SearchMatch],
        nullable: true,
        description: matchesField.description,
        args: {
          first: t.arg.int({ defaultValue: 3, required: true, description: matchesField.firstDescription }),
        },
        // Edges of this list carry the search (below).
        resolve: (edge, { first }, context) => matchesField.resolve(edge as MeetingEdge, first, context),
      }),
    }),
  },
);

builder.queryFields((t) => ({
  meetings: t.field({
    type: MeetingList,
    description:
      'Meetings you may see, newest first (by recording start). Pages of 10 by default, at most 100.',
    args: {
      ...pageArgs(),
      filter: t.arg({ type: MeetingFilter, required: false }),
      orderBy: t.arg({ type: MeetingOrder, defaultValue: 'newest', required: true }),
    },
    resolve: async (_root, args, context, info) => {
      refuseListedContentForApps(context, info);
      const page = await listMeetings(
        context.collections,
        viewerOf(context),
        args.filter ?? {},
        args,
        args.orderBy,
      );
      const connection = connectionOf(page);
      const edges: MeetingEdge[] = connection.edges.map((edge) => ({ ...edge, search: page.search }));
      return { ...connection, edges };
    },
  }),
  meeting: t.field({
    type: Meeting,
    nullable: true,
    description: 'One meeting by recording id; null when it does not exist or you may not see it.',
    args: { recordingId: t.arg.int({ required: true }) },
    resolve: (_root, { recordingId }, context) =>
      findMeeting(context.collections, viewerOf(context), recordingId),
  }),
}));
