/** Reading a search, and finding where in a meeting it matched (the snippets GraphQL returns). */
import { describe, expect, it } from 'vitest';
import type { Collections } from '../../src/db/collections.js';
import { DomainError } from '../../src/domain/errors.js';
import { findRecordings, matchesIn, type SearchedContent, SNIPPET_LENGTH } from '../../src/domain/search.js';
import { parseSearch } from '../../src/domain/search-terms.js';

const refused = (search: string) => {
  try {
    parseSearch(search);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).message;
  }
  throw new Error(`${search} was accepted`);
};

describe('parseSearch', () => {
  it('reads words by stem, "phrases" as written, and -exclusions, dropping common words', () => {
    const search = parseSearch('The Pricing "next Quarter" -discounts -"free trial" meetings');
    expect(search.required.map((c) => [c.kind, c.key, c.search])).toEqual([
      ['word', 'price', 'Pricing'],
      ['phrase', 'next quarter', '"next Quarter"'],
      ['word', 'meet', 'meetings'],
    ]);
    expect(search.excluded.map((c) => [c.kind, c.key])).toEqual([
      ['word', 'discount'],
      ['phrase', 'free trial'],
    ]);
  });

  it('splits words as the index does, folds accents, and keeps each clause once', () => {
    const search = parseSearch('price-list Café cafe PRICE');
    expect(search.required.map((c) => c.key)).toEqual(['price', 'list', 'cafe']);
  });

  it('refuses a search with nothing to find, too long, or with too many words', () => {
    expect(refused('')).toMatch(/nothing to find/);
    expect(refused('the and of')).toMatch(/nothing to find/);
    expect(refused('-pricing')).toMatch(/nothing to find/);
    expect(refused('"the of"')).toMatch(/nothing to find/);
    expect(refused('x'.repeat(501))).toMatch(/at most 500 characters/);
    expect(refused('one two three four five six seven eight nine ten eleven')).toMatch(/at most 10/);
  });
});

const meeting: SearchedContent = {
  title: 'Quarterly pricing review',
  meetingTitle: null,
  summary: {
    template_name: 'general',
    markdown_formatted: '## Summary\n\n- Pricing was agreed.\n- Nothing else.',
  },
  actionItems: [
    {
      description: 'Send the new price list',
      user_generated: false,
      completed: false,
      recording_timestamp: '00:12:00',
      recording_playback_url: 'https://example.test/r/1?t=720',
      assignee: { name: null, email: null, team: null },
    },
  ],
  transcript: [
    {
      speaker: { display_name: 'Ann', matched_calendar_invitee_email: null },
      text: 'Hello all.',
      timestamp: '00:00:01',
    },
    {
      speaker: { display_name: 'Bo', matched_calendar_invitee_email: null },
      text: 'Our prices go up next quarter, as planned.',
      timestamp: '00:05:10',
    },
    {
      speaker: { display_name: 'Ann', matched_calendar_invitee_email: null },
      text: 'Then pricing is settled.',
      timestamp: '00:09:00',
    },
  ],
};

describe('matchesIn', () => {
  it('finds a word by its stem in every field, titles first, each with its moment in the recording', () => {
    expect(matchesIn(parseSearch('priced'), meeting, 10)).toEqual([
      { field: 'title', snippet: 'Quarterly pricing review', timestamp: null, speaker: null },
      { field: 'summary', snippet: 'Pricing was agreed.', timestamp: null, speaker: null },
      { field: 'actionItem', snippet: 'Send the new price list', timestamp: '00:12:00', speaker: null },
      {
        field: 'transcript',
        snippet: 'Our prices go up next quarter, as planned.',
        timestamp: '00:05:10',
        speaker: 'Bo',
      },
      { field: 'transcript', snippet: 'Then pricing is settled.', timestamp: '00:09:00', speaker: 'Ann' },
    ]);
  });

  it('puts the places with most of the search first, and stops at `first`', () => {
    const [best, next] = matchesIn(parseSearch('pricing "next quarter"'), meeting, 2);
    expect(best).toMatchObject({ field: 'transcript', timestamp: '00:05:10' });
    expect(next).toMatchObject({ field: 'title' });
    expect(matchesIn(parseSearch('pricing'), meeting, 1)).toHaveLength(1);
  });

  it('shows each word and phrase where it occurs before showing any twice', () => {
    // No one place has both: the title has "pricing", one transcript sentence "next quarter".
    const [one, two] = matchesIn(
      parseSearch('pricing "next quarter"'),
      {
        ...meeting,
        transcript: [
          {
            speaker: { display_name: 'Bo', matched_calendar_invitee_email: null },
            text: 'Pricing first.',
            timestamp: '00:01:00',
          },
          {
            speaker: { display_name: 'Ann', matched_calendar_invitee_email: null },
            text: 'And next quarter?',
            timestamp: '00:02:00',
          },
        ],
      },
      2,
    );
    expect([one!.snippet, two!.snippet]).toEqual(['Quarterly pricing review', 'And next quarter?']);
  });

  it('finds nothing where the search does not occur', () => {
    expect(matchesIn(parseSearch('"prices went down"'), meeting, 10)).toEqual([]);
  });

  it('cuts a long text to a window around the match, on word boundaries', () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(20);
    const text = `${filler}the budget was approved today ${filler}`;
    const [match] = matchesIn(parseSearch('budget'), { ...meeting, title: text }, 1);
    expect(match!.snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 2);
    expect(match!.snippet).toMatch(/^….*budget was approved today.*…$/);
    expect(match!.snippet).not.toMatch(/^…\S*\s?$/);
    expect(text).toContain(match!.snippet.slice(1, -1));
  });
});

describe('findRecordings', () => {
  /** A collection whose text search finds `ids`, and whose distinct answers `distinct` (or fails). */
  const collection = (ids: number[], distinct: () => Promise<number[]>) => ({
    distinct,
    find: () => ({
      map: (f: (d: { recordingId: number }) => number) => ({
        toArray: async () => ids.map((id) => f({ recordingId: id })),
      }),
    }),
  });
  const tooBig = () =>
    Promise.reject(Object.assign(new Error('distinct too big, 16mb cap'), { code: 17217 }));

  it('reads the ids through a cursor when their distinct array would pass 16 MiB', async () => {
    const collections = {
      meetings: collection([1], async () => [1]),
      summaries: collection([], async () => []),
      actionItems: collection([], async () => []),
      transcripts: collection([1, 2, 3], tooBig),
    } as unknown as Collections;
    expect([...(await findRecordings(collections, parseSearch('pricing'), false)).keys()].sort()).toEqual([
      1, 2, 3,
    ]);
  });

  it('lets any other failure through', async () => {
    const down = () => Promise.reject(Object.assign(new Error('not primary'), { code: 10107 }));
    const collections = {
      meetings: collection([], down),
      summaries: collection([], down),
      actionItems: collection([], down),
      transcripts: collection([], down),
    } as unknown as Collections;
    await expect(findRecordings(collections, parseSearch('pricing'), false)).rejects.toThrow('not primary');
  });
});
