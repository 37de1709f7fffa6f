/** The meetings connection: every filter, ordering, keyset pagination and its stability. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { storeRecording } from '../../src/domain/recordings.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';
import { visibleRecordings } from '../support/oracle.js';

const dataset = demoDataset();
const admin = keyOf('account admin');
const adminEmail = dataset.users.find((u) => u.permissions.settings_access.level === 'account_admin')!.email;

interface Row {
  recordingId: number;
  createdAt: string;
  recordingStartTime: string;
  calendarInviteesDomainsType: string;
  meetingType: string | null;
  recordedBy: { email: string; team: string | null };
  calendarInvitees: { emailDomain: string | null; isExternal: boolean }[];
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function list(filter: Record<string, unknown>, first = 100, after: string | null = null) {
  const res = await t.graphql(
    `query($filter: MeetingFilter, $first: Int, $after: String) { meetings(filter: $filter, first: $first, after: $after) {
      edges { cursor node { recordingId createdAt recordingStartTime calendarInviteesDomainsType meetingType
        recordedBy { email team } calendarInvitees { emailDomain isExternal } } }
      pageInfo { hasNextPage endCursor } } }`,
    { filter, first, after },
    admin,
  );
  expect(res.body.errors).toBeUndefined();
  return {
    rows: res.body.data.meetings.edges.map((e: { node: Row }) => e.node) as Row[],
    pageInfo: res.body.data.meetings.pageInfo as { hasNextPage: boolean; endCursor: string | null },
  };
}

async function listAll(filter: Record<string, unknown>, first = 100): Promise<Row[]> {
  const rows: Row[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await list(filter, first, after);
    rows.push(...page.rows);
    if (!page.pageInfo.hasNextPage) return rows;
    after = page.pageInfo.endCursor;
  }
}

describe('meetings', () => {
  it('newest first by recording start, ties by recording id, 10 by default', async () => {
    const page = await t.graphql('{ meetings { edges { cursor } } }', {}, admin);
    expect(page.body.data.meetings.edges).toHaveLength(10);
    const all = await listAll({});
    const sorted = [...all].sort((a, b) =>
      a.recordingStartTime === b.recordingStartTime
        ? b.recordingId - a.recordingId
        : b.recordingStartTime.localeCompare(a.recordingStartTime),
    );
    expect(all.map((r) => r.recordingId)).toEqual(sorted.map((r) => r.recordingId));
  });

  it('paging by 7 to the end gives the same sequence as one big page', async () => {
    const big = await listAll({}, 100);
    const small = await listAll({}, 7);
    expect(small.map((r) => r.recordingId)).toEqual(big.map((r) => r.recordingId));
  });

  it('teams and recordedBy match the recorder, OR within a list', async () => {
    const sales = await listAll({ teams: ['Sales'] });
    expect(sales.length).toBeGreaterThan(0);
    expect(sales.every((r) => r.recordedBy.team === 'Sales')).toBe(true);
    const two = await listAll({ teams: ['Sales', 'Support'] });
    expect(new Set(two.map((r) => r.recordedBy.team))).toEqual(new Set(['Sales', 'Support']));
    const unknown = await listAll({ teams: ['No such team'] });
    expect(unknown).toEqual([]);

    const recorder = sales[0]!.recordedBy.email;
    const byRecorder = await listAll({ recordedBy: [recorder.toUpperCase()] });
    expect(byRecorder.length).toBeGreaterThan(0);
    expect(byRecorder.every((r) => r.recordedBy.email === recorder)).toBe(true);
  });

  it('external recorders appear only when named, and teams alone does not bring them in', async () => {
    const adminOrgDomains = dataset.organisations.find(
      (o) => o.slug === dataset.users.find((u) => u.email === adminEmail)!.organisation,
    )!.domains;
    const isInternal = (email: string) => adminOrgDomains.includes(email.split('@')[1]!);
    expect((await listAll({})).every((r) => isInternal(r.recordedBy.email))).toBe(true);
    const externals = [...visibleRecordings(dataset, adminEmail)]
      .map((id) => dataset.meetings.find((m) => m.recording_id === id)!.recorded_by)
      .filter((email) => !isInternal(email));
    if (externals.length > 0) {
      const named = await listAll({ recordedBy: [externals[0]] });
      expect(named.length).toBeGreaterThan(0);
      expect(named.every((r) => r.recordedBy.email === externals[0])).toBe(true);
    }
  });

  it('company domains, domains type and meeting type', async () => {
    const all = await listAll({});
    const external = all.find((r) => r.calendarInviteesDomainsType === 'ONE_OR_MORE_EXTERNAL')!;
    const domain = external.calendarInvitees.find((i) => i.isExternal)!.emailDomain!;
    const byDomain = await listAll({ companyDomains: [domain.toUpperCase()] });
    expect(byDomain.length).toBeGreaterThan(0);
    expect(byDomain.every((r) => r.calendarInvitees.some((i) => i.emailDomain === domain))).toBe(true);

    const internal = await listAll({ domainsType: 'ONLY_INTERNAL' });
    expect(internal.length).toBeGreaterThan(0);
    expect(internal.every((r) => r.calendarInvitees.every((i) => !i.isExternal))).toBe(true);
    const ext = await listAll({ domainsType: 'ONE_OR_MORE_EXTERNAL' });
    expect(internal.length + ext.length).toBe(all.length);

    const typed = all.find((r) => r.meetingType !== null)!;
    const byType = await listAll({ meetingType: typed.meetingType });
    expect(byType.length).toBeGreaterThan(0);
    expect(byType.every((r) => r.meetingType === typed.meetingType)).toBe(true);
    expect(await listAll({ meetingType: 'No such type' })).toEqual([]);
  });

  it('created after / before are strict bounds, and filters combine with AND', async () => {
    const all = await listAll({});
    const pivot = all[Math.floor(all.length / 2)]!.createdAt;
    const after = await listAll({ createdAfter: pivot });
    const before = await listAll({ createdBefore: pivot });
    expect(after.every((r) => r.createdAt > pivot)).toBe(true);
    expect(before.every((r) => r.createdAt < pivot)).toBe(true);
    const at = all.filter((r) => r.createdAt === pivot).length;
    expect(after.length + before.length + at).toBe(all.length);

    const both = await listAll({
      teams: ['Sales'],
      domainsType: 'ONE_OR_MORE_EXTERNAL',
      createdAfter: pivot,
    });
    const expected = all.filter(
      (r) =>
        r.recordedBy.team === 'Sales' &&
        r.calendarInviteesDomainsType === 'ONE_OR_MORE_EXTERNAL' &&
        r.createdAt > pivot,
    );
    expect(both.map((r) => r.recordingId)).toEqual(expected.map((r) => r.recordingId));
  });

  it('cursors stay stable while newer meetings are recorded', async () => {
    const before = await listAll({}, 100);
    const first = await list({}, 5);
    const template = dataset.meetings.find((m) => m.recorded_by === adminEmail)!;
    const now = new Date();
    await storeRecording(t.app.database.collections, {
      recorderEmail: adminEmail,
      title: 'Inserted while paging',
      meetingTitle: null,
      meetingType: null,
      url: 'https://meetings.example/calls/new',
      shareUrl: 'https://meetings.example/share/new',
      createdAt: now,
      scheduledStartTime: now,
      scheduledEndTime: now,
      recordingStartTime: now,
      recordingEndTime: now,
      transcriptLanguage: 'en',
      meetingUrl: null,
      calendarInvitees: template.calendar_invitees,
      sharing: { userEmails: [], teams: [], allTeams: false },
      content: {},
    });
    const rest: Row[] = [];
    let after = first.pageInfo.endCursor;
    while (after) {
      const page = await list({}, 50, after);
      rest.push(...page.rows);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    }
    expect([...first.rows, ...rest].map((r) => r.recordingId)).toEqual(before.map((r) => r.recordingId));
    const fresh = await list({}, 1);
    expect(fresh.rows[0]!.recordingId).toBeGreaterThan(Math.max(...before.map((r) => r.recordingId)));
  });
});
