/**
 * Ingestion of one recording in the recording format (recording-format.ts), with its media file
 * when one comes. `npm run ingest` and the ingestRecording mutation both come here; the seeder
 * stores its meetings through the same `storeRecordings`, in batches.
 */
import type { Collections } from '../db/collections.js';
import type { MediaStore } from '../db/media-store.js';
import { type MediaSource, mediaKindOf, storeMedia } from './media.js';
import { parseRecording } from './recording-format.js';
import { type StoredRecording, type StoreOptions, storeRecording } from './recordings.js';

export interface IngestedRecording extends StoredRecording {
  /** With media: whether it changed what was stored (the same file again does not). */
  mediaChanged?: boolean;
}

/**
 * Validates and stores one recording, then its media when given; unknown recorders, teams and
 * meeting types are BAD_USER_INPUT, and so is media that is not video or audio (before anything
 * is stored).
 */
export async function ingestRecording(
  collections: Collections,
  input: unknown,
  options?: StoreOptions,
  media?: { store: MediaStore; source: MediaSource },
): Promise<IngestedRecording> {
  const recording = parseRecording(input);
  if (media) mediaKindOf(media.source.contentType);
  const stored = await storeRecording(collections, recording, options);
  if (!media) return stored;
  const { recordingId } = stored.meeting;
  const { media: file, changed } = await storeMedia(collections, media.store, recordingId, media.source);
  return { ...stored, meeting: { ...stored.meeting, media: file }, mediaChanged: changed };
}
