/**
 * The bodies the worker sends, built once per message (then stored and re-sent byte for byte):
 *
 * - webhook event: the bare Meeting object in the REST shape (compat.md), with the parts the
 *   webhook's include flags ask for, and CRM matches from the owner's CRM;
 * - transcript delivery: `{"transcript": [...], "recording_id": N}`;
 * - summary delivery: `{"summary": {...}, "recording_id": N}`.
 *
 * One implementation of the Meeting: a GraphQL document executed through the schema as the
 * webhook owner (or the caller who asked for the delivery), with a context made like yoga.ts's
 * (same per-request loaders, same visibility), mapped to snake_case by the REST door's own mapper.
 */
import { execute, type GraphQLError, parse, validate } from 'graphql';
import { restMeeting } from '../../rest-compat/routes.js';
import type { Collections } from '../db/collections.js';
import type { OutboxDoc, WebhookDoc } from '../db/documents.js';
import type { Viewer } from '../domain/viewer.js';
import { queryContext } from '../graphql/context.js';
import { createLoaders, type Loaders } from '../graphql/loaders.js';
import { schema } from '../graphql/schema/index.js';

const meetingQuery = parse(/* GraphQL */ `
  query DeliveryMeeting(
    $recordingId: Int!
    $includeTranscript: Boolean!
    $includeSummary: Boolean!
    $includeActionItems: Boolean!
    $includeCrmMatches: Boolean!
  ) {
    meeting(recordingId: $recordingId) {
      title
      meetingTitle
      meetingType
      recordingId
      url
      shareUrl
      createdAt
      scheduledStartTime
      scheduledEndTime
      recordingStartTime
      recordingEndTime
      calendarInviteesDomainsType
      sharedWith
      transcriptLanguage
      meetingUrl
      calendarInvitees {
        name
        email
        emailDomain
        isExternal
        matchedSpeakerDisplayName @include(if: $includeTranscript)
      }
      recordedBy {
        name
        email
        emailDomain
        team
      }
      transcript @include(if: $includeTranscript) {
        speaker {
          display_name: displayName
          matched_calendar_invitee_email: matchedCalendarInviteeEmail
        }
        text
        timestamp
      }
      defaultSummary @include(if: $includeSummary) {
        templateName
        markdownFormatted
      }
      actionItems @include(if: $includeActionItems) {
        description
        userGenerated
        completed
        recordingTimestamp
        recordingPlaybackUrl
        assignee {
          name
          email
          team
        }
      }
      crmMatches @include(if: $includeCrmMatches) {
        contacts {
          name
          email
          recordUrl
        }
        companies {
          name
          recordUrl
        }
        deals {
          name
          amount
          recordUrl
        }
        error
      }
    }
  }
`);

const problems = validate(schema, meetingQuery);
if (problems.length > 0) {
  throw new Error(
    `the delivery payload document does not validate: ${problems.map((p) => p.message).join('; ')}`,
  );
}

type GqlMeeting = Parameters<typeof restMeeting>[0];

interface Includes {
  transcript: boolean;
  summary: boolean;
  actionItems: boolean;
  crmMatches: boolean;
}

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
  const result = await execute({
    schema,
    document: meetingQuery,
    contextValue,
    variableValues: {
      recordingId,
      includeTranscript: include.transcript,
      includeSummary: include.summary,
      includeActionItems: include.actionItems,
      includeCrmMatches: include.crmMatches,
    },
  });
  if (result.errors?.length) {
    const messages = result.errors.map((e: GraphQLError) => e.originalError?.message ?? e.message);
    throw new Error(`building the payload of recording ${recordingId} failed: ${messages.join('; ')}`);
  }
  const meeting = (result.data as { meeting: GqlMeeting | null } | undefined)?.meeting ?? null;
  if (!meeting) return null;
  return restMeeting(meeting, {
    include_transcript: include.transcript,
    include_summary: include.summary,
    include_action_items: include.actionItems,
    include_highlights: false,
    include_crm_matches: include.crmMatches,
  });
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
        {
          transcript: webhook.includeTranscript,
          summary: webhook.includeSummary,
          actionItems: webhook.includeActionItems,
          crmMatches: webhook.includeCrmMatches,
        },
        loaders,
      );
      return meeting && JSON.stringify(meeting);
    }
    case 'transcript_delivery': {
      const meeting = await restMeetingAs(
        collections,
        viewer,
        recordingId,
        {
          transcript: true,
          summary: false,
          actionItems: false,
          crmMatches: false,
        },
        loaders,
      );
      return meeting && JSON.stringify({ transcript: meeting.transcript ?? [], recording_id: recordingId });
    }
    case 'summary_delivery': {
      const meeting = await restMeetingAs(
        collections,
        viewer,
        recordingId,
        {
          transcript: false,
          summary: true,
          actionItems: false,
          crmMatches: false,
        },
        loaders,
      );
      return (
        meeting && JSON.stringify({ summary: meeting.default_summary ?? null, recording_id: recordingId })
      );
    }
  }
}
