/**
 * A meeting's content (transcript, summary, action items, highlights) lives in one collection per
 * kind, one document per recording. Readers fetch it for a whole page at once, keyed by recording id.
 * The rules of how content is shown (playback links, highlight text) are here too, for every reader.
 */
import type { Collection } from 'mongodb';
import type { HighlightDoc } from '../db/documents.js';

interface ByRecording {
  recordingId: number;
}

/** The documents of `recordingIds`, in that order, null where there is none: one query for all. */
export async function contentByRecording<T extends ByRecording>(
  collection: Collection<T>,
  recordingIds: readonly number[],
): Promise<(T | null)[]> {
  const docs = (await collection
    .find({ recordingId: { $in: [...recordingIds] } } as never, { projection: { _id: 0 } })
    .toArray()) as unknown as T[];
  const byId = new Map(docs.map((d) => [d.recordingId, d]));
  return recordingIds.map((id) => byId.get(id) ?? null);
}

/** Seconds from the start of the recording of an `HH:MM:SS` position. */
export function secondsOf(hhmmss: string): number {
  return hhmmss.split(':').reduce((total, part) => total * 60 + Number(part), 0);
}

/** The meeting's URL at a moment of the recording: what an action item's playback link opens. */
export function playbackUrl(meetingUrl: string, hhmmss: string): string {
  const url = new URL(meetingUrl);
  url.searchParams.set('timestamp', String(secondsOf(hhmmss)));
  return url.toString();
}

/** A highlight's words, or null when they only repeat its summary (the public API leaves them out then). */
export function highlightText(highlight: Pick<HighlightDoc, 'text' | 'summary'>): string | null {
  return highlight.text === highlight.summary ? null : highlight.text;
}
