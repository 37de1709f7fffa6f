/**
 * A RecordingDownload in the public shape (docs/api/compatibility.md), from the RestDownload
 * selection of fragments.graphql: the answers of the download endpoints and the body POSTed to a
 * download's destination_url.
 */
import type * as z from 'zod';
import { lower } from './enums.js';
import type { RestDownloadFileFragment, RestDownloadFragment } from './fragments.generated.js';
import type * as S from './schemas.js';

const restFile = (f: RestDownloadFileFragment): z.output<typeof S.RecordingDownloadFile> => ({
  url: f.url,
  content_type: f.contentType,
  file_size_bytes: f.fileSizeBytes,
  expires_at: f.expiresAt,
});

/** Absent parts are left out, as the public API does, rather than null. */
export function restDownload(d: RestDownloadFragment): z.output<typeof S.RecordingDownload> {
  return {
    download_id: d.id,
    recording_id: d.recordingId,
    status: lower(d.status),
    ...(d.video ? { video: restFile(d.video) } : {}),
    ...(d.audio ? { audio: restFile(d.audio) } : {}),
    ...(d.failureReason ? { failure_reason: lower(d.failureReason) } : {}),
  };
}
