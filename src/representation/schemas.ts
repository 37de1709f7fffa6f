/**
 * The REST objects of /external/v1 (docs/api/rest.md + docs/api/compatibility.md), declared once as zod schemas.
 * Each carries an OpenAPI component id: openapi.ts turns them into `components.schemas`, and the
 * tests validate every response against what comes out of that.
 */
import * as z from 'zod';

/** Every named REST object: openapi.ts emits this registry as `components.schemas`. */
export const components = z.registry<{ id: string }>();

/** A timestamp as the REST door writes it: ISO 8601 in UTC with a trailing Z. */
const timestamp = () => z.iso.datetime();
/** A position in the recording, HH:MM:SS: the pattern is described in words for the reference. */
const position = () =>
  z
    .string()
    .regex(/^\d{2,}:[0-5]\d:[0-5]\d$/)
    .meta({
      description:
        'A position in the recording: hours, minutes and seconds as HH:MM:SS (hours may exceed 99).',
      examples: ['00:19:36'],
    });

export const ErrorBody = z
  .object({ error: z.string().meta({ description: 'A message a person can act on.' }) })
  .meta({ description: 'Every error answer: 4xx and 5xx alike.' })
  .register(components, { id: 'Error' });

export const Invitee = z
  .object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    email_domain: z.string().nullable(),
    is_external: z.boolean(),
    matched_speaker_display_name: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Present only when the transcript is included.' }),
  })
  .register(components, { id: 'Invitee' });

export const Recorder = z
  .object({
    name: z.string(),
    email: z.string(),
    email_domain: z.string(),
    team: z.string().nullable(),
  })
  .meta({ description: 'The user who recorded the meeting.' })
  .register(components, { id: 'Recorder' });

export const TranscriptEntry = z
  .object({
    speaker: z.object({
      display_name: z.string(),
      matched_calendar_invitee_email: z.string().nullable(),
    }),
    text: z.string(),
    timestamp: position(),
  })
  .register(components, { id: 'TranscriptEntry' });

export const Summary = z
  .object({
    template_name: z.string(),
    markdown_formatted: z.string(),
  })
  .register(components, { id: 'Summary' });

export const ActionItem = z
  .object({
    description: z.string(),
    user_generated: z.boolean(),
    completed: z.boolean(),
    recording_timestamp: position(),
    recording_playback_url: z.url().meta({ description: 'The meeting url with ?timestamp=<seconds>.' }),
    assignee: z.object({
      name: z.string().nullable(),
      email: z.string().nullable(),
      team: z.string().nullable(),
    }),
  })
  .register(components, { id: 'ActionItem' });

export const Highlight = z
  .object({
    type: z.string().meta({ description: 'A label such as "Objection".' }),
    summary: z.string().nullable(),
    start_time: z.number().meta({ description: 'Seconds from the start of the recording.' }),
    end_time: z.number(),
    text: z.string().optional().meta({ description: 'Present only when it differs from summary.' }),
  })
  .register(components, { id: 'Highlight' });

export const CrmMatches = z
  .object({
    contacts: z.array(z.object({ name: z.string(), email: z.string(), record_url: z.string() })),
    companies: z.array(z.object({ name: z.string(), record_url: z.string() })),
    deals: z.array(
      z.object({
        name: z.string(),
        amount: z.number().meta({ description: 'In dollars.' }),
        record_url: z.string(),
      }),
    ),
    error: z.string().nullable().meta({ description: '"no CRM connected" when there is no CRM to match.' }),
  })
  .register(components, { id: 'CrmMatches' });

export const domainsTypes = ['only_internal', 'one_or_more_external'] as const;
export const sharedWithValues = ['no_teams', 'single_team', 'multiple_teams', 'all_teams'] as const;

export const Meeting = z
  .object({
    title: z.string(),
    meeting_title: z.string().nullable(),
    meeting_type: z.string().nullable().meta({ description: 'Name of the meeting type assigned.' }),
    recording_id: z.int(),
    url: z.url(),
    share_url: z.url(),
    created_at: timestamp(),
    scheduled_start_time: timestamp(),
    scheduled_end_time: timestamp(),
    recording_start_time: timestamp(),
    recording_end_time: timestamp(),
    calendar_invitees_domains_type: z.enum(domainsTypes),
    shared_with: z.enum(sharedWithValues),
    transcript_language: z.string(),
    calendar_invitees: z.array(Invitee),
    recorded_by: Recorder,
    meeting_url: z.url().nullable(),
    updated_at: timestamp().optional().meta({
      description:
        'An extension of this service: when the meeting last changed (created, content, sharing); what updated_after compares. Not in webhook events of content ready.',
    }),
    transcript: z
      .array(TranscriptEntry)
      .nullable()
      .optional()
      .meta({ description: 'With include_transcript=true; null when the recording has none.' }),
    default_summary: Summary.nullable()
      .optional()
      .meta({ description: 'With include_summary=true; null when the recording has none.' }),
    action_items: z.array(ActionItem).optional().meta({ description: 'With include_action_items=true.' }),
    highlights: z.array(Highlight).optional().meta({ description: 'With include_highlights=true.' }),
    crm_matches: CrmMatches.optional().meta({ description: 'With include_crm_matches=true.' }),
  })
  .register(components, { id: 'Meeting' });

export const Team = z
  .object({ name: z.string(), created_at: timestamp() })
  .register(components, { id: 'Team' });

export const TeamMember = z
  .object({ name: z.string(), email: z.string(), created_at: timestamp() })
  .register(components, { id: 'TeamMember' });

export const MeetingType = z
  .object({ name: z.string(), status: z.enum(['active', 'inactive']), created_at: timestamp() })
  .register(components, { id: 'MeetingType' });

export const userStatuses = ['active', 'deactivated', 'invited'] as const;
export const settingsAccessLevels = ['none', 'team_admin', 'account_admin'] as const;
export const viewAccessLevels = ['own_meetings', 'team', 'multiple_teams', 'all_teams'] as const;

export const User = z
  .object({
    name: z.string().nullable(),
    email: z.string(),
    created_at: timestamp(),
    status: z.enum(userStatuses),
    permissions: z
      .object({
        settings_access: z.object({
          level: z.enum(settingsAccessLevels),
          teams: z.array(z.string()).meta({ description: 'Team names.' }),
        }),
        view_access: z.object({
          level: z.enum(viewAccessLevels),
          teams: z.array(z.string()).meta({ description: 'Team names.' }),
        }),
      })
      .optional()
      .meta({ description: 'Left out for invited users.' }),
  })
  .register(components, { id: 'User' });

export const triggeredForValues = [
  'my_recordings',
  'shared_external_recordings',
  'my_shared_with_team_recordings',
  'shared_team_recordings',
] as const;

export const Webhook = z
  .object({
    id: z.string().meta({ description: 'The id to delete it with.' }),
    url: z.url().meta({ description: 'Where events are POSTed (destination_url of the request).' }),
    secret: z.string().meta({ description: 'whsec_ + base64 of 32 bytes; shown only at creation.' }),
    created_at: timestamp(),
    include_transcript: z.boolean(),
    include_crm_matches: z.boolean(),
    include_summary: z.boolean(),
    include_action_items: z.boolean(),
    triggered_for: z.array(z.enum(triggeredForValues)),
  })
  .register(components, { id: 'Webhook' });

export const TranscriptResponse = z
  .object({ transcript: z.array(TranscriptEntry) })
  .register(components, { id: 'TranscriptResponse' });

export const SummaryResponse = z
  .object({ summary: Summary.nullable().meta({ description: 'Null when the recording has no summary.' }) })
  .register(components, { id: 'SummaryResponse' });

export const TranscriptDelivery = z
  .object({ transcript: z.array(TranscriptEntry), recording_id: z.int() })
  .meta({ description: 'POSTed to destination_url by GET /recordings/{recording_id}/transcript.' })
  .register(components, { id: 'TranscriptDelivery' });

export const SummaryDelivery = z
  .object({
    summary: Summary.nullable().meta({ description: 'Null when the recording has no summary.' }),
    recording_id: z.int(),
  })
  .meta({ description: 'POSTed to destination_url by GET /recordings/{recording_id}/summary.' })
  .register(components, { id: 'SummaryDelivery' });

export const DeliveryResponse = z
  .object({ destination_url: z.url().meta({ description: 'Where the content will be POSTed.' }) })
  .meta({ description: 'The content is POSTed to destination_url shortly.' })
  .register(components, { id: 'DeliveryResponse' });

export const TranscriptResult = z
  .union([TranscriptResponse, DeliveryResponse])
  .register(components, { id: 'TranscriptResult' });

export const SummaryResult = z
  .union([SummaryResponse, DeliveryResponse])
  .register(components, { id: 'SummaryResult' });

export const RecordingDownloadFile = z
  .object({
    url: z.url().meta({
      description:
        'A signed link that streams the file (Range requests welcome) until expires_at, to whoever holds it.',
    }),
    content_type: z.string().meta({ description: 'e.g. video/mp4 or audio/mpeg.' }),
    file_size_bytes: z.int(),
    expires_at: timestamp(),
  })
  .register(components, { id: 'RecordingDownloadFile' });

export const downloadStatuses = ['processing', 'completed', 'failed', 'expired'] as const;
export const downloadFailureReasons = ['generation_failed', 'generation_timeout'] as const;

export const RecordingDownload = z
  .object({
    download_id: z.string().meta({ description: 'dl_ followed by random characters.' }),
    recording_id: z.int(),
    status: z.enum(downloadStatuses).meta({
      description:
        'completed: the link works; expired: it no longer does (a day passed, or the media was replaced). Media is stored ready to serve here, so a download is completed as soon as it is made.',
    }),
    video: RecordingDownloadFile.optional().meta({ description: 'When completed, for a video recording.' }),
    audio: RecordingDownloadFile.optional().meta({
      description: 'When completed, for an audio-only recording.',
    }),
    failure_reason: z.enum(downloadFailureReasons).optional().meta({ description: 'When failed.' }),
  })
  .meta({ description: "A download of a recording's media, private to the key or token that requested it." })
  .register(components, { id: 'RecordingDownload' });

/** The paginated list envelope around `item`. */
export function listOf<T extends z.ZodType>(id: string, item: T) {
  return z
    .object({
      limit: z.int().meta({ description: 'Page size applied.' }),
      next_cursor: z.string().nullable().meta({ description: 'Cursor of the next page; null on the last.' }),
      items: z.array(item),
    })
    .register(components, { id });
}
