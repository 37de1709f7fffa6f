/**
 * A transcript read a page at a time: only the page's entries come from the database (a `$slice`
 * of the stored lines), and a page of meetings asking for the same window is one query. The
 * cursor is the position after the page's last line, for that meeting's transcript only (a list
 * that exists once per parent, as pagination.ts says: another meeting's cursor starts over).
 */
import type { Collections } from '../db/collections.js';
import type { TranscriptEntryDoc } from '../db/documents.js';
import { type TranscriptEntryJson, transcriptEntryJsonOf } from './content.js';
import { DomainError } from './errors.js';
import { invalidCursorMessage, Keyset, type Page, type PageRequest, pageSize } from './pagination.js';

/** Lines `from` (0-based) on, `count` of them, of each recording's transcript: one query. */
export async function transcriptWindows(
  collections: Collections,
  recordingIds: readonly number[],
  from: number,
  count: number,
): Promise<Map<number, TranscriptEntryDoc[]>> {
  const docs = await collections.transcripts
    .find(
      { recordingId: { $in: [...recordingIds] } },
      { projection: { _id: 0, recordingId: 1, entries: { $slice: [from, count] } } },
    )
    .toArray();
  return new Map(docs.map((d) => [d.recordingId, d.entries]));
}

const keysetOf = (recordingId: number) =>
  new Keyset('transcript', [['line', 1, 'number']], 'transcript', String(recordingId));

/** Where a page starts: the line after the cursor's, or the first. */
export function transcriptWindow(recordingId: number, request: PageRequest): { from: number; limit: number } {
  const limit = pageSize(request.first);
  const line = keysetOf(recordingId).position(request.after)?.[0] as number | undefined;
  // A line number, never a negative one: `$slice` would count that from the end.
  if (line !== undefined && !(Number.isInteger(line) && line >= 0))
    throw new DomainError('BAD_USER_INPUT', invalidCursorMessage);
  return { from: line === undefined ? 0 : line + 1, limit };
}

/** A page from the window's lines (one more than the page, when there are more). */
export function transcriptPage(
  recordingId: number,
  { from, limit }: { from: number; limit: number },
  lines: readonly TranscriptEntryDoc[],
): Page<TranscriptEntryJson> {
  const keyset = keysetOf(recordingId);
  const items = lines.slice(0, limit);
  return {
    items: items.map(transcriptEntryJsonOf),
    cursors: items.map((_, i) => keyset.cursorOf({ line: from + i })),
    hasNextPage: lines.length > limit,
    limit,
  };
}
