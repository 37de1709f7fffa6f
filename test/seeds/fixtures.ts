/** A small valid dataset for tests, each call a fresh copy to tamper with. */
import type { Dataset, MeetingSeed, UserSeed } from '../../seeds/format.js';

const at = (date: string) => `${date}T10:00:00Z`;

function member(email: string, team: string | null, view: UserSeed['permissions']['view_access']): UserSeed {
  return {
    organisation: 'acme',
    email,
    name: email.split('@')[0]!,
    status: 'active',
    team,
    created_at: at('2025-01-01'),
    permissions: { settings_access: { level: 'none', teams: [] }, view_access: view },
  };
}

function meeting(
  recordingId: number,
  recorder: string,
  invitees: MeetingSeed['calendar_invitees'],
): MeetingSeed {
  return {
    recording_id: recordingId,
    recorded_by: recorder,
    title: `Meeting ${recordingId}`,
    meeting_title: `Meeting ${recordingId}`,
    meeting_type: null,
    url: `https://app.meetings.test/calls/${recordingId}`,
    share_url: `https://app.meetings.test/share/s${recordingId}`,
    created_at: '2026-03-02T11:05:00Z',
    scheduled_start_time: '2026-03-02T10:00:00Z',
    scheduled_end_time: '2026-03-02T11:00:00Z',
    // An offset instead of Z: 10:01 UTC.
    recording_start_time: '2026-03-02T12:01:00+02:00',
    recording_end_time: '2026-03-02T11:00:00Z',
    transcript_language: 'en',
    meeting_url: null,
    calendar_invitees: invitees,
    sharing: { users: [], teams: [], all_teams: false },
  };
}

export function smallDataset(): Dataset {
  const external = meeting(7, 'rita@acme.test', [
    { name: 'Rita', email: 'rita@acme.test' },
    { name: 'Bob', email: 'Bob@Beta.TEST' },
    { name: 'Bea', email: 'bea@beta.test' },
    { name: 'Al', email: 'al@alpha.test' },
    { name: 'Ann', email: 'ann@alpha.test' },
    { name: 'Gus', email: 'gus@gamma.test' },
    { name: 'Dial-in', email: null },
  ]);
  external.meeting_type = 'Discovery';
  external.sharing = { users: ['otto@other.test'], teams: ['Sales', 'Support'], all_teams: false };
  external.transcript = [
    {
      speaker: { display_name: 'Rita', matched_calendar_invitee_email: 'rita@acme.test' },
      text: 'Hello.',
      timestamp: '00:00:02',
    },
    {
      speaker: { display_name: 'Bob', matched_calendar_invitee_email: 'bob@beta.test' },
      text: 'Hi!',
      timestamp: '00:00:05',
    },
  ];
  external.default_summary = { template_name: 'General', markdown_formatted: '## Notes\n- hello' };
  external.action_items = [
    {
      description: 'Send the deck',
      user_generated: false,
      completed: false,
      recording_timestamp: '00:10:00',
      assignee: { name: 'Rita', email: 'rita@acme.test', team: 'Sales' },
    },
  ];
  external.highlights = [{ type: 'Next steps', summary: null, start_time: 5, end_time: 9, text: 'Hi!' }];

  const internal = meeting(8, 'sid@acme.test', [
    { name: 'Sid', email: 'sid@acme.test' },
    { name: 'Lab', email: 'lab@acme-labs.test' },
  ]);
  internal.sharing = { users: [], teams: [], all_teams: true };

  return {
    organisations: [
      {
        slug: 'acme',
        name: 'Acme',
        domains: ['acme.test', 'acme-labs.test'],
        plan: 'team',
        created_at: at('2024-01-01'),
      },
      {
        slug: 'other',
        name: 'Other',
        domains: ['other.test'],
        plan: 'individual',
        created_at: at('2024-01-01'),
      },
    ],
    teams: [
      { organisation: 'acme', name: 'Sales', created_at: at('2024-02-01') },
      { organisation: 'acme', name: 'Support', created_at: at('2024-02-01') },
    ],
    users: [
      member('rita@acme.test', 'Sales', { level: 'team', teams: ['Sales'] }),
      member('sid@acme.test', 'Support', { level: 'multiple_teams', teams: ['Sales', 'Support'] }),
      { ...member('otto@other.test', null, { level: 'own_meetings', teams: [] }), organisation: 'other' },
    ],
    api_keys: [
      { user: 'rita@acme.test', key: 'mk_test_rita_0123456789abcdef', kind: 'api_key', label: 'laptop' },
      {
        user: 'sid@acme.test',
        key: 'mct_test_sid_0123456789abcdef',
        kind: 'connected_app',
        label: 'app',
        app_name: 'Flow',
        revoked_at: at('2026-01-01'),
      },
    ],
    meeting_types: [
      { organisation: 'acme', name: 'Discovery', status: 'active', created_at: at('2024-02-01') },
    ],
    crm_connections: [
      {
        owner: { organisation: 'acme', team: 'Sales' },
        provider: 'hubspot',
        contacts: [{ name: 'Bob', email: 'bob@beta.test', record_url: 'https://crm.hubspot.test/c/1' }],
        companies: [{ name: 'Beta', domain: 'beta.test', record_url: 'https://crm.hubspot.test/co/1' }],
        deals: [
          {
            name: 'Beta deal',
            amount: 1000,
            company_domain: 'beta.test',
            record_url: 'https://crm.hubspot.test/d/1',
          },
        ],
      },
      { owner: { user: 'sid@acme.test' }, provider: 'salesforce', contacts: [], companies: [], deals: [] },
    ],
    meetings: [external, internal],
  };
}
