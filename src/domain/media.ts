/**
 * A recording's media file (video or audio): stored once per content, by its SHA-256, and swapped
 * in on the meeting, the file it replaces removed. `npm run ingest -- --media` and the
 * ingestRecording mutation's `media` upload both come here.
 */
import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { MediaKind, MeetingMediaDoc, PendingChangeDoc } from '../db/documents.js';
import type { MediaStore } from '../db/media-store.js';
import { logChanges } from './change-log.js';
import { DomainError } from './errors.js';
import { audienceOf } from './visibility.js';

export interface MediaSource {
  /** As the uploader declared it, e.g. `video/mp4`. */
  contentType: string;
  /** The bytes from the start; called twice (the digest, then the store), so a file is not held in memory. */
  open(): AsyncIterable<Uint8Array>;
}

/** Bytes already in memory (a generated file, an upload a parser holds) as a source. */
export function mediaInMemory(contentType: string, bytes: Uint8Array): MediaSource {
  return {
    contentType,
    open: async function* () {
      yield bytes;
    },
  };
}

const contentTypePattern = /^(video|audio)\/[\w.+-]+$/i;

/** `video` or `audio` by a content type's top-level type; anything else is refused. */
export function mediaKindOf(contentType: string): MediaKind {
  const match = contentTypePattern.exec(contentType);
  if (!match)
    throw new DomainError(
      'BAD_USER_INPUT',
      `A recording's media must be video or audio (e.g. video/mp4, audio/mpeg), not "${contentType}".`,
    );
  return match[1]!.toLowerCase() as MediaKind;
}

async function digestOf(bytes: AsyncIterable<Uint8Array>): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of bytes) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * Stores `source` as the media of recording `recordingId` (which must exist). The same bytes with
 * the same content type change nothing; other bytes replace the file.
 */
export async function storeMedia(
  collections: Collections,
  store: MediaStore,
  recordingId: number,
  source: MediaSource,
): Promise<{ media: MeetingMediaDoc; changed: boolean }> {
  const contentType = source.contentType.toLowerCase();
  const kind = mediaKindOf(contentType);
  const meeting = await collections.meetings.findOne({ recordingId }, { projection: { media: 1 } });
  if (!meeting) throw new DomainError('NOT_FOUND', `No recording with id ${recordingId}.`);
  const { sha256, size } = await digestOf(source.open());
  if (size === 0) throw new DomainError('BAD_USER_INPUT', 'The media file is empty.');
  const stored = meeting.media;
  if (stored && stored.sha256 === sha256 && stored.contentType === contentType)
    return { media: stored, changed: false };
  const { fileId } = await store.write(source.open(), `recording-${recordingId}`, {
    recordingId,
    contentType,
  });
  const now = new Date();
  const media: MeetingMediaDoc = { fileId, kind, contentType, size, sha256, storedAt: now };
  // A content change of its own, logged as storeRecordings logs one (change-log.ts).
  const pending: PendingChangeDoc = { id: new ObjectId(), kinds: ['content'], since: now };
  const changed = await collections.meetings.findOneAndUpdate(
    { recordingId },
    { $set: { media, pendingChange: pending } },
    { returnDocument: 'after' },
  );
  if (changed) {
    const audience = audienceOf(changed);
    const change = { recordingId, orgId: changed.orgId, pending, before: audience, after: audience };
    await logChanges(collections, [change], now);
  }
  // Links already made to the old file stop working (404): its bytes are no longer the recording's.
  if (stored) await store.remove(stored.fileId);
  return { media, changed: true };
}
