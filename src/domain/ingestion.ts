/**
 * Ingestion of one recording in the seed meeting format (seeds/format.ts: snake_case JSON, the
 * shape of the REST Meeting plus its sharing). `npm run ingest` and the ingestRecording mutation
 * both come here; the seeder stores its meetings through the same `storeRecording`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type MeetingSeed, meetingSchema } from '../../seeds/format.js';
import { formatPath } from '../../seeds/validate.js';
import type { Collections } from '../db/collections.js';
import type { Clock } from './clock.js';
import { DomainError } from './errors.js';
import { type RecordingInput, type StoredRecording, storeRecording } from './recordings.js';

/** The recording as `storeRecording` takes it (the seeder's loader maps its meetings with it too). */
export function recordingInputOf(m: MeetingSeed): RecordingInput {
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
    transcript: m.transcript?.map((e) => ({
      speaker: {
        displayName: e.speaker.display_name,
        matchedCalendarInviteeEmail: e.speaker.matched_calendar_invitee_email,
      },
      text: e.text,
      timestamp: e.timestamp,
    })),
    summary: m.default_summary && {
      templateName: m.default_summary.template_name,
      markdownFormatted: m.default_summary.markdown_formatted,
    },
    actionItems: m.action_items?.map((a) => ({
      description: a.description,
      userGenerated: a.user_generated,
      completed: a.completed,
      recordingTimestamp: a.recording_timestamp,
      assignee: a.assignee,
    })),
    highlights: m.highlights?.map((h) => ({
      type: h.type,
      summary: h.summary,
      startTime: h.start_time,
      endTime: h.end_time,
      text: h.text,
    })),
  };
}

/** Checks a recording in the seed meeting format; BAD_USER_INPUT lists every problem with its path. */
export function parseRecording(input: unknown): RecordingInput {
  const parsed = meetingSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${formatPath(['recording', ...i.path])}: ${i.message}`);
    throw new DomainError('BAD_USER_INPUT', `Invalid recording: ${problems.join('; ')}`);
  }
  return recordingInputOf(parsed.data);
}

/** Validates and stores one recording; unknown recorders, teams and meeting types are BAD_USER_INPUT. */
export function ingestRecording(
  collections: Collections,
  input: unknown,
  clock?: Clock,
): Promise<StoredRecording> {
  return storeRecording(collections, parseRecording(input), clock);
}

/**
 * Whether an `Authorization: Bearer <token>` header carries the service token whose SHA-256 (hex)
 * is configured. Compared in constant time (both sides are 32-byte digests).
 */
export function presentsServiceToken(
  authorization: string | undefined,
  expectedSha256Hex: string | undefined,
): boolean {
  if (!authorization || !expectedSha256Hex) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return false;
  const presented = createHash('sha256').update(match[1]!).digest();
  return timingSafeEqual(presented, Buffer.from(expectedSha256Hex, 'hex'));
}
