/**
 * Downloads of a recording's media file (the public API's `POST /recordings/{id}/download` and
 * `GET /recordings/{id}/downloads/{download_id}`). A download belongs to the credential that asked
 * for it: to anyone else, and to a caller who may no longer see the recording, it does not exist.
 * The media is stored ready to serve (GridFS), so a download completes as it is made, with a signed
 * link (media-links.ts) that works for a day; after that, or once the recording's media was
 * replaced, it reads `expired`, and a new download gives a new link.
 */
import type { Collections } from '../db/collections.js';
import type { DownloadDoc, MediaKind, MeetingDoc } from '../db/documents.js';
import { randomBase62 } from './api-key-format.js';
import type { DestinationCheck } from './deliveries.js';
import { DomainError } from './errors.js';
import { LINK_LIFETIME_MS, type MediaLinks } from './media-links.js';
import { findMeeting } from './meetings.js';
import { type OutboxHint, queueDelivery } from './outbox.js';
import { requireDestinationUrl } from './urls.js';
import type { Viewer } from './viewer.js';

/** `processing` and `failed` are the public API's, for media it must generate first; ours never is. */
export type DownloadStatus = 'processing' | 'completed' | 'failed' | 'expired';

/** A download as both doors show it (the public API's RecordingDownload). */
export interface RecordingDownload {
  downloadId: string;
  recordingId: number;
  status: DownloadStatus;
  kind: MediaKind;
  /** The file while its link works (status `completed`). */
  file: { url: string; contentType: string; fileSizeBytes: number; expiresAt: Date } | null;
  failureReason: 'generation_failed' | 'generation_timeout' | null;
  createdAt: Date;
}

/** The download as it stands at `now`, of a recording whose media is now `meeting.media`. */
function downloadOf(doc: DownloadDoc, meeting: MeetingDoc, now: Date): RecordingDownload {
  const current = doc.expiresAt > now && meeting.media?.fileId.equals(doc.fileId) === true;
  return {
    downloadId: doc._id,
    recordingId: doc.recordingId,
    status: current ? 'completed' : 'expired',
    kind: doc.kind,
    file: current
      ? { url: doc.url, contentType: doc.contentType, fileSizeBytes: doc.size, expiresAt: doc.expiresAt }
      : null,
    failureReason: null,
    createdAt: doc.createdAt,
  };
}

export async function requestDownload(
  collections: Collections,
  viewer: Viewer,
  recordingId: number,
  destinationUrl: string | null,
  check: DestinationCheck,
  links: MediaLinks,
  /** Told of the delivery to `destinationUrl`, when there is one. */
  hint: OutboxHint,
): Promise<RecordingDownload> {
  const url = destinationUrl === null ? null : requireDestinationUrl(destinationUrl, 'destination_url');
  const meeting = await findMeeting(collections, viewer, recordingId);
  if (!meeting) throw new DomainError('NOT_FOUND', `No recording with id ${recordingId}.`);
  if (url) await check(url, 'destination_url');
  const { media } = meeting;
  if (!media) throw new DomainError('UNPROCESSABLE', `Recording ${recordingId} has no downloadable media.`);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS);
  const doc: DownloadDoc = {
    _id: `dl_${randomBase62(24)}`,
    recordingId,
    credentialId: viewer.credentialId,
    requestedBy: viewer.user._id,
    createdAt: now,
    kind: media.kind,
    fileId: media.fileId,
    contentType: media.contentType,
    size: media.size,
    url: links.linkTo(media.fileId, expiresAt),
    expiresAt,
  };
  await collections.downloads.insertOne(doc);
  if (url)
    await queueDelivery(
      collections,
      {
        kind: 'download_delivery',
        recordingId,
        requestedBy: viewer.user._id,
        destinationUrl: url,
        downloadId: doc._id,
      },
      now,
      hint,
    );
  return downloadOf(doc, meeting, now);
}

/**
 * The caller's download `downloadId` (of recording `recordingId` when given); null when it is not
 * theirs, not of that recording, or of a recording they may no longer see.
 */
export async function findDownload(
  collections: Collections,
  viewer: Viewer,
  downloadId: string,
  recordingId?: number,
): Promise<RecordingDownload | null> {
  const doc = await collections.downloads.findOne({ _id: downloadId, credentialId: viewer.credentialId });
  if (!doc || (recordingId !== undefined && doc.recordingId !== recordingId)) return null;
  const meeting = await findMeeting(collections, viewer, doc.recordingId);
  return meeting && downloadOf(doc, meeting, new Date());
}
