/**
 * A meeting's content (transcript, summary, action items, highlights) lives in one collection per
 * kind, one document per recording. Readers fetch it for a whole page at once, keyed by recording id.
 */
import type { Collection } from 'mongodb';

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
