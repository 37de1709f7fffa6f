/**
 * A Meeting in the public shape (docs/api/rest.md, docs/api/compatibility.md), from the RestMeeting
 * selection of fragments.graphql: the items of GET /meetings and the body of webhook events.
 */
import * as z from 'zod';
import { lower } from './enums.js';
import type { RestMeetingFragment } from './fragments.generated.js';
import type * as S from './schemas.js';

const flag = (description: string) => z.boolean().default(false).meta({ description });

/** The include_* query flags of GET /meetings: each adds one optional part to every meeting. */
export const includeFlags = {
  include_action_items: flag('Include action_items on each meeting.'),
  include_crm_matches: flag("Include crm_matches (from your or your team's CRM) on each meeting."),
  include_highlights: flag('Include highlights on each meeting.'),
  include_summary: flag('Include default_summary on each meeting. Refused for OAuth connected apps.'),
  include_transcript: flag('Include the transcript on each meeting. Refused for OAuth connected apps.'),
};

/** Which optional parts REST shows (webhooks have no highlights flag). */
export type Includes = { [F in keyof typeof includeFlags]: boolean };

/** Every flag false: the parts a caller sets on top of it are the only ones shown. */
export const noIncludes = Object.fromEntries(
  Object.keys(includeFlags).map((flag) => [flag, false]),
) as Includes;

type IncludeVariables = Record<
  'includeTranscript' | 'includeSummary' | 'includeActionItems' | 'includeHighlights' | 'includeCrmMatches',
  boolean
>;

/** The @include variables of RestMeeting, which every document spreading it declares. */
export const includeVariables = (include: Includes): IncludeVariables => ({
  includeTranscript: include.include_transcript,
  includeSummary: include.include_summary,
  includeActionItems: include.include_action_items,
  includeHighlights: include.include_highlights,
  includeCrmMatches: include.include_crm_matches,
});

type ContentPart = 'transcript' | 'default_summary' | 'action_items' | 'highlights';

/**
 * A Meeting as REST shows it. Its content parts are stored JSON handed on as it is (the `…Json`
 * fields): serialised, each is the part's shape in S.Meeting.
 */
export type RestMeetingBody = Omit<z.output<typeof S.Meeting>, ContentPart> & {
  [P in ContentPart]?: unknown;
};

/**
 * A Meeting as REST shows it; the optional parts only when their flag is set. `extensions`: with
 * what this service adds to the public shape (`updated_at`); content-ready webhook bodies leave it
 * out, so that they stay what the public service sends.
 */
export function restMeeting(
  m: RestMeetingFragment,
  include: Includes,
  { extensions = true }: { extensions?: boolean } = {},
): RestMeetingBody {
  return {
    title: m.title,
    meeting_title: m.meetingTitle,
    meeting_type: m.meetingType,
    recording_id: m.recordingId,
    url: m.url,
    share_url: m.shareUrl,
    created_at: m.createdAt,
    scheduled_start_time: m.scheduledStartTime,
    scheduled_end_time: m.scheduledEndTime,
    recording_start_time: m.recordingStartTime,
    recording_end_time: m.recordingEndTime,
    calendar_invitees_domains_type: lower(m.calendarInviteesDomainsType),
    shared_with: lower(m.sharedWith),
    transcript_language: m.transcriptLanguage,
    calendar_invitees: m.calendarInvitees.map((i) => ({
      name: i.name,
      email: i.email,
      email_domain: i.emailDomain,
      is_external: i.isExternal,
      ...(include.include_transcript
        ? { matched_speaker_display_name: i.matchedSpeakerDisplayName ?? null }
        : {}),
    })),
    recorded_by: {
      // The public shape has a name for every recorder; a user who never gave one shows the email.
      name: m.recordedBy.name ?? m.recordedBy.email,
      email: m.recordedBy.email,
      email_domain: m.recordedBy.emailDomain,
      team: m.recordedBy.team,
    },
    meeting_url: m.meetingUrl,
    ...(extensions ? { updated_at: m.updatedAt } : {}),
    ...(include.include_transcript ? { transcript: m.transcriptJson ?? null } : {}),
    ...(include.include_summary ? { default_summary: m.defaultSummaryJson ?? null } : {}),
    ...(include.include_action_items ? { action_items: m.actionItemsJson } : {}),
    ...(include.include_highlights ? { highlights: m.highlightsJson } : {}),
    ...(include.include_crm_matches && m.crmMatches
      ? {
          crm_matches: {
            contacts: m.crmMatches.contacts.map((c) => ({
              name: c.name,
              email: c.email,
              record_url: c.recordUrl,
            })),
            companies: m.crmMatches.companies.map((c) => ({ name: c.name, record_url: c.recordUrl })),
            deals: m.crmMatches.deals.map((d) => ({
              name: d.name,
              amount: d.amount,
              record_url: d.recordUrl,
            })),
            error: m.crmMatches.error,
          },
        }
      : {}),
  };
}
