/**
 * Example values of the OpenAPI document: what callers send and what the service answers, taken
 * from the demo dataset (seeds/demo.ts: Sam Rivera of Acme's Sales team, his discovery call with
 * Initech) and from the service's own error messages. The routes name theirs; the tests check
 * that each one validates against its schema, and that the webhook signature is right.
 */
import type * as z from 'zod';
import { invalidCursorMessage } from '../src/domain/pagination.js';
import type * as S from '../src/representation/schemas.js';
import type { Example, Examples } from './route.js';

type Meeting = z.output<typeof S.Meeting>;

const example = <T>(summary: string, value: T, description?: string): Example<T> => ({
  summary,
  value,
  ...(description ? { description } : {}),
});

/** One named example of `{"error": message}`. */
export const error = (summary: string, message: string, description?: string): Example =>
  example(summary, { error: message }, description);

// ---------------------------------------------------------------- values

export const recordingId = 100192;
export const webhookId = '66f2a1c4e13b9d0a7c5e8f21';
export const destinationUrl = 'https://hooks.example.com/meetings';
export const deliveryUrl = 'https://crm.example.com/inbound/meeting-notes';
/** The opaque cursor of the page after recording 100192 (base64url). */
export const meetingsCursor =
  'eyJsIjoibWVldGluZ3MiLCJmIjoiUkJOdm8xV3paNG9SIiwidiI6W3siJGRhdGUiOiIyMDI2LTA5LTE4VDE2OjMxOjM1LjAwMFoifSwxMDAxOTJdfQ';
export const teamsCursor = 'eyJsIjoidGVhbXMiLCJmIjoiUkJOdm8xV3paNG9SIiwidiI6WyJNYXJrZXRpbmciXX0';
export const meetingTypesCursor =
  'eyJsIjoibWVldGluZ1R5cGVzIiwiZiI6IlJCTnZvMVd6WjRvUiIsInYiOlsiUHJvZHVjdCBEZW1vIl19';
export const teamMembersCursor =
  'eyJsIjoidGVhbU1lbWJlcnMiLCJmIjoiMDByRUNsNWFKLTVaIiwidiI6WyJzYW0ucml2ZXJhQGFjbWUudGVzdCJdfQ';
export const usersCursor =
  'eyJsIjoidXNlcnMiLCJmIjoiUkJOdm8xV3paNG9SIiwidiI6WyJhY3RpdmUiLCJlcmljLmxhcnNlbkBhY21lLWxhYnMudGVzdCJdfQ';

export const transcript: Meeting['transcript'] & object = [
  {
    speaker: { display_name: 'Sam Rivera', matched_calendar_invitee_email: 'sam.rivera@acme.test' },
    text: 'Hey Jonas, thanks for joining.',
    timestamp: '00:00:01',
  },
  {
    speaker: {
      display_name: 'priya.raman@initech.test',
      matched_calendar_invitee_email: 'priya.raman@initech.test',
    },
    text: 'Honestly, our reps spend too much time writing notes after every call.',
    timestamp: '00:09:51',
  },
  {
    speaker: { display_name: 'Lena Fox', matched_calendar_invitee_email: 'lena.fox@initech.test' },
    text: 'How many people would be using it in the first phase?',
    timestamp: '00:19:36',
  },
  {
    speaker: { display_name: 'Jonas Berg', matched_calendar_invitee_email: 'jonas.berg@initech.test' },
    text: 'Probably around forty seats to start, then the whole sales org next year.',
    timestamp: '00:29:24',
  },
];

export const summary = {
  template_name: 'Sales Call',
  markdown_formatted:
    '## Discovery call with Initech\n\nMeeting with Initech attended by Sam Rivera, Jonas Berg, ' +
    'priya.raman@initech.test, Lena Fox.\n\n### Key points\n- Legal needs to review the data processing ' +
    'terms\n- Budget is approved for this quarter\n- Reps spend too much time on manual call notes\n\n' +
    '### Next steps\n- **Sam Rivera**: Loop in legal on the data processing terms\n- ' +
    '**priya.raman@initech.test**: Book the follow-up call for next Thursday',
} satisfies z.output<typeof S.Summary>;

/** The meeting without its optional parts: what GET /meetings gives when no include_* flag is set. */
const bareMeeting = {
  title: 'Discovery call with Initech',
  meeting_title: 'Discovery call with Initech',
  meeting_type: 'Discovery Call',
  recording_id: recordingId,
  url: 'https://app.meetings.test/calls/100192',
  share_url: 'https://app.meetings.test/share/zpc9zm2s61scx9e8',
  created_at: '2026-09-18T17:34:17.000Z',
  scheduled_start_time: '2026-09-18T16:30:00.000Z',
  scheduled_end_time: '2026-09-18T17:30:00.000Z',
  recording_start_time: '2026-09-18T16:31:35.000Z',
  recording_end_time: '2026-09-18T17:30:17.000Z',
  calendar_invitees_domains_type: 'one_or_more_external',
  shared_with: 'multiple_teams',
  transcript_language: 'en',
  calendar_invitees: [
    { name: 'Sam Rivera', email: 'sam.rivera@acme.test', email_domain: 'acme.test', is_external: false },
    { name: 'Jonas Berg', email: 'jonas.berg@initech.test', email_domain: 'initech.test', is_external: true },
    { name: 'Lena Fox', email: 'lena.fox@initech.test', email_domain: 'initech.test', is_external: true },
    { name: null, email: 'priya.raman@initech.test', email_domain: 'initech.test', is_external: true },
  ],
  recorded_by: {
    name: 'Sam Rivera',
    email: 'sam.rivera@acme.test',
    email_domain: 'acme.test',
    team: 'Sales',
  },
  meeting_url: 'https://meetings.example/calls/962429981',
} satisfies Meeting;

const actionItems: Meeting['action_items'] & object = [
  {
    description: 'Loop in legal on the data processing terms',
    user_generated: false,
    completed: true,
    recording_timestamp: '00:51:13',
    recording_playback_url: 'https://app.meetings.test/calls/100192?timestamp=3073',
    assignee: { name: 'Sam Rivera', email: 'sam.rivera@acme.test', team: 'Sales' },
  },
  {
    description: 'Book the follow-up call for next Thursday',
    user_generated: true,
    completed: false,
    recording_timestamp: '00:49:02',
    recording_playback_url: 'https://app.meetings.test/calls/100192?timestamp=2942',
    assignee: { name: 'priya.raman@initech.test', email: 'priya.raman@initech.test', team: null },
  },
];

/** The meeting with every include_* flag set. */
const fullMeeting: Meeting = {
  ...bareMeeting,
  // With the transcript, each invitee names the speaker matched to it.
  calendar_invitees: bareMeeting.calendar_invitees.map((i) => ({
    ...i,
    matched_speaker_display_name: i.name ?? i.email,
  })),
  transcript,
  default_summary: summary,
  action_items: actionItems,
  highlights: [
    {
      type: 'Next steps',
      summary: 'Honestly, our reps spend too much time writing notes after every call.',
      start_time: 591,
      end_time: 620,
    },
    {
      type: 'Pricing',
      summary: 'How many people would be using it in the first phase?',
      start_time: 1176,
      end_time: 1196,
    },
    {
      type: 'Next steps',
      summary: 'Probably around forty seats to start, then the whole sales org next year.',
      start_time: 1764,
      end_time: 1786,
    },
  ],
  crm_matches: {
    contacts: [
      {
        name: 'Lena Fox',
        email: 'lena.fox@initech.test',
        record_url: 'https://acme.salesforce.test/lightning/r/contacts/1003',
      },
    ],
    companies: [{ name: 'Initech', record_url: 'https://acme.salesforce.test/lightning/r/companies/202' }],
    deals: [
      {
        name: 'Initech renewal',
        amount: 52250.5,
        record_url: 'https://acme.salesforce.test/lightning/r/deals/3002',
      },
    ],
    error: null,
  },
};

/** The body of the webhook example: a webhook with include_summary and include_action_items. */
export const webhookEvent: Meeting = { ...bareMeeting, default_summary: summary, action_items: actionItems };

export const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const webhookMessageId = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
/** 2026-09-18T17:34:20Z, the first attempt, three seconds after the meeting's content was ready. */
export const webhookTimestamp = 1789752860;
/** `v1,` + base64 HMAC-SHA256 of `${webhookMessageId}.${webhookTimestamp}.${JSON.stringify(webhookEvent)}` with webhookSecret. */
export const webhookSignature = 'v1,OfUX/y/NmHCo+qa8QbLkqBuuXy8D3lqMJ7Xy92u0fxA=';

// ---------------------------------------------------------------- answers

const page = <T>(limit: number, next_cursor: string | null, items: T[]) => ({ limit, next_cursor, items });

/**
 * A meeting as lists show it: with `updated_at`, an extension (content-ready webhook events leave
 * it out). The demo data's is when it was loaded; this one is a plausible instant.
 */
const listed = (meeting: Meeting): Meeting => ({ ...meeting, updated_at: '2026-09-18T17:34:17.000Z' });

export const meetingPages: Examples = {
  bare: example('Without include flags', page(1, meetingsCursor, [listed(bareMeeting)])),
  full: example(
    'With every include flag',
    page(1, meetingsCursor, [listed(fullMeeting)]),
    'include_transcript, include_summary, include_action_items, include_highlights and include_crm_matches ' +
      'all true; the transcript is shortened here.',
  ),
};

export const meetingTypePage: Examples = {
  page: example(
    'A page of meeting types',
    page(3, meetingTypesCursor, [
      { name: 'Customer Support', status: 'active', created_at: '2024-02-20T09:00:00.000Z' },
      { name: 'Discovery Call', status: 'active', created_at: '2024-01-25T09:00:00.000Z' },
      { name: 'Product Demo', status: 'active', created_at: '2024-01-25T09:00:00.000Z' },
    ] satisfies z.output<typeof S.MeetingType>[]),
  ),
};

export const teamPage: Examples = {
  page: example(
    'A page of teams',
    page(2, teamsCursor, [
      { name: 'Engineering', created_at: '2024-01-20T09:00:00.000Z' },
      { name: 'Marketing', created_at: '2024-03-11T09:00:00.000Z' },
    ] satisfies z.output<typeof S.Team>[]),
  ),
};

export const teamMemberPage: Examples = {
  page: example(
    'Members of the Sales team',
    page(2, teamMembersCursor, [
      { name: 'Noah Kim', email: 'noah.kim@acme.test', created_at: '2024-06-03T09:00:00.000Z' },
      { name: 'Sam Rivera', email: 'sam.rivera@acme.test', created_at: '2024-02-12T09:00:00.000Z' },
    ] satisfies z.output<typeof S.TeamMember>[]),
  ),
};

const allTeams = ['Engineering', 'Marketing', 'Sales', 'Support'];

export const userPages: Examples = {
  active: example(
    'Active users first',
    page(2, usersCursor, [
      {
        name: 'Alice Moreau',
        email: 'alice.moreau@acme.test',
        created_at: '2024-01-15T09:00:00.000Z',
        status: 'active',
        permissions: {
          settings_access: { level: 'account_admin', teams: allTeams },
          view_access: { level: 'all_teams', teams: allTeams },
        },
      },
      {
        name: 'Eric Larsen',
        email: 'eric.larsen@acme-labs.test',
        created_at: '2024-01-29T09:00:00.000Z',
        status: 'active',
        permissions: {
          settings_access: { level: 'team_admin', teams: ['Engineering'] },
          view_access: { level: 'team', teams: ['Engineering'] },
        },
      },
    ] satisfies z.output<typeof S.User>[]),
  ),
  invited: example(
    'Invited users (status=invited)',
    page(10, null, [
      {
        name: 'Ian Walsh',
        email: 'ian.walsh@acme.test',
        created_at: '2026-09-20T09:00:00.000Z',
        status: 'invited',
      },
      {
        name: null,
        email: 'pat.obrien@acme.test',
        created_at: '2026-09-25T09:00:00.000Z',
        status: 'invited',
      },
    ] satisfies z.output<typeof S.User>[]),
    'Invited users have no permissions yet, and may not have given a name.',
  ),
};

const queued = (url: string) =>
  example('Queued for delivery (with destination_url)', { destination_url: url }, 'Answered at once.');

export const transcriptAnswers: Examples = {
  transcript: example('The transcript', { transcript }, 'Shortened here.'),
  queued: queued(deliveryUrl),
};

export const summaryAnswers: Examples = {
  summary: example('The summary', { summary }),
  none: example('A recording without a summary', { summary: null }),
  queued: queued(deliveryUrl),
};

export const createdWebhook: Examples = {
  created: example('The webhook, with its secret', {
    id: webhookId,
    url: destinationUrl,
    secret: webhookSecret,
    created_at: '2026-09-01T08:15:00.000Z',
    include_transcript: false,
    include_crm_matches: false,
    include_summary: true,
    include_action_items: true,
    triggered_for: ['my_recordings', 'my_shared_with_team_recordings', 'shared_team_recordings'],
  } satisfies z.output<typeof S.Webhook>),
};

export const createWebhookBody: Examples = {
  summaries: example("Summaries and action items of my recordings and my teams'", {
    destination_url: destinationUrl,
    triggered_for: ['my_recordings', 'my_shared_with_team_recordings', 'shared_team_recordings'],
    include_action_items: true,
    include_crm_matches: false,
    include_summary: true,
    include_transcript: false,
  }),
};

/** Bodies POSTed to destination_url by the transcript and summary endpoints. */
export const transcriptDelivery: Examples = {
  delivery: example(
    'The transcript of recording 100192',
    { transcript, recording_id: recordingId },
    'Shortened here.',
  ),
};
export const summaryDelivery: Examples = {
  delivery: example('The summary of recording 100192', { summary, recording_id: recordingId }),
};

export const webhookEvents: Examples = {
  event: example(
    'Summary and action items',
    webhookEvent,
    'Sent to the webhook of the POST /webhooks example (include_summary and include_action_items).',
  ),
};

// ---------------------------------------------------------------- errors

/** The 429 of any route: its key's general bucket is spent. */
export const generalRateLimited = error(
  'Rate limit',
  "Too many requests (this key's general bucket): at most 60 per 60 s. Retry in 42 s (Retry-After).",
);

/** Status 429 and 503 of routes that select a transcript or a summary (the heavy bucket, load shedding). */
export const heavyRateLimited: Examples = {
  general: generalRateLimited,
  heavy: error(
    'Transcript and summary rate limit',
    "Too many transcript and summary requests (this key's heavy bucket; other requests count apart): at most 30 per 60 s. Retry in 42 s (Retry-After).",
  ),
  concurrent: error(
    'Too many large requests at once',
    'Too many large requests at once for this key: at most 2 may run together (pages with transcripts are large). Retry in 1 s, once one has finished, or ask for smaller pages.',
  ),
};

export const heavyUnavailable: Examples = {
  busy: error(
    'Busy',
    'The service is busy producing other large answers. Retry in 1 s, or ask for smaller pages or fewer content fields.',
    'Too much content is being produced at once.',
  ),
  unavailable: error('Database unavailable', 'The service is temporarily unavailable; retry later.'),
};

export const notFoundRecording: Examples = {
  missing: error(
    'No such recording',
    'No recording with id 999999.',
    'Also the answer for a recording you may not see.',
  ),
};

export const badLimit = error('limit out of range', 'Invalid query parameter "limit": must be at most 100.');
export const badCursor = error('Cursor not valid', invalidCursorMessage);
export const badRecordingId = error(
  'recording_id not an integer',
  'Invalid path parameter "recording_id": must be an integer.',
);
export const badDestination = error(
  'destination_url refused',
  'destination_url is refused: 10.0.0.5 is a private address.',
  'Deliveries go to public http(s) addresses only.',
);

// ---------------------------------------------------------------- downloads

export const downloadId = 'dl_7Qm2ZkR4xWb9TnV1cLp8sYd3';

const downloadFile = {
  url: `https://meetings.example.com/media/66f2b7d0e13b9d0a7c5e9a04?expires=1789839260&signature=Jq3v8yQn0YH1e5mXK2cTzW7rBfL9aPs4dG6uVhE1oNk`,
  content_type: 'video/mp4',
  file_size_bytes: 734_003_200,
  expires_at: '2026-09-16T10:54:20.000Z',
};

export const completedDownload = {
  download_id: downloadId,
  recording_id: recordingId,
  status: 'completed',
  video: downloadFile,
} satisfies z.output<typeof S.RecordingDownload>;

export const downloadAnswers: Examples = {
  completed: example(
    'Completed: the link works',
    completedDownload,
    'Media is stored ready to serve, so a download is completed when it is made.',
  ),
  audio: example('An audio-only recording', {
    download_id: downloadId,
    recording_id: recordingId,
    status: 'completed',
    audio: { ...downloadFile, content_type: 'audio/mpeg', file_size_bytes: 57_671_680 },
  }),
  expired: example(
    'Expired: request a new download',
    { download_id: downloadId, recording_id: recordingId, status: 'expired' },
    "A day after it was made, or once the recording's media was replaced.",
  ),
};

export const downloadDelivery: Examples = {
  delivery: example('The completed download of recording 100192', completedDownload),
};

export const noMedia: Examples = {
  none: error('No media', `Recording ${recordingId} has no downloadable media.`),
};

export const notFoundDownload: Examples = {
  download: error(
    'No such download',
    `No download with id ${downloadId} of recording ${recordingId}.`,
    'Also the answer for a download made with another key or token.',
  ),
};

export const downloadRateLimited: Examples = {
  general: generalRateLimited,
  download: error(
    'Download rate limit',
    "Too many download requests (this key's download bucket; other requests count apart): at most 30 per 60 s. Retry in 42 s (Retry-After).",
  ),
};
