/**
 * A recording's media and its downloads: `Meeting.media`, `requestDownload` and `download(id)`,
 * which the REST door's `POST /recordings/{id}/download` and `GET .../downloads/{id}` run too.
 */
import type { MediaKind, MeetingMediaDoc } from '../../db/documents.js';
import {
  type RecordingDownload as Download,
  type DownloadStatus,
  findDownload,
  requestDownload,
} from '../../domain/downloads.js';
import { builder } from '../builder.js';
import { viewerOf } from '../context.js';
import { Meeting } from './meeting.js';

const MediaKindEnum = builder.enumType('MediaKind', {
  values: {
    VIDEO: { value: 'video' },
    AUDIO: { value: 'audio' },
  } as const satisfies Record<string, { value: MediaKind }>,
});

export const Media = builder.objectRef<MeetingMediaDoc>('Media').implement({
  description: "A recording's media file. Download it with requestDownload.",
  fields: (t) => ({
    kind: t.field({ type: MediaKindEnum, resolve: (m) => m.kind }),
    contentType: t.exposeString('contentType', { description: 'e.g. video/mp4' }),
    sizeBytes: t.float({ description: 'The file size in bytes.', resolve: (m) => m.size }),
  }),
});

builder.objectField(Meeting, 'media', (t) =>
  t.field({
    type: Media,
    nullable: true,
    description: "The recording's media file; null when it has none (a download would be refused).",
    resolve: (m) => m.media ?? null,
  }),
);

const DownloadStatusEnum = builder.enumType('DownloadStatus', {
  description:
    "COMPLETED: the link works. EXPIRED: its link no longer works (a day passed, or the media was replaced): request a new download. PROCESSING and FAILED are the public API's, for media it must generate first; this service stores media ready to serve, so a download completes as it is made.",
  values: {
    PROCESSING: { value: 'processing' },
    COMPLETED: { value: 'completed' },
    FAILED: { value: 'failed' },
    EXPIRED: { value: 'expired' },
  } as const satisfies Record<string, { value: DownloadStatus }>,
});

const DownloadFailureEnum = builder.enumType('DownloadFailureReason', {
  values: {
    GENERATION_FAILED: { value: 'generation_failed' },
    GENERATION_TIMEOUT: { value: 'generation_timeout' },
  } as const satisfies Record<string, { value: NonNullable<Download['failureReason']> }>,
});

const DownloadFile = builder.objectRef<NonNullable<Download['file']>>('DownloadFile').implement({
  fields: (t) => ({
    url: t.exposeString('url', {
      description:
        'A signed link that streams the file (Range requests welcome) until expiresAt, to whoever holds it: keep it private.',
    }),
    contentType: t.exposeString('contentType'),
    fileSizeBytes: t.exposeFloat('fileSizeBytes'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

const RecordingDownload = builder.objectRef<Download>('RecordingDownload').implement({
  description:
    "A download of a recording's media, private to the API key or token that requested it: to any other credential it does not exist.",
  fields: (t) => ({
    id: t.exposeString('downloadId', { description: 'The download id, dl_…' }),
    recordingId: t.exposeInt('recordingId'),
    status: t.field({ type: DownloadStatusEnum, resolve: (d) => d.status }),
    video: t.field({
      type: DownloadFile,
      nullable: true,
      description: 'The file of a video recording, while the link works.',
      resolve: (d) => (d.kind === 'video' ? d.file : null),
    }),
    audio: t.field({
      type: DownloadFile,
      nullable: true,
      description: 'The file of an audio-only recording, while the link works.',
      resolve: (d) => (d.kind === 'audio' ? d.file : null),
    }),
    failureReason: t.field({ type: DownloadFailureEnum, nullable: true, resolve: (d) => d.failureReason }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.mutationField('requestDownload', (t) =>
  t.field({
    type: RecordingDownload,
    description:
      "Makes a download of the recording's media: NOT_FOUND for a recording you may not see, UNPROCESSABLE (422) when it has no media. With destinationUrl the download is also POSTed there (retried like webhook events). Counted in a rate-limit bucket of its own.",
    args: {
      recordingId: t.arg.int({ required: true }),
      destinationUrl: t.arg.string({ required: false }),
    },
    resolve: (_root, args, context) =>
      requestDownload(
        context.collections,
        viewerOf(context),
        args.recordingId,
        args.destinationUrl ?? null,
        context.services.destinationCheck,
        context.services.mediaLinks,
        context.services.outboxHint,
      ),
  }),
);

builder.queryField('download', (t) =>
  t.field({
    type: RecordingDownload,
    nullable: true,
    description: 'One of your downloads (made with this credential); null for any other id.',
    args: {
      id: t.arg.string({ required: true }),
      recordingId: t.arg.int({
        required: false,
        description: 'When given, the download must be of this recording.',
      }),
    },
    resolve: (_root, args, context) =>
      findDownload(context.collections, viewerOf(context), args.id, args.recordingId ?? undefined),
  }),
);
