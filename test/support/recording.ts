/** A recording in the recording format for tests: valid, plain, and easy to override field by field. */
import type { MeetingSeed } from '../../seeds/format.js';

/**
 * Recording `id` by `recordedBy`, scheduled at `startMs` for 45 minutes (recorded from its second
 * minute to its 40th, created at its 50th), its URLs named after its id, the recorder its only
 * invitee, shared with nobody, without content. `overrides` replace whole fields.
 */
export function testRecording(
  id: number,
  recordedBy: string,
  startMs: number,
  overrides: Partial<MeetingSeed> = {},
): MeetingSeed {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    recording_id: id,
    recorded_by: recordedBy,
    title: `Recording ${id}`,
    meeting_title: null,
    meeting_type: null,
    url: `https://app.meetings.test/calls/${id}`,
    share_url: `https://app.meetings.test/share/${id}`,
    created_at: iso(startMs + 3_000_000),
    scheduled_start_time: iso(startMs),
    scheduled_end_time: iso(startMs + 2_700_000),
    recording_start_time: iso(startMs + 60_000),
    recording_end_time: iso(startMs + 2_400_000),
    transcript_language: 'en',
    meeting_url: null,
    calendar_invitees: [{ name: 'Recorder', email: recordedBy }],
    sharing: { users: [], teams: [], all_teams: false },
    ...overrides,
  };
}
