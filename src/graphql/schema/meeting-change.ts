/**
 * The change feed: `meetingChanges`, every change of a meeting you may see (or could, before the
 * change), in the order changes were logged, from a cursor; and `meetingChangesCursor`, where the
 * feed stands now (the same changes live: `meetingChanged`, subscription.ts). The rules are the
 * domain's (meeting-changes.ts); see docs/api/mirroring.md.
 */
import type { ChangeKind, MeetingDoc } from '../../db/documents.js';
import type { ChangeEntry } from '../../domain/change-log.js';
import { currentChangesCursor, meetingChanges } from '../../domain/meeting-changes.js';
import { MAX_PAGE_SIZE } from '../../domain/pagination.js';
import { builder } from '../builder.js';
import { type GraphQLContext, viewerOf } from '../context.js';
import { Meeting } from './meeting.js';

export const MeetingChangeKind = builder.enumType('MeetingChangeKind', {
  values: {
    CREATED: { value: 'created', description: 'Stored for the first time.' },
    CONTENT: {
      value: 'content',
      description:
        'Its content changed: transcript, summary, action items, highlights, media, or its details (title, meeting type, invitees, times).',
    },
    SHARING: { value: 'sharing', description: 'Who it is shared with changed.' },
    DELETED: { value: 'deleted', description: 'Deleted, with its content and media.' },
  } as const satisfies Record<string, { value: ChangeKind; description: string }>,
});

/** The meeting as the viewer may see it now; null when deleted, being deleted, or no longer theirs. */
async function meetingNow(entry: ChangeEntry, { loaders }: GraphQLContext): Promise<MeetingDoc | null> {
  const meeting = await loaders.meetings.load(entry.recordingId);
  return meeting && !meeting.pendingChange?.kinds.includes('deleted') ? meeting : null;
}

export const MeetingChange = builder.objectRef<ChangeEntry>('MeetingChange').implement({
  description:
    'A change of a meeting you may see, or could see before it. A mirror applies it by taking `meeting` as it is now, or removing the meeting when `removed`.',
  fields: (t) => ({
    recordingId: t.exposeInt('recordingId'),
    kinds: t.field({
      type: [MeetingChangeKind],
      description: 'CREATED or DELETED alone; otherwise CONTENT, SHARING or both.',
      resolve: (entry) => entry.kinds,
    }),
    at: t.field({
      type: 'DateTime',
      description: "When it was logged: the meeting's updatedAt after it.",
      resolve: (entry) => entry.at,
    }),
    removed: t.boolean({
      description:
        'The meeting is gone for you now: deleted, or no longer shared with you (by this change or a later one).',
      resolve: async (entry, _args, context) => (await meetingNow(entry, context)) === null,
    }),
    meeting: t.field({
      type: Meeting,
      nullable: true,
      description: 'The meeting as it is now (it may have changed again since); null when removed.',
      resolve: (entry, _args, context) => meetingNow(entry, context),
    }),
  }),
});

const MeetingChanges = builder.connectionObject(
  { type: MeetingChange, name: 'MeetingChangesConnection' },
  { name: 'MeetingChangesConnectionEdge' },
);

builder.queryFields((t) => ({
  meetingChanges: t.field({
    type: MeetingChanges,
    description:
      'Changes of the meetings `meetings` lists for you, in the order they were logged, after a cursor (from the oldest kept without one). pageInfo.endCursor is always set: it is where this page stopped reading, also when none of what it read was yours; follow it when hasNextPage, and ask again later from it when not. A change logged late is never skipped. Changes are kept for a retention window (30 days by default): an older cursor is refused with RESYNC_REQUIRED (HTTP 410).',
    args: {
      first: t.arg.int({
        description: `Changes a page holds at most: 1 to ${MAX_PAGE_SIZE}, ${MAX_PAGE_SIZE} when omitted.`,
      }),
      after: t.arg.string({
        description: 'The endCursor of the previous page, or meetingChangesCursor.',
      }),
    },
    resolve: async (_root, args, context) => {
      const page = await meetingChanges(context.collections, viewerOf(context), args, new Date());
      return {
        edges: page.changes.map(({ entry, cursor }) => ({ node: entry, cursor })),
        pageInfo: {
          hasNextPage: page.hasNextPage,
          hasPreviousPage: false,
          startCursor: page.changes[0]?.cursor ?? null,
          endCursor: page.endCursor,
        },
      };
    },
  }),
  meetingChangesCursor: t.string({
    description:
      'Where your change feed stands now: to start a mirror, take it, list every meeting (meetings), then follow meetingChanges from it.',
    resolve: (_root, _args, context) =>
      currentChangesCursor(context.collections, viewerOf(context), new Date()),
  }),
}));
