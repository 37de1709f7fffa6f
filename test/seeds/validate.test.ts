import { describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/demo.js';
import { validateDataset } from '../../seeds/validate.js';
import { formatPath } from '../../src/domain/recording-format.js';
import { smallDataset } from './fixtures.js';

function problemsOf(input: unknown): string[] {
  const result = validateDataset(input);
  if (result.ok) throw new Error('expected the dataset to be refused');
  return result.problems;
}

describe('validateDataset', () => {
  it('accepts the demo dataset and the test fixture', () => {
    expect(validateDataset(demoDataset())).toMatchObject({ ok: true });
    expect(validateDataset(smallDataset())).toMatchObject({ ok: true });
  });

  it('accepts an empty object (every list defaults to empty) and lower-cases emails and domains', () => {
    expect(validateDataset({})).toMatchObject({ ok: true, dataset: { organisations: [], meetings: [] } });
    const result = validateDataset(smallDataset());
    if (!result.ok) throw new Error('fixture refused');
    expect(result.dataset.meetings[0]!.calendar_invitees[1]!.email).toBe('bob@beta.test');
  });

  it('formats paths like meetings[3].calendar_invitees[0].email', () => {
    expect(formatPath(['meetings', 3, 'calendar_invitees', 0, 'email'])).toBe(
      'meetings[3].calendar_invitees[0].email',
    );
    expect(formatPath([])).toBe('dataset');
  });

  it('reports every shape problem with its path', () => {
    const d = smallDataset() as unknown as Record<string, unknown> & ReturnType<typeof smallDataset>;
    (d as Record<string, unknown>).meeting = [];
    (d.organisations[1] as { plan: string }).plan = 'enterprise';
    d.meetings[0]!.calendar_invitees[0]!.email = 'not-an-email';
    d.meetings[0]!.created_at = '2026-03-02T11:05:00'; // no zone
    d.meetings[1]!.recording_end_time = '2026-03-02T09:00:00Z'; // before the start
    (d.meetings[1]!.sharing as Record<string, unknown>).everyone = true;
    d.meetings[0]!.transcript![1]!.timestamp = '5s';
    (d.api_keys[0] as { app_name?: string }).app_name = 'Nope';
    d.users[0]!.permissions.view_access = { level: 'own_meetings', teams: ['Sales'] };

    const problems = problemsOf(d);
    expect(problems).toEqual(
      expect.arrayContaining([
        'dataset: Unrecognized key: "meeting"',
        expect.stringMatching(/^organisations\[1\]\.plan: Invalid option/),
        'meetings[0].calendar_invitees[0].email: Invalid email address',
        'meetings[0].created_at: Invalid ISO datetime',
        'meetings[0].transcript[1].timestamp: Expected a position as HH:MM:SS',
        'meetings[1].sharing: Unrecognized key: "everyone"',
        'api_keys[0].app_name: only a connected_app has an app_name',
        'users[0].permissions.view_access.teams: level "own_meetings" takes no teams',
        'meetings[1].recording_end_time: must not be before recording_start_time',
      ]),
    );
    expect(problems).toHaveLength(9);
  });

  it('reports a recording that ends before it starts', () => {
    const d = smallDataset();
    d.meetings[1]!.recording_end_time = '2026-03-02T09:00:00Z';
    expect(problemsOf(d)).toEqual([
      'meetings[1].recording_end_time: must not be before recording_start_time',
    ]);
  });

  it('reports every broken reference and duplicate natural key', () => {
    const d = smallDataset();
    d.users[0]!.team = 'Marketing';
    d.users[1]!.permissions.view_access.teams = ['Sales', 'Ops'];
    d.users.push({ ...d.users[2]!, email: 'OTTO@other.test' });
    d.teams.push({ organisation: 'nowhere', name: 'Sales', created_at: '2024-01-01T00:00:00Z' });
    d.api_keys[1]!.user = 'ghost@acme.test';
    d.api_keys.push({ ...d.api_keys[0]! });
    d.crm_connections[0]!.deals[0]!.company_domain = 'gamma.test';
    d.crm_connections.push({ ...d.crm_connections[1]! });
    d.meetings[0]!.meeting_type = 'Demo';
    d.meetings[0]!.sharing.teams = ['Sales', 'Legal'];
    d.meetings[0]!.sharing.users = ['nobody@acme.test'];
    d.meetings[0]!.transcript![0]!.speaker.matched_calendar_invitee_email = 'stranger@beta.test';
    d.meetings[1]!.recording_id = 7;
    d.meetings.push({ ...d.meetings[1]!, recording_id: 9, recorded_by: 'who@acme.test' });

    expect(problemsOf(d).sort()).toEqual(
      [
        'users[0].team: no team "Marketing" in organisation "acme"',
        'users[1].permissions.view_access.teams[1]: no team "Ops" in organisation "acme"',
        'users[3].email: duplicate of users[2]',
        'teams[2].organisation: no organisation "nowhere"',
        'api_keys[1].user: no user "ghost@acme.test"',
        'api_keys[2].key: duplicate of api_keys[0]',
        'crm_connections[0].deals[0].company_domain: no company with domain "gamma.test" in this connection',
        'crm_connections[2].owner: duplicate of crm_connections[1]',
        'meetings[0].meeting_type: no meeting type "Demo" in organisation "acme"',
        'meetings[0].sharing.teams[1]: no team "Legal" in organisation "acme"',
        'meetings[0].sharing.users[0]: no user "nobody@acme.test"',
        'meetings[0].transcript[0].speaker.matched_calendar_invitee_email: "stranger@beta.test" is not an invitee',
        'meetings[1].recording_id: duplicate of meetings[0]',
        'meetings[2].recorded_by: no user "who@acme.test"',
      ].sort(),
    );
  });

  it('checks meeting types and shared teams in the recorder’s organisation', () => {
    const d = smallDataset();
    d.meeting_types.push({
      organisation: 'other',
      name: 'Advisory',
      status: 'inactive',
      created_at: '2024-01-01T00:00:00Z',
    });
    d.meetings[1]!.recorded_by = 'otto@other.test';
    d.meetings[1]!.meeting_type = 'Discovery'; // Acme's type, not Other's
    d.meetings[1]!.sharing = { users: [], teams: ['Sales'], all_teams: false };
    expect(problemsOf(d)).toEqual([
      'meetings[1].meeting_type: no meeting type "Discovery" in organisation "other"',
      'meetings[1].sharing.teams[0]: no team "Sales" in organisation "other"',
    ]);
  });
});
