/**
 * The content of a meeting, one kind at a time (transcript, summary, action items, highlights):
 * its types, and its field on Meeting, resolved only when selected through the per-request loader
 * of its kind (one query per kind for a whole page).
 */
import type {
  ActionItemDoc,
  HighlightDoc,
  SpeakerDoc,
  SummaryDoc,
  TranscriptEntryDoc,
} from '../../db/documents.js';
import { highlightText, playbackUrl } from '../../domain/content.js';
import { builder } from '../builder.js';
import { Meeting } from './meeting.js';

const Speaker = builder.objectRef<SpeakerDoc>('Speaker').implement({
  fields: (t) => ({
    displayName: t.exposeString('displayName'),
    matchedCalendarInviteeEmail: t.exposeString('matchedCalendarInviteeEmail', { nullable: true }),
  }),
});

export const TranscriptEntry = builder.objectRef<TranscriptEntryDoc>('TranscriptEntry').implement({
  fields: (t) => ({
    speaker: t.field({ type: Speaker, resolve: (e) => e.speaker }),
    text: t.exposeString('text'),
    timestamp: t.exposeString('timestamp', { description: 'Position in the recording, HH:MM:SS.' }),
  }),
});

export const Summary = builder.objectRef<Omit<SummaryDoc, '_id'>>('Summary').implement({
  fields: (t) => ({
    templateName: t.exposeString('templateName'),
    markdownFormatted: t.exposeString('markdownFormatted'),
  }),
});

const Assignee = builder.objectRef<ActionItemDoc['assignee']>('Assignee').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    team: t.exposeString('team', { nullable: true }),
  }),
});

/** An action item with the URL of the meeting it belongs to (for its playback link). */
export interface ActionItemOfMeeting {
  item: ActionItemDoc;
  meetingUrl: string;
}

export const ActionItem = builder.objectRef<ActionItemOfMeeting>('ActionItem').implement({
  fields: (t) => ({
    description: t.string({ resolve: ({ item }) => item.description }),
    userGenerated: t.boolean({ resolve: ({ item }) => item.userGenerated }),
    completed: t.boolean({ resolve: ({ item }) => item.completed }),
    recordingTimestamp: t.string({ description: 'HH:MM:SS', resolve: ({ item }) => item.recordingTimestamp }),
    recordingPlaybackUrl: t.string({
      description: 'The meeting URL at the moment of the action item.',
      resolve: ({ item, meetingUrl }) => playbackUrl(meetingUrl, item.recordingTimestamp),
    }),
    assignee: t.field({ type: Assignee, resolve: ({ item }) => item.assignee }),
  }),
});

export const Highlight = builder.objectRef<HighlightDoc>('Highlight').implement({
  fields: (t) => ({
    type: t.exposeString('type', { description: 'A label such as "Objection".' }),
    summary: t.exposeString('summary', { nullable: true }),
    startTime: t.exposeFloat('startTime', { description: 'Seconds from the start of the recording.' }),
    endTime: t.exposeFloat('endTime'),
    text: t.string({
      nullable: true,
      description: 'The highlighted words; null when they are the same as the summary.',
      resolve: highlightText,
    }),
  }),
});

builder.objectFields(Meeting, (t) => ({
  transcript: t.field({
    type: [TranscriptEntry],
    nullable: true,
    resolve: async (m, _a, { loaders }) => (await loaders.transcripts.load(m.recordingId))?.entries ?? null,
  }),
  defaultSummary: t.field({
    type: Summary,
    nullable: true,
    resolve: (m, _a, { loaders }) => loaders.summaries.load(m.recordingId),
  }),
  actionItems: t.field({
    type: [ActionItem],
    resolve: async (m, _a, { loaders }) =>
      ((await loaders.actionItems.load(m.recordingId))?.items ?? []).map((item) => ({
        item,
        meetingUrl: m.url,
      })),
  }),
  highlights: t.field({
    type: [Highlight],
    resolve: async (m, _a, { loaders }) => (await loaders.highlights.load(m.recordingId))?.items ?? [],
  }),
}));
