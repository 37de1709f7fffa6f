/**
 * The bodies the worker sends, built once per message (then stored and re-sent byte for byte):
 *
 * - webhook event: the bare Meeting object in the REST shape (docs/api/compatibility.md), with the parts the
 *   webhook's include flags ask for, and CRM matches from the owner's CRM;
 * - transcript delivery: `{"transcript": [...], "recording_id": N}`;
 * - summary delivery: `{"summary": {...}, "recording_id": N}`;
 * - download delivery: the RecordingDownload, as the download endpoints answer it.
 *
 * One implementation of the Meeting: a GraphQL document executed through the schema as the
 * webhook owner (or the caller who asked for the delivery), with a context made like yoga.ts's
 * (same per-request loaders, same visibility), mapped to snake_case by the REST door's own mapper.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { execute, type GraphQLError } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { withSharedFragments } from '../../rest-compat/documents.js';
import { restDownload } from '../../rest-compat/download.js';
import { type Includes, includeVariables, noIncludes, restMeeting } from '../../rest-compat/meeting.js';
import type { RestGetDownloadQuery, RestMeetingFragment } from '../../rest-compat/operations.generated.js';
import type { Collections } from '../db/collections.js';
import type { OutboxDoc, WebhookDoc } from '../db/documents.js';
import { serialiseJson } from '../domain/raw-json.js';
import type { Viewer } from '../domain/viewer.js';
import { queryContext } from '../graphql/context.js';
import { createLoaders, type Loaders } from '../graphql/loaders.js';
import { schema } from '../graphql/schema/index.js';

// The REST door's own RestMeeting selection (rest-compat/operations/fragments.graphql), completed
// and validated when this module loads. The meeting is looked up by node id, through the viewer's
// meetings loader: the worker's visibility check has already loaded it, so a batch of bodies costs
// no meeting read of its own.
const { document: meetingQuery } = withSharedFragments(
  schema,
  /* GraphQL */ `
    query DeliveryMeeting(
      $id: ID!
      $includeTranscript: Boolean!
      $includeSummary: Boolean!
      $includeActionItems: Boolean!
      $includeHighlights: Boolean!
      $includeCrmMatches: Boolean!
    ) {
      node(id: $id) {
        ... on Meeting {
          ...RestMeeting
        }
      }
    }
  `,
  'the delivery payload document (src/delivery/payload.ts)',
);

// The REST door's RestDownload selection, for the body POSTed to a download's destination_url.
const { document: downloadQuery } = withSharedFragments(
  schema,
  /* GraphQL */ `
    query DeliveryDownload($id: String!, $recordingId: Int!) {
      download(id: $id, recordingId: $recordingId) {
        ...RestDownload
      }
    }
  `,
  'the download delivery document (src/delivery/payload.ts)',
);

/**
 * The download as the credential that requested it sees it (a download is private to it), in the
 * REST shape; null when it or the recording is no longer there for them.
 */
async function restDownloadAs(
  collections: Collections,
  viewer: Viewer,
  message: OutboxDoc,
  loaders?: Loaders,
): Promise<ReturnType<typeof restDownload> | null> {
  const download = await collections.downloads.findOne(
    { _id: message.downloadId, requestedBy: viewer.user._id },
    { projection: { credentialId: 1 } },
  );
  if (!download) return null;
  const result = await execute({
    schema,
    document: downloadQuery,
    contextValue: queryContext(collections, { ...viewer, credentialId: download.credentialId }, loaders),
    variableValues: { id: message.downloadId, recordingId: message.recordingId },
  });
  failOnErrors(result.errors, message.recordingId);
  const found = (result.data as RestGetDownloadQuery | undefined)?.download ?? null;
  return found && restDownload(found);
}

function failOnErrors(errors: readonly GraphQLError[] | undefined, recordingId: number): void {
  if (!errors?.length) return;
  const messages = errors.map((e: GraphQLError) => e.originalError?.message ?? e.message);
  throw new Error(`building the payload of recording ${recordingId} failed: ${messages.join('; ')}`);
}

/** A webhook's include flags as REST's; webhooks have no highlights flag. */
const webhookIncludes = (webhook: WebhookDoc): Includes => ({
  ...noIncludes,
  include_transcript: webhook.includeTranscript,
  include_summary: webhook.includeSummary,
  include_action_items: webhook.includeActionItems,
  include_crm_matches: webhook.includeCrmMatches,
});

/**
 * The document compiled once by graphql-jit (as the doors run their hot queries, see
 * src/graphql/compiled-execution.ts): a burst builds thousands of bodies, several times faster
 * than graphql-js interprets them. graphql-js runs it should graphql-jit refuse it.
 */
const compiled = compileQuery(schema, meetingQuery);
const run = (contextValue: unknown, variableValues: Record<string, unknown>) =>
  isCompiledQuery(compiled)
    ? compiled.query(undefined, contextValue, variableValues)
    : execute({ schema, document: meetingQuery, contextValue, variableValues });

/**
 * The meeting as `viewer` sees it, in the REST shape; null when the viewer may not see it.
 * `loaders` (the viewer's) may be shared by several bodies built in a short while.
 */
export async function restMeetingAs(
  collections: Collections,
  viewer: Viewer,
  recordingId: number,
  include: Includes,
  loaders: Loaders = createLoaders(collections, viewer),
): Promise<ReturnType<typeof restMeeting> | null> {
  const contextValue = queryContext(collections, viewer, loaders);
  const result = await run(contextValue, {
    id: encodeGlobalID('Meeting', recordingId),
    ...includeVariables(include),
  });
  failOnErrors(result.errors, recordingId);
  const meeting = (result.data as { node: RestMeetingFragment | null } | undefined)?.node ?? null;
  return meeting && restMeeting(meeting, include);
}

/**
 * The JSON body of `message`, built as `viewer` (the webhook owner, or who asked for the
 * delivery); null when the viewer may not see the recording (any more).
 */
export async function buildBody(
  collections: Collections,
  message: OutboxDoc,
  viewer: Viewer,
  webhook: WebhookDoc | null,
  loaders?: Loaders,
): Promise<string | null> {
  const { recordingId } = message;
  switch (message.kind) {
    case 'webhook_event': {
      if (!webhook) return null;
      const meeting = await restMeetingAs(
        collections,
        viewer,
        recordingId,
        webhookIncludes(webhook),
        loaders,
      );
      return meeting && serialiseJson(meeting).toString();
    }
    case 'transcript_delivery': {
      const meeting = await restMeetingAs(
        collections,
        viewer,
        recordingId,
        { ...noIncludes, include_transcript: true },
        loaders,
      );
      return (
        meeting &&
        serialiseJson({ transcript: meeting.transcript ?? [], recording_id: recordingId }).toString()
      );
    }
    case 'summary_delivery': {
      const meeting = await restMeetingAs(
        collections,
        viewer,
        recordingId,
        { ...noIncludes, include_summary: true },
        loaders,
      );
      return (
        meeting &&
        serialiseJson({ summary: meeting.default_summary ?? null, recording_id: recordingId }).toString()
      );
    }
    case 'download_delivery': {
      const download = await restDownloadAs(collections, viewer, message, loaders);
      return download && serialiseJson(download).toString();
    }
  }
}
