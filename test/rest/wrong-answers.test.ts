/**
 * Two answers that were wrong, pinned through the real HTTP server on both doors (REST
 * GET /meetings and GraphQL `meetings`; webhook payloads run through the same resolvers):
 *
 * - `meeting_type` matches the type's name exactly (docs/api/access.md), also for a meeting recorded in
 *   another organisation and shared with the caller, whose type is that organisation's;
 * - `shared_with` is `all_teams` when a meeting is shared with every team of its organisation,
 *   whether with "all teams" as such or team by team (docs/api/access.md).
 *
 * The demo dataset is extended with a few recordings (seed format), all created in 2027 so that
 * `created_after` lists them alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dataset, demoDataset, loadDataset } from '../../seeds/index.js';
import { keyOf } from '../support/app.js';
import { testRecording } from '../support/recording.js';
import { type RestTestApp, startRestTestApp } from './support.js';

type MeetingSeed = Dataset['meetings'][number];

const gina = 'gina.hart@globex.test'; // Globex (another organisation)
const sam = 'sam.rivera@acme.test';
const tom = 'tom.baker@acme.test';
const owen = 'owen.park@solo.test'; // the one user of a one-team organisation
const owenKey = 'mk_test_solo_owen_0123456789';
const NEW = '2027-01-01T00:00:00Z';

let nextId = 800_001;
function recording(by: string, overrides: Partial<MeetingSeed> = {}): MeetingSeed {
  const id = nextId++;
  const start = Date.parse('2027-01-05T09:00:00Z') + (id - 800_000) * 3_600_000;
  return testRecording(id, by, start, { title: `Wrong answers ${id}`, ...overrides });
}

const acmeTeams = ['Sales', 'Engineering', 'Support', 'Marketing'];
const sharing = (teams: string[], all_teams = false) => ({ users: [], teams, all_teams });

// Both organisations have a "Discovery" type: Globex's is on a meeting shared with Sam.
const fromGlobex = recording(gina, {
  meeting_type: 'Discovery',
  calendar_invitees: [
    { name: 'Gina', email: gina },
    { name: 'Sam', email: sam },
  ],
  sharing: { users: [sam], teams: [], all_teams: false },
});
const fromAcme = recording(sam, { meeting_type: 'Discovery' });
const everyTeamByName = recording(tom, { sharing: sharing(acmeTeams) });
const allButOne = recording(tom, { sharing: sharing(acmeTeams.slice(0, 3)) });
const allTeamsFlag = recording(tom, { sharing: sharing([], true) });
const oneTeam = recording(tom, { sharing: sharing(['Sales']) });
const onlyTeamOfSolo = recording(owen, { sharing: sharing(['Crew']) });

function extension(): Dataset {
  const demo = demoDataset();
  return {
    organisations: [
      ...demo.organisations,
      { slug: 'solo', name: 'Solo', domains: ['solo.test'], plan: 'team', created_at: NEW },
    ],
    teams: [...demo.teams, { organisation: 'solo', name: 'Crew', created_at: NEW }],
    users: [
      ...demo.users,
      {
        organisation: 'solo',
        email: owen,
        name: 'Owen Park',
        status: 'active',
        team: 'Crew',
        created_at: NEW,
        permissions: {
          settings_access: { level: 'account_admin', teams: [] },
          view_access: { level: 'all_teams', teams: [] },
        },
      },
    ],
    api_keys: [{ user: owen, key: owenKey, kind: 'api_key', label: 'test' }],
    meeting_types: [
      { organisation: 'globex', name: 'Discovery', status: 'active', created_at: NEW },
      { organisation: 'acme', name: 'Discovery', status: 'active', created_at: NEW },
    ],
    crm_connections: [],
    meetings: [fromGlobex, fromAcme, everyTeamByName, allButOne, allTeamsFlag, oneTeam, onlyTeamOfSolo],
  };
}

let r: RestTestApp;
beforeAll(async () => {
  r = await startRestTestApp();
  await loadDataset(r.t.app.database.collections, extension());
});
afterAll(() => r.close());

interface Listed {
  recordingId: number;
  meetingType: string | null;
  sharedWith: string;
}

/** GET /meetings (every page) of the new recordings, as `key` sees them. */
async function rest(key: string, query: Record<string, string | string[]> = {}): Promise<Listed[]> {
  const { items } = await r.getAll('/meetings', { key, query: { limit: 100, created_after: NEW, ...query } });
  return items.map((m) => ({
    recordingId: m.recording_id,
    meetingType: m.meeting_type,
    sharedWith: m.shared_with,
  }));
}

/** GraphQL `meetings` of the new recordings, as `key` sees them (sharedWith in the REST spelling). */
async function graphql(key: string, filter: Record<string, unknown> = {}): Promise<Listed[]> {
  const res = await r.t.graphql(
    `query($filter: MeetingFilter) { meetings(first: 100, filter: $filter) {
      edges { node { recordingId meetingType sharedWith } } pageInfo { hasNextPage } } }`,
    { filter: { createdAfter: NEW, ...filter } },
    key,
  );
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.meetings.pageInfo.hasNextPage).toBe(false);
  return res.body.data.meetings.edges.map(({ node }: { node: Listed }) => ({
    ...node,
    sharedWith: node.sharedWith.toLowerCase(),
  }));
}

const ids = (listed: Listed[]) => listed.map((m) => m.recordingId).sort();

describe('meeting_type across organisations', () => {
  const samKey = keyOf('member: own meetings + CRM');

  it('lists a meeting shared from another organisation under its type name, as it shows it', async () => {
    // Without the filter it is listed (its recorder named) with meeting_type "Discovery" ...
    const shown = await rest(samKey, { recorded_by: [gina] });
    expect(shown).toEqual([
      { recordingId: fromGlobex.recording_id, meetingType: 'Discovery', sharedWith: 'no_teams' },
    ]);
    expect(await graphql(samKey, { recordedBy: [gina] })).toEqual(shown);
    // ... so filtering by that name keeps it.
    expect(await rest(samKey, { recorded_by: [gina], meeting_type: 'Discovery' })).toEqual(shown);
    expect(await graphql(samKey, { recordedBy: [gina], meetingType: 'Discovery' })).toEqual(shown);
  });

  it('matches the name in every organisation, within the other filters and the external-recorder rule', async () => {
    const both = [fromGlobex.recording_id, fromAcme.recording_id].sort();
    expect(ids(await rest(samKey, { recorded_by: [gina, sam], meeting_type: 'Discovery' }))).toEqual(both);
    expect(ids(await graphql(samKey, { recordedBy: [gina, sam], meetingType: 'Discovery' }))).toEqual(both);
    // Another organisation's recorder comes in only when named.
    expect(ids(await rest(samKey, { meeting_type: 'Discovery' }))).toEqual([fromAcme.recording_id]);
    expect(ids(await graphql(samKey, { meetingType: 'Discovery' }))).toEqual([fromAcme.recording_id]);
    // The exact name only.
    expect(await rest(samKey, { recorded_by: [gina], meeting_type: 'discovery' })).toEqual([]);
    expect(await graphql(samKey, { recordedBy: [gina], meetingType: 'Discovery Call' })).toEqual([]);
  });

  it('an unknown name is still an empty list, and a bad cursor still an error', async () => {
    const unknown = await r.get('/meetings', {
      key: samKey,
      query: { recorded_by: [gina], meeting_type: 'No such type' },
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ limit: 10, next_cursor: null, items: [] });
    const badCursor = await r.get('/meetings', {
      key: samKey,
      query: { recorded_by: [gina], meeting_type: 'Discovery', cursor: '!!not a cursor!!' },
    });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body).toEqual({ error: expect.stringMatching(/cursor/i) });
  });

  it('a caller who may not see the shared meeting does not get it by its type', async () => {
    const tomKey = keyOf('team admin (Sales)');
    expect(await rest(tomKey, { recorded_by: [gina], meeting_type: 'Discovery' })).toEqual([]);
    expect(await graphql(tomKey, { recordedBy: [gina], meetingType: 'Discovery' })).toEqual([]);
  });
});

describe('shared_with: all_teams is every team of the organisation', () => {
  const tomKey = keyOf('team admin (Sales)');

  it('a meeting shared with every team, named team by team, is all_teams; all but one stays multiple_teams', async () => {
    const expected = [
      { recordingId: everyTeamByName.recording_id, sharedWith: 'all_teams' },
      { recordingId: allButOne.recording_id, sharedWith: 'multiple_teams' },
      { recordingId: allTeamsFlag.recording_id, sharedWith: 'all_teams' },
      { recordingId: oneTeam.recording_id, sharedWith: 'single_team' },
    ];
    const bySharing = (listed: Listed[]) =>
      listed
        .map(({ recordingId, sharedWith }) => ({ recordingId, sharedWith }))
        .sort((a, b) => a.recordingId - b.recordingId);
    expect(bySharing(await rest(tomKey, { recorded_by: [tom] }))).toEqual(expected);
    expect(bySharing(await graphql(tomKey, { recordedBy: [tom] }))).toEqual(expected);
    // Someone who sees it through a team gets the same answer, and so does a single lookup.
    const ava = keyOf('member: all teams view');
    expect(bySharing(await rest(ava, { recorded_by: [tom] }))).toEqual(expected);
    const one = await r.t.graphql(
      'query($id: Int!) { meeting(recordingId: $id) { sharedWith } }',
      { id: everyTeamByName.recording_id },
      tomKey,
    );
    expect(one.body).toEqual({ data: { meeting: { sharedWith: 'ALL_TEAMS' } } });
  });

  it('in a one-team organisation, a meeting shared with its only team is all_teams', async () => {
    const expected = [
      { recordingId: onlyTeamOfSolo.recording_id, meetingType: null, sharedWith: 'all_teams' },
    ];
    expect(await rest(owenKey)).toEqual(expected);
    expect(await graphql(owenKey)).toEqual(expected);
  });
});
