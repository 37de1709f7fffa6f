/**
 * The content of a meeting, one kind at a time (transcript, summary, action items, highlights):
 * its types, and its fields on Meeting, resolved only when selected through the per-request loader
 * of its kind (one query per kind for a whole page). Content is read as stored, in the public
 * API's JSON (domain/content.ts): a field with a selection parses it, its `…Json` twin hands the
 * bytes on untouched (what the REST door and webhook bodies select).
 */
import type {
  ActionItemJson,
  ContentJson,
  HighlightJson,
  SummaryJson,
  TranscriptEntryJson,
} from '../../domain/content.js';
import { RawJson } from '../../domain/raw-json.js';
import { transcriptPage, transcriptWindow } from '../../domain/transcript-pages.js';
import { builder } from '../builder.js';
import { connectionOf, listType, pageArgs } from '../connection.js';
import type { GraphQLContext } from '../context.js';
import { Meeting } from './meeting.js';

const Speaker = builder.objectRef<TranscriptEntryJson['speaker']>('Speaker').implement({
  fields: (t) => ({
    displayName: t.exposeString('display_name'),
    matchedCalendarInviteeEmail: t.exposeString('matched_calendar_invitee_email', { nullable: true }),
  }),
});

export const TranscriptEntry = builder.objectRef<TranscriptEntryJson>('TranscriptEntry').implement({
  fields: (t) => ({
    speaker: t.field({ type: Speaker, resolve: (e) => e.speaker }),
    text: t.exposeString('text'),
    timestamp: t.exposeString('timestamp', { description: 'Position in the recording, HH:MM:SS.' }),
  }),
});

export const Summary = builder.objectRef<SummaryJson>('Summary').implement({
  fields: (t) => ({
    templateName: t.exposeString('template_name'),
    markdownFormatted: t.exposeString('markdown_formatted'),
  }),
});

const Assignee = builder.objectRef<ActionItemJson['assignee']>('Assignee').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    team: t.exposeString('team', { nullable: true }),
  }),
});

export const ActionItem = builder.objectRef<ActionItemJson>('ActionItem').implement({
  fields: (t) => ({
    description: t.exposeString('description'),
    userGenerated: t.exposeBoolean('user_generated'),
    completed: t.exposeBoolean('completed'),
    recordingTimestamp: t.exposeString('recording_timestamp', { description: 'HH:MM:SS' }),
    recordingPlaybackUrl: t.exposeString('recording_playback_url', {
      description: 'The meeting URL at the moment of the action item.',
    }),
    assignee: t.field({ type: Assignee, resolve: (a) => a.assignee }),
  }),
});

export const Highlight = builder.objectRef<HighlightJson>('Highlight').implement({
  fields: (t) => ({
    type: t.exposeString('type', { description: 'A label such as "Objection".' }),
    summary: t.exposeString('summary', { nullable: true }),
    startTime: t.exposeFloat('start_time', { description: 'Seconds from the start of the recording.' }),
    endTime: t.exposeFloat('end_time'),
    text: t.string({
      nullable: true,
      description: 'The highlighted words; null when they are the same as the summary.',
      resolve: (h) => h.text ?? null,
    }),
  }),
});

type Kind = keyof ContentJson;

/**
 * Meeting's content fields: the kind of content each shows, and what it answers for a meeting
 * without any (the lists an empty list, as REST does). content-bytes.ts answers the same fields
 * from bytes on /graphql.
 */
export const contentFields = {
  transcript: { kind: 'transcripts', none: null },
  defaultSummary: { kind: 'summaries', none: null },
  actionItems: { kind: 'actionItems', none: [] },
  highlights: { kind: 'highlights', none: [] },
} as const satisfies Record<string, { kind: Kind; none: null | [] }>;

export type ContentField = keyof typeof contentFields;

/** The stored JSON of a meeting's content of `kind`, null when it has none. */
export async function stored<K extends Kind>(
  kind: K,
  recordingId: number,
  { loaders }: GraphQLContext,
): Promise<RawJson<ContentJson[K]> | null> {
  const content = await (loaders[kind] as GraphQLContext['loaders'][K]).load(recordingId);
  return (content?.json as RawJson<ContentJson[K]> | undefined) ?? null;
}

/** A content field's value as graphql-js completes it: the stored JSON parsed. */
async function parsed<F extends ContentField>(
  field: F,
  recordingId: number,
  context: GraphQLContext,
): Promise<ContentJson[(typeof contentFields)[F]['kind']] | (typeof contentFields)[F]['none']> {
  const { kind, none } = contentFields[field];
  return ((await stored(kind, recordingId, context))?.parse() ?? none) as never;
}

/** What the list twins answer for a meeting without that content, as the lists do. */
const none = new RawJson<never[]>(Buffer.from('[]'));

const twin = (what: string) =>
  `${what}, in the REST API's JSON (snake_case) as stored: the cheapest way to copy it elsewhere.`;

const TranscriptEntryList = listType('MeetingTranscriptEntries', TranscriptEntry);

builder.objectFields(Meeting, (t) => ({
  transcriptEntries: t.field({
    type: TranscriptEntryList,
    nullable: true,
    description:
      'The transcript a page at a time, in order (only the page is read from the database); null when there is none. Counted as the transcript is (rate limits, connected apps).',
    args: pageArgs(
      "The endCursor of the previous page of this meeting's transcript; another meeting's cursor starts from the first line.",
    ),
    resolve: async (m, args, { loaders }) => {
      const window = transcriptWindow(m.recordingId, args);
      const lines = await loaders.transcriptWindows.load({
        recordingId: m.recordingId,
        from: window.from,
        count: window.limit + 1, // one more: is there a next page?
      });
      return lines && connectionOf(transcriptPage(m.recordingId, window, lines));
    },
  }),
  transcript: t.field({
    type: [TranscriptEntry],
    nullable: true,
    resolve: (m, _a, context) => parsed('transcript', m.recordingId, context),
  }),
  transcriptJson: t.field({
    type: 'JSON',
    nullable: true,
    description: twin('The transcript'),
    resolve: (m, _a, context) => stored('transcripts', m.recordingId, context),
  }),
  defaultSummary: t.field({
    type: Summary,
    nullable: true,
    resolve: (m, _a, context) => parsed('defaultSummary', m.recordingId, context),
  }),
  defaultSummaryJson: t.field({
    type: 'JSON',
    nullable: true,
    description: twin('The default summary'),
    resolve: (m, _a, context) => stored('summaries', m.recordingId, context),
  }),
  actionItems: t.field({
    type: [ActionItem],
    resolve: (m, _a, context) => parsed('actionItems', m.recordingId, context),
  }),
  actionItemsJson: t.field({
    type: 'JSON',
    description: twin('The action items'),
    resolve: async (m, _a, context) => (await stored('actionItems', m.recordingId, context)) ?? none,
  }),
  highlights: t.field({
    type: [Highlight],
    resolve: (m, _a, context) => parsed('highlights', m.recordingId, context),
  }),
  highlightsJson: t.field({
    type: 'JSON',
    description: twin('The highlights'),
    resolve: async (m, _a, context) => (await stored('highlights', m.recordingId, context)) ?? none,
  }),
}));
