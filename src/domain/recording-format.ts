/**
 * The recording format: one recording as JSON, in the field names and shapes of the REST Meeting
 * (docs/api/rest.md, snake_case) plus its sharing and content. `npm run ingest`, the
 * `ingestRecording` mutation and the seed datasets' `meetings` all use it; derived values
 * (is_external, email_domain, the domains type, the company, shared_with) are left out:
 * `storeRecordings` computes them. Emails and domains are lower-cased while parsing.
 *
 * The field types are exported for the seed dataset format (seeds/format.ts), which builds on them.
 */
import { z } from 'zod';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from './email.js';
import { DomainError } from './errors.js';
import type { RecordingInput } from './recordings.js';

export const text = z.string().trim().min(1);
export const email = z.email({ pattern: EMAIL_PATTERN }).max(EMAIL_MAX_LENGTH).toLowerCase();
export const domain = z.string().toLowerCase().regex(z.regexes.domain, 'Invalid domain name');
export const timestamp = z.iso.datetime({ offset: true });
export const httpUrl = z.httpUrl();
const hhmmss = z.string().regex(/^\d{2}:[0-5]\d:[0-5]\d$/, 'Expected a position as HH:MM:SS');

/** Reports at `later` when that timestamp comes before `earlier`. */
function notBefore<K extends string>(earlier: K, later: K) {
  return (value: Record<K, string>, ctx: z.core.$RefinementCtx) => {
    if (Date.parse(value[later]) < Date.parse(value[earlier])) {
      ctx.addIssue({ code: 'custom', path: [later], message: `must not be before ${earlier}` });
    }
  };
}

export const inviteeSchema = z.strictObject({ name: text.nullable(), email: email.nullable() });

export const transcriptEntrySchema = z.strictObject({
  speaker: z.strictObject({ display_name: text, matched_calendar_invitee_email: email.nullable() }),
  text,
  timestamp: hhmmss,
});

export const actionItemSchema = z.strictObject({
  description: text,
  user_generated: z.boolean(),
  completed: z.boolean(),
  recording_timestamp: hhmmss,
  assignee: z.strictObject({ name: text.nullable(), email: email.nullable(), team: text.nullable() }),
});

export const highlightSchema = z
  .strictObject({
    type: text,
    summary: text.nullable(),
    /** Seconds from the start of the recording. */
    start_time: z.number().nonnegative(),
    end_time: z.number().nonnegative(),
    text,
  })
  .superRefine((value, ctx) => {
    if (value.end_time < value.start_time) {
      ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'must not be before start_time' });
    }
  });

/** One recording: what `npm run ingest`, `ingestRecording` and the seeder's `meetings` hold. */
export const recordingSchema = z
  .strictObject({
    /** At most 2^31 - 1: the API serves it as a GraphQL Int, which has 32 bits. */
    recording_id: z.number().int().positive().max(2_147_483_647),
    recorded_by: email,
    title: text,
    meeting_title: text.nullable(),
    /** A meeting type of the recorder's organisation, by name. */
    meeting_type: text.nullable(),
    url: httpUrl,
    share_url: httpUrl,
    created_at: timestamp,
    scheduled_start_time: timestamp,
    scheduled_end_time: timestamp,
    recording_start_time: timestamp,
    recording_end_time: timestamp,
    transcript_language: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'Expected a language code'),
    meeting_url: httpUrl.nullable(),
    calendar_invitees: z.array(inviteeSchema),
    sharing: z
      .strictObject({
        /** Users (of any organisation) it is shared with individually. */
        users: z.array(email),
        /** Teams of the recorder's organisation. */
        teams: z.array(text),
        all_teams: z.boolean(),
      })
      .superRefine((value, ctx) => {
        if (value.all_teams && value.teams.length > 0) {
          ctx.addIssue({ code: 'custom', path: ['teams'], message: 'must be empty when all_teams is true' });
        }
      }),
    transcript: z.array(transcriptEntrySchema).optional(),
    /** Content is ready (webhooks fire) once a meeting is stored with its summary. */
    default_summary: z.strictObject({ template_name: text, markdown_formatted: text }).optional(),
    action_items: z.array(actionItemSchema).optional(),
    highlights: z.array(highlightSchema).optional(),
  })
  .superRefine(notBefore('scheduled_start_time', 'scheduled_end_time'))
  .superRefine(notBefore('recording_start_time', 'recording_end_time'));

export type RecordingJson = z.output<typeof recordingSchema>;

/** ['meetings', 3, 'calendar_invitees', 0, 'email'] → `meetings[3].calendar_invitees[0].email` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'dataset' : out;
}

/** The recording as `storeRecordings` takes it (the seeder's loader maps its meetings with it too). */
export function recordingInputOf(m: RecordingJson): RecordingInput {
  return {
    recordingId: m.recording_id,
    recorderEmail: m.recorded_by,
    title: m.title,
    meetingTitle: m.meeting_title,
    meetingType: m.meeting_type,
    url: m.url,
    shareUrl: m.share_url,
    createdAt: new Date(m.created_at),
    scheduledStartTime: new Date(m.scheduled_start_time),
    scheduledEndTime: new Date(m.scheduled_end_time),
    recordingStartTime: new Date(m.recording_start_time),
    recordingEndTime: new Date(m.recording_end_time),
    transcriptLanguage: m.transcript_language,
    meetingUrl: m.meeting_url,
    calendarInvitees: m.calendar_invitees,
    sharing: { userEmails: m.sharing.users, teams: m.sharing.teams, allTeams: m.sharing.all_teams },
    content: {
      transcripts: m.transcript && {
        entries: m.transcript.map((e) => ({
          speaker: {
            displayName: e.speaker.display_name,
            matchedCalendarInviteeEmail: e.speaker.matched_calendar_invitee_email,
          },
          text: e.text,
          timestamp: e.timestamp,
        })),
      },
      summaries: m.default_summary && {
        templateName: m.default_summary.template_name,
        markdownFormatted: m.default_summary.markdown_formatted,
      },
      actionItems: m.action_items && {
        items: m.action_items.map((a) => ({
          description: a.description,
          userGenerated: a.user_generated,
          completed: a.completed,
          recordingTimestamp: a.recording_timestamp,
          assignee: a.assignee,
        })),
      },
      highlights: m.highlights && {
        items: m.highlights.map((h) => ({
          type: h.type,
          summary: h.summary,
          startTime: h.start_time,
          endTime: h.end_time,
          text: h.text,
        })),
      },
    },
  };
}

/** Checks a recording in the seed meeting format; BAD_USER_INPUT lists every problem with its path. */
export function parseRecording(input: unknown): RecordingInput {
  const parsed = recordingSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${formatPath(['recording', ...i.path])}: ${i.message}`);
    throw new DomainError('BAD_USER_INPUT', `Invalid recording: ${problems.join('; ')}`);
  }
  return recordingInputOf(parsed.data);
}
