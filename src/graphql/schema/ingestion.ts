/**
 * `ingestRecording`: stores one recording with its content, for the recording pipeline. Only the
 * ingestion service may call it: `Authorization: Bearer <token>` whose SHA-256 is configured as
 * INGEST_TOKEN_SHA256 (recognised with the other credentials, src/domain/viewer.ts); API keys and
 * connected apps are refused.
 */
import { DomainError } from '../../domain/errors.js';
import { ingestRecording } from '../../domain/ingestion.js';
import type { StoredRecording } from '../../domain/recordings.js';
import { builder } from '../builder.js';

const IngestRecordingPayload = builder.objectRef<StoredRecording>('IngestRecordingPayload').implement({
  fields: (t) => ({
    recordingId: t.int({ resolve: (r) => r.meeting.recordingId }),
    contentReady: t.boolean({
      description: 'The recording has its summary (now or from an earlier ingestion).',
      resolve: (r) => r.meeting.contentReadyAt !== null,
    }),
    becameReady: t.boolean({
      description: 'This ingestion made its content ready: webhook events and live updates fired.',
      resolve: (r) => r.becameReady,
    }),
    eventsQueued: t.int({
      description: 'Webhook events queued by this ingestion.',
      resolve: (r) => r.eventsQueued,
    }),
  }),
});

builder.mutationField('ingestRecording', (t) =>
  t.field({
    type: IngestRecordingPayload,
    skipTypeScopes: true,
    authScopes: { ingestionService: true },
    description:
      'Stores a recording with its content (service credential only). Storing one that exists updates it; webhooks fire once, the first time it is stored with its summary.',
    args: {
      recording: t.arg.string({
        required: true,
        description:
          'The recording as JSON in the seed meeting format (seeds/format.ts: snake_case, recording_id, recorded_by, sharing, content).',
      }),
    },
    resolve: (_root, { recording }, context) => {
      let json: unknown;
      try {
        json = JSON.parse(recording);
      } catch (error) {
        throw new DomainError('BAD_USER_INPUT', `recording is not JSON: ${(error as Error).message}`);
      }
      return ingestRecording(context.collections, json, { references: context.services.references });
    },
  }),
);
