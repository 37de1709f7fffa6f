/**
 * Deleting a recording: the ingestion service's `deleteRecording` mutation and `npm run ingest --
 * --delete` come here. The meeting is marked (its mark carries who could see it), the deletion is
 * logged (the change feed keeps it as a tombstone for the retention window), then its content,
 * media, downloads and pending deliveries go, and the meeting last: a process that dies part way
 * leaves the mark, and a worker's sweep (finishPendingChanges) finishes the job. Deleting what is
 * not there (never stored, or deleted already) changes nothing.
 */
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import { contentKinds, type MeetingDoc, type PendingChangeDoc } from '../db/documents.js';
import type { MediaStore } from '../db/media-store.js';
import { logChanges, markedChange } from './change-log.js';

type Marked = MeetingDoc & { pendingChange: PendingChangeDoc };

/** Whether this call deleted the recording (false: there was nothing to delete). */
export async function deleteRecording(
  collections: Collections,
  media: MediaStore,
  recordingId: number,
  now: Date,
): Promise<boolean> {
  const mark: PendingChangeDoc = { id: new ObjectId(), kinds: ['deleted'], since: now };
  const marked = (await collections.meetings.findOneAndUpdate(
    // A deletion already under way is finished, not logged a second time.
    { recordingId, 'pendingChange.kinds': { $ne: 'deleted' } },
    { $set: { pendingChange: mark } },
    { returnDocument: 'after' },
  )) as Marked | null;
  if (marked) {
    await finishDeletion(collections, media, marked, now);
    return true;
  }
  const underWay = (await collections.meetings.findOne({ recordingId })) as Marked | null;
  if (underWay) await finishDeletion(collections, media, underWay, now);
  return false;
}

/** Logs a marked deletion (unless it is logged already), then removes what the recording had. */
async function finishDeletion(
  collections: Collections,
  media: MediaStore,
  meeting: Marked,
  now: Date,
): Promise<void> {
  await logChanges(collections, [markedChange(meeting)], now);
  const { recordingId } = meeting;
  await Promise.all([
    ...contentKinds.map((kind) => collections[kind].deleteOne({ recordingId })),
    collections.downloads.deleteMany({ recordingId }),
    collections.outbox.updateMany(
      { recordingId, status: 'pending' },
      { $set: { status: 'cancelled', lastError: 'the recording was deleted', finishedAt: now } },
    ),
    meeting.media ? media.remove(meeting.media.fileId) : undefined,
  ]);
  await collections.meetings.deleteOne({ recordingId, 'pendingChange.id': meeting.pendingChange.id });
}

/**
 * Finishes what a process that died left behind, for changes older than `graceMs`: logs the
 * changes it stored without logging them, and completes its deletions. Returns how many meetings
 * it finished.
 */
export async function finishPendingChanges(
  collections: Collections,
  media: MediaStore,
  now: Date,
  graceMs: number,
  limit = 100,
): Promise<number> {
  const cutoff = new Date(now.getTime() - graceMs);
  const left = (await collections.meetings
    // `$exists` as the index's partial filter says it (the embedded planner matches it literally).
    .find({ 'pendingChange.since': { $exists: true, $lte: cutoff } })
    .limit(limit)
    .toArray()) as Marked[];
  const deletions = left.filter((m) => m.pendingChange.kinds.includes('deleted'));
  await logChanges(collections, left.filter((m) => !deletions.includes(m)).map(markedChange), now);
  for (const meeting of deletions) await finishDeletion(collections, media, meeting, now);
  return left.length;
}
