/**
 * Finding meetings by what was said in them. Each word or phrase of a search is looked up with
 * `$text` in the text index of every collection that holds a meeting's words (titles, summaries,
 * action items, transcripts), and a meeting is found when each of them occurs somewhere in it:
 * MongoDB's `$text` alone would find meetings with any one of the words. What is found is only a
 * set of recording ids; which of them the viewer may see is decided by the meetings query it
 * narrows, like every other filter (meetings.ts), so a search tells nobody anything about a
 * meeting they may not see.
 *
 * The index tells which meetings match, not where: `matchesIn` finds the places in the content
 * with the index's own rules (search-terms.ts), for the page shown.
 */
import type { Collection, Document } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { ActionItemJson, SummaryJson, TranscriptEntryJson } from './content.js';
import { clausesIn, folded, type Search, type SearchClause, stemsOf } from './search-terms.js';

export type SearchField = 'title' | 'summary' | 'actionItem' | 'transcript';

/** The collections with a text index (db/collections.ts): a meeting's titles, summary, action items, transcript. */
const searched = [
  'meetings',
  'summaries',
  'actionItems',
  'transcripts',
] as const satisfies readonly (keyof Collections)[];

/**
 * Recording ids with their relevance (the sum of the text scores of each clause in each field),
 * or 0 when the caller did not ask for scores.
 */
export type Found = Map<number, number>;

/**
 * The recordings in which every required clause of `search` occurs and no excluded one does,
 * across all organisations: the caller narrows them to what a viewer may see.
 */
export async function findRecordings(
  collections: Collections,
  search: Search,
  scored: boolean,
): Promise<Found> {
  const [required, excluded] = await Promise.all([
    Promise.all(search.required.map((clause) => recordingsWith(collections, clause, scored))),
    Promise.all(search.excluded.map((clause) => recordingsWith(collections, clause, false))),
  ]);
  // Start from the rarest clause: the intersection can only shrink.
  required.sort((a, b) => a.size - b.size);
  const [rarest, ...others] = required;
  const found: Found = new Map(rarest);
  for (const [id, score] of found) {
    const more = others.map((hits) => hits.get(id));
    if (more.includes(undefined) || excluded.some((hits) => hits.has(id))) found.delete(id);
    else
      found.set(
        id,
        more.reduce<number>((total, s) => total + s!, score),
      );
  }
  return found;
}

/** mongod's codes for a distinct answer over 16 MiB (17217) and a document too large (10334). */
const TOO_BIG = new Set<unknown>([17217, 10334]);

/** The recordings `clause` occurs in, in any field. */
async function recordingsWith(
  collections: Collections,
  clause: SearchClause,
  scored: boolean,
): Promise<Found> {
  const found: Found = new Map();
  const filter = { $text: { $search: clause.search } };
  await Promise.all(
    searched.map(async (name) => {
      const collection = collections[name] as unknown as Collection<Document>;
      if (!scored) {
        // One array of ids: far less to encode and decode than a document per hit, unless it
        // would pass a reply's 16 MiB (hundreds of thousands of hits): then a cursor of them.
        const ids = await collection.distinct('recordingId', filter).catch((error: unknown) => {
          if (!TOO_BIG.has((error as { code?: unknown }).code)) throw error;
          return collection
            .find(filter, { projection: { _id: 0, recordingId: 1 } })
            .map((d) => d.recordingId)
            .toArray();
        });
        for (const id of ids) found.set(id, 0);
        return;
      }
      const hits = await collection
        .find(filter, {
          projection: { _id: 0, recordingId: 1, score: { $meta: 'textScore' } },
          // All in the first batch: a getMore per collection would add a round trip each.
          batchSize: 100_000,
        })
        .toArray();
      for (const { recordingId, score } of hits)
        found.set(recordingId, (found.get(recordingId) ?? 0) + score);
    }),
  );
  return found;
}

/** Where a search matched a meeting: a sentence of its transcript, say, and when it was said. */
export interface SearchMatch {
  field: SearchField;
  /** The matching text, cut to about SNIPPET_LENGTH characters around the first match. */
  snippet: string;
  /** Position in the recording (HH:MM:SS) of a transcript sentence or action item. */
  timestamp: string | null;
  /** Who said it, for a transcript sentence. */
  speaker: string | null;
}

/** What of a meeting a search looks into; content the meeting does not have is absent. */
export interface SearchedContent {
  title: string;
  meetingTitle: string | null;
  summary?: SummaryJson | null;
  actionItems?: ActionItemJson[] | null;
  transcript?: TranscriptEntryJson[] | null;
}

export const SNIPPET_LENGTH = 160;

interface Candidate extends SearchMatch {
  text: string;
  clauses: SearchClause[];
  order: number;
}

/**
 * The places in `content` where the search's words or phrases occur, best first: each time the
 * place that adds most of the search not yet shown (so every word and phrase is shown where it
 * occurs before any is shown twice), then the one with most of it, then titles, summary, action
 * items and transcript in that order, each in the order of the recording.
 */
export function matchesIn(search: Search, content: SearchedContent, first: number): SearchMatch[] {
  const candidates: Candidate[] = [];
  let complete = 0;
  for (const [field, text, timestamp, speaker] of placesIn(content)) {
    const clauses = clausesIn(text, search.required);
    if (clauses.length === 0) continue;
    candidates.push({ field, snippet: '', text, timestamp, speaker, clauses, order: candidates.length });
    // Nothing later can rank above `first` places that have the whole search: stop reading.
    if (clauses.length === search.required.length && ++complete === first) break;
  }
  return bestOf(candidates, first).map(({ field, text, clauses, timestamp, speaker }) => ({
    field,
    snippet: snippetOf(text, clauses),
    timestamp,
    speaker,
  }));
}

/** `first` places, each the one that shows most of the search not shown yet; ties: more of it, then earlier. */
function bestOf(candidates: Candidate[], first: number): Candidate[] {
  const shown = new Set<SearchClause>();
  const adds = (c: Candidate) => c.clauses.filter((clause) => !shown.has(clause)).length;
  const before = (a: Candidate, b: Candidate) =>
    adds(a) - adds(b) || a.clauses.length - b.clauses.length || b.order - a.order;
  const left = [...candidates];
  const picked: Candidate[] = [];
  while (picked.length < first && left.length > 0) {
    let at = 0;
    for (let i = 1; i < left.length; i++) if (before(left[i]!, left[at]!) > 0) at = i;
    const [best] = left.splice(at, 1);
    picked.push(best!);
    for (const clause of best!.clauses) shown.add(clause);
  }
  return picked;
}

/** The texts of a meeting in the order matches are shown: titles, summary lines, action items, transcript. */
function* placesIn(
  content: SearchedContent,
): Generator<[SearchField, string, timestamp: string | null, speaker: string | null]> {
  yield ['title', content.title, null, null];
  if (content.meetingTitle && content.meetingTitle !== content.title)
    yield ['title', content.meetingTitle, null, null];
  for (const line of content.summary?.markdown_formatted.split('\n') ?? []) {
    const text = line.replace(/^\s*(?:#+|[-*+]|\d+\.)\s*/, '').trim();
    if (text) yield ['summary', text, null, null];
  }
  for (const item of content.actionItems ?? [])
    yield ['actionItem', item.description, item.recording_timestamp, null];
  for (const entry of content.transcript ?? [])
    yield ['transcript', entry.text, entry.timestamp, entry.speaker.display_name];
}

/** `text`, or a window of it around where the first of `clauses` occurs. */
function snippetOf(text: string, clauses: readonly SearchClause[]): string {
  if (text.length <= SNIPPET_LENGTH) return text;
  const at = Math.max(0, firstOccurrence(text, clauses));
  let start = Math.max(0, at - SNIPPET_LENGTH / 3);
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  start = Math.max(0, end - SNIPPET_LENGTH);
  // Whole words only.
  if (start > 0) start = text.indexOf(' ', start) + 1 || start;
  if (end < text.length) end = text.lastIndexOf(' ', end) > start ? text.lastIndexOf(' ', end) : end;
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}

function firstOccurrence(text: string, clauses: readonly SearchClause[]): number {
  const stems = new Set(clauses.filter((c) => c.kind === 'word').map((c) => c.key));
  let first = Number.POSITIVE_INFINITY;
  for (const clause of clauses) {
    if (clause.kind === 'phrase') {
      const at = folded(text).indexOf(clause.key);
      if (at >= 0) first = Math.min(first, at);
    }
  }
  for (const word of text.matchAll(/[\p{L}\p{N}\p{M}']+/gu)) {
    if (word.index >= first) break;
    if (stemsOf(word[0]).some((s) => stems.has(s))) return word.index;
  }
  return Number.isFinite(first) ? first : 0;
}
