/**
 * Search results: the order a searched list may take, and on each edge of it where the search
 * matched the meeting (a title, a line of its summary, an action item, a sentence of its
 * transcript and when it was said). The search itself is a filter (MeetingFilter.search).
 */

import type { MeetingDoc } from '../../db/documents.js';
import { DomainError } from '../../domain/errors.js';
import type { MeetingOrder as Order } from '../../domain/meetings.js';
import { type SearchMatch as Match, matchesIn, type SearchField } from '../../domain/search.js';
import type { Search } from '../../domain/search-terms.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';

export const MeetingOrder = builder.enumType('MeetingOrder', {
  values: {
    NEWEST: { value: 'newest', description: 'By recording start, newest first.' },
    RELEVANCE: {
      value: 'relevance',
      description: 'Best match to filter.search first (words in titles count most); ties newest first.',
    },
  } as const satisfies Record<string, { value: Order; description: string }>,
});

const SearchFieldEnum = builder.enumType('SearchField', {
  values: {
    TITLE: { value: 'title' },
    SUMMARY: { value: 'summary' },
    ACTION_ITEM: { value: 'actionItem' },
    TRANSCRIPT: { value: 'transcript' },
  } as const satisfies Record<string, { value: SearchField }>,
});

export const SearchMatch = builder.objectRef<Match>('SearchMatch').implement({
  description: 'A place in a meeting where the search matched.',
  fields: (t) => ({
    field: t.field({ type: SearchFieldEnum, resolve: (m) => m.field }),
    snippet: t.exposeString('snippet', {
      description:
        'The matching title, summary line, action item or transcript sentence (a window of it when long).',
    }),
    timestamp: t.exposeString('timestamp', {
      nullable: true,
      description: 'Position in the recording (HH:MM:SS) of a transcript sentence or action item.',
    }),
    speaker: t.exposeString('speaker', { nullable: true, description: 'Who said it (transcript).' }),
  }),
});

/** An edge of a meeting list, with the search the list was found by (null when not searched). */
export interface MeetingEdge {
  cursor: string;
  node: MeetingDoc;
  search: Search | null;
}

export const MAX_MATCHES = 20;

/** The `matches` field of a meeting list's edges (meeting.ts). */
export const matchesField = {
  description:
    'Where filter.search matched this meeting, best first: every word and phrase where it occurs before any twice, then the places with more of the search. Null when the list was not searched.',
  firstDescription: `How many places: 1 to ${MAX_MATCHES}.`,
  async resolve(
    { node, search }: MeetingEdge,
    first: number,
    { loaders }: GraphQLContext,
  ): Promise<Match[] | null> {
    if (!search) return null;
    if (!Number.isInteger(first) || first < 1 || first > MAX_MATCHES)
      throw new DomainError('BAD_USER_INPUT', `matches(first:) must be an integer from 1 to ${MAX_MATCHES}.`);
    // One query per kind for the page (the loaders batch), the content only of what was found.
    const [summary, actionItems, transcript] = await Promise.all([
      loaders.summaries.load(node.recordingId),
      loaders.actionItems.load(node.recordingId),
      loaders.transcripts.load(node.recordingId),
    ]);
    return matchesIn(
      search,
      {
        title: node.title,
        meetingTitle: node.meetingTitle,
        summary: summary?.json.parse(),
        actionItems: actionItems?.json.parse(),
        transcript: transcript?.json.parse(),
      },
      first,
    );
  },
};
