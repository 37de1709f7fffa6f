/**
 * The bodies the worker sends, built once per message (then stored and re-sent byte for byte):
 *
 * - webhook event: the bare Meeting object in the public shape (docs/api/compatibility.md), with the parts the
 *   webhook's include flags ask for, and CRM matches from the owner's CRM;
 * - change event (opted in): Standard Webhooks' `{type, timestamp, data}`, `data` the recording id
 *   with what changed and the Meeting as above (`meeting.updated`), or why it is gone
 *   (`meeting.deleted`);
 * - transcript delivery: `{"transcript": [...], "recording_id": N}`;
 * - summary delivery: `{"summary": {...}, "recording_id": N}`;
 * - download delivery: the RecordingDownload, as the download endpoints answer it.
 *
 * One implementation of the Meeting: a GraphQL document spreading the public shape's selections
 * (src/representation/fragments.graphql), run through the doors' own execution (limits, the
 * compiled executor, error masking: src/graphql/execution.ts) as the webhook owner (or the caller
 * who asked for the delivery), with a context made like yoga.ts's (same per-request loaders, same
 * visibility), and mapped to the public shape by the REST door's own mappers.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { ExecutionResult } from 'graphql';
import type { Collections } from '../db/collections.js';
import type { OutboxDoc, WebhookDoc } from '../db/documents.js';
import { serialiseJson } from '../domain/raw-json.js';
import type { Viewer } from '../domain/viewer.js';
import { queryContext } from '../graphql/context.js';
import type { Executor, PreparedDocument } from '../graphql/execution.js';
import { createLoaders, type Loaders } from '../graphql/loaders.js';
import { schema } from '../graphql/schema/index.js';
import { restDownload } from '../representation/download.js';
import type { RestDownloadFragment, RestMeetingFragment } from '../representation/fragments.generated.js';
import { withSharedFragments } from '../representation/fragments.js';
import { type Includes, includeVariables, noIncludes, restMeeting } from '../representation/meeting.js';

// The meeting is looked up by node id, through the viewer's meetings loader: the worker's
// visibility check has already loaded it, so a batch of bodies costs no meeting read of its own.
const meetingDocument = /* GraphQL */ `
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
`;

// For the body POSTed to a download's destination_url.
const downloadDocument = /* GraphQL */ `
  query DeliveryDownload($id: String!, $recordingId: Int!) {
    download(id: $id, recordingId: $recordingId) {
      ...RestDownload
    }
  }
`;

/** A webhook's include flags as REST's; webhooks have no highlights flag. */
const webhookIncludes = (webhook: WebhookDoc): Includes => ({
  ...noIncludes,
  include_transcript: webhook.includeTranscript,
  include_summary: webhook.includeSummary,
  include_action_items: webhook.includeActionItems,
  include_crm_matches: webhook.includeCrmMatches,
});

/**
 * The result's data; a masked error (logged by the masking, an outage kept as its cause so the
 * worker backs off) fails the body, which is built again on the message's next try.
 */
function dataOf<T>(result: ExecutionResult, recordingId: number): T | undefined {
  const [error] = result.errors ?? [];
  if (error)
    throw new Error(`building the payload of recording ${recordingId} failed: ${error.message}`, {
      cause: error.originalError ?? error,
    });
  return (result.data ?? undefined) as T | undefined;
}

export class Payloads {
  private readonly meeting: PreparedDocument;
  private readonly download: PreparedDocument;

  /** Completes and checks both documents: a broken one stops the worker at start. */
  constructor(
    private readonly collections: Collections,
    private readonly executor: Executor,
  ) {
    const prepare = (source: string, where: string) =>
      executor.prepare(withSharedFragments(schema, source, where).source, where);
    this.meeting = prepare(meetingDocument, 'the delivery payload document (src/delivery/payload.ts)');
    this.download = prepare(downloadDocument, 'the download delivery document (src/delivery/payload.ts)');
  }

  /**
   * The meeting as `viewer` sees it, in the public shape; null when the viewer may not see it.
   * `loaders` (the viewer's) may be shared by several bodies built in a short while.
   */
  private async meetingAs(
    viewer: Viewer,
    recordingId: number,
    include: Includes,
    loaders: Loaders = createLoaders(this.collections, viewer),
    extensions = true,
  ): Promise<ReturnType<typeof restMeeting> | null> {
    const result = await this.executor.run(this.meeting, queryContext(this.collections, viewer, loaders), {
      id: encodeGlobalID('Meeting', recordingId),
      ...includeVariables(include),
    });
    const meeting = dataOf<{ node: RestMeetingFragment | null }>(result, recordingId)?.node ?? null;
    return meeting && restMeeting(meeting, include, { extensions });
  }

  /**
   * The download as the credential that requested it sees it (a download is private to it), in
   * the public shape; null when it or the recording is no longer there for them.
   */
  private async downloadAs(
    viewer: Viewer,
    message: OutboxDoc,
    loaders?: Loaders,
  ): Promise<ReturnType<typeof restDownload> | null> {
    const download = await this.collections.downloads.findOne(
      { _id: message.downloadId, requestedBy: viewer.user._id },
      { projection: { credentialId: 1 } },
    );
    if (!download) return null;
    const contextValue = queryContext(
      this.collections,
      { ...viewer, credentialId: download.credentialId },
      loaders,
    );
    const result = await this.executor.run(this.download, contextValue, {
      id: message.downloadId,
      recordingId: message.recordingId,
    });
    const found =
      dataOf<{ download: RestDownloadFragment | null }>(result, message.recordingId)?.download ?? null;
    return found && restDownload(found);
  }

  /**
   * The JSON body of `message`, built as `viewer` (the webhook owner, or who asked for the
   * delivery); null when the viewer may not see the recording (any more).
   */
  async build(
    message: OutboxDoc,
    viewer: Viewer,
    webhook: WebhookDoc | null,
    loaders?: Loaders,
  ): Promise<string | null> {
    const { recordingId } = message;
    switch (message.kind) {
      case 'webhook_event': {
        if (!webhook) return null;
        const meeting = await this.meetingAs(viewer, recordingId, webhookIncludes(webhook), loaders, false);
        return meeting && serialiseJson(meeting).toString();
      }
      case 'transcript_delivery': {
        const meeting = await this.meetingAs(
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
        const meeting = await this.meetingAs(
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
      case 'change_event': {
        const change = message.change;
        if (!webhook || !change) return null;
        const event = (data: object) =>
          serialiseJson({ type: change.type, timestamp: change.at.toISOString(), data }).toString();
        if (change.type === 'meeting.deleted')
          return event({ recording_id: recordingId, reason: change.reason ?? 'deleted' });
        const meeting = await this.meetingAs(viewer, recordingId, webhookIncludes(webhook), loaders);
        return meeting && event({ recording_id: recordingId, changes: change.kinds, meeting });
      }
      case 'download_delivery': {
        const download = await this.downloadAs(viewer, message, loaders);
        return download && serialiseJson(download).toString();
      }
    }
  }
}
