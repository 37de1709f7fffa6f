/**
 * The recording pipeline's mutations. `ingestRecording` stores one recording with its content and,
 * sent as a GraphQL multipart request, its media file; storing it again updates it.
 * `deleteRecording` deletes one. Only the ingestion service may call them: `Authorization: Bearer
 * <token>` whose SHA-256 is configured as INGEST_TOKEN_SHA256 (recognised with the other
 * credentials, src/domain/viewer.ts); API keys and connected apps are refused.
 */

import { deleteRecording } from '../../domain/deletion.js';
import { DomainError } from '../../domain/errors.js';
import { ingestRecording } from '../../domain/ingestion.js';
import type { StoredRecording } from '../../domain/recordings.js';
import { builder } from '../builder.js';
import { Media } from './download.js';
import { MeetingChangeKind } from './meeting-change.js';

const IngestRecordingPayload = builder.objectRef<StoredRecording>('IngestRecordingPayload').implement({
  fields: (t) => ({
    recordingId: t.int({ resolve: (r) => r.meeting.recordingId }),
    contentReady: t.boolean({
      description: 'The recording has its summary (now or from an earlier ingestion).',
      resolve: (r) => r.meeting.contentReadyAt !== null,
    }),
    changes: t.field({
      type: [MeetingChangeKind],
      description:
        'What this ingestion changed, as the change feed (meetingChanges) shows it; empty when the recording was stored like this already. Media counts as a change of its own.',
      resolve: (r) => r.changes,
    }),
    becameReady: t.boolean({
      description: 'This ingestion made its content ready: webhook events and live updates fired.',
      resolve: (r) => r.becameReady,
    }),
    eventsQueued: t.int({
      description: 'Webhook events queued by this ingestion.',
      resolve: (r) => r.eventsQueued,
    }),
    media: t.field({
      type: Media,
      nullable: true,
      description: "The recording's media file, as stored now (this ingestion's, or an earlier one's).",
      resolve: (r) => r.meeting.media ?? null,
    }),
  }),
});

/** A file's bytes, through a reader: Yoga's File may come from its fetch ponyfill, not Node's. */
async function* bytesOf(file: File): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
  } finally {
    reader.releaseLock();
  }
}

builder.mutationField('ingestRecording', (t) =>
  t.field({
    type: IngestRecordingPayload,
    skipTypeScopes: true,
    authScopes: { ingestionService: true },
    description:
      'Stores a recording with its content, and its media file when one is uploaded (service credential only). Storing one that exists updates it; webhooks fire once, the first time it is stored with its summary.',
    args: {
      recording: t.arg.string({
        required: true,
        description:
          'The recording as JSON in the seed meeting format (seeds/format.ts: snake_case, recording_id, recorded_by, sharing, content).',
      }),
      media: t.arg({
        type: 'File',
        required: false,
        description:
          'Its video or audio file (a multipart request; its content type says which). The same file again changes nothing; another replaces it.',
      }),
    },
    resolve: (_root, { recording, media }, context) => {
      let json: unknown;
      try {
        json = JSON.parse(recording);
      } catch (error) {
        throw new DomainError('BAD_USER_INPUT', `recording is not JSON: ${(error as Error).message}`);
      }
      return ingestRecording(
        context.collections,
        json,
        { references: context.services.references, hint: context.services.outboxHint },
        media
          ? { store: context.services.media, source: { contentType: media.type, open: () => bytesOf(media) } }
          : undefined,
      );
    },
  }),
);

builder.mutationField('deleteRecording', (t) =>
  t.boolean({
    skipTypeScopes: true,
    authScopes: { ingestionService: true },
    description:
      'Deletes a recording with its content, media, downloads and pending deliveries (service credential only); the change feed keeps it as a DELETED change. True when this call deleted it, false when there was nothing to delete (never stored, or deleted already): deleting twice is no error.',
    args: { recordingId: t.arg.int({ required: true }) },
    resolve: (_root, { recordingId }, context) =>
      deleteRecording(context.collections, context.services.media, recordingId, new Date()),
  }),
);
