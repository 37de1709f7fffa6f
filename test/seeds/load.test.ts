import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/demo.js';
import { loadDataset } from '../../seeds/load.js';
import { InvalidDatasetError } from '../../seeds/validate.js';
import { sharedWithOf } from '../../src/domain/sharing.js';
import { hashSecret } from '../../src/domain/viewer.js';
import { dump, startTestDatabase, type TestDatabase } from './database.js';
import { smallDataset } from './fixtures.js';

describe('loadDataset: the demo dataset', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(() => db.close());

  it('loads, and loading it again changes nothing (same _ids, same documents)', async () => {
    const counts = await loadDataset(db.collections, demoDataset());
    expect(counts).toEqual({
      organisations: 2,
      teams: 4,
      users: 14,
      api_keys: 11,
      meeting_types: 6,
      crm_connections: 2,
      crm_records: 18,
      meetings: 200,
    });
    const first = await dump(db.collections);
    expect(await loadDataset(db.collections, demoDataset())).toEqual(counts);
    const second = await dump(db.collections);
    expect(second).toEqual(first);
    expect(await db.collections.meetings.countDocuments()).toBe(200);
    expect(await db.collections.transcripts.countDocuments()).toBe(199);
    expect(await db.collections.summaries.countDocuments()).toBe(198);
  });

  it('stores every shared_with value, external recorders and meetings whose content is not ready', async () => {
    const meetings = await db.collections.meetings.find({}).toArray();
    const teams = await db.collections.teams.find({}).toArray();
    const kindOf = (m: (typeof meetings)[number]) =>
      sharedWithOf(
        m,
        teams.filter((t) => t.orgId.equals(m.orgId)).map((t) => t._id),
      );
    const byKind = new Map<string, number>();
    for (const m of meetings) byKind.set(kindOf(m), (byKind.get(kindOf(m)) ?? 0) + 1);
    expect([...byKind.keys()].sort()).toEqual(['all_teams', 'multiple_teams', 'no_teams', 'single_team']);
    expect(byKind.get('all_teams')).toBeGreaterThanOrEqual(5);
    expect(meetings.filter((m) => m.sharedWithEmails.length > 0).length).toBeGreaterThanOrEqual(40);

    const acme = await db.collections.organisations.findOne({ slug: 'acme' });
    const external = meetings.filter((m) => !m.orgId.equals(acme!._id));
    expect(external.length).toBeGreaterThanOrEqual(10);
    expect(
      external.every((m) => m.domainsType === 'one_or_more_external' && m.companyDomain === 'acme.test'),
    ).toBe(true);

    expect(meetings.filter((m) => m.contentReadyAt === null)).toHaveLength(2);
    expect(meetings.filter((m) => m.domainsType === 'only_internal').length).toBeGreaterThanOrEqual(20);
  });
});

describe('loadDataset: a small dataset read back', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
    await loadDataset(db.collections, smallDataset());
  });
  afterAll(() => db.close());

  it('derives invitee domains, the domains type and the company (ties: alphabetical first)', async () => {
    const meeting = await db.collections.meetings.findOne({ recordingId: 7 });
    expect(meeting!.domainsType).toBe('one_or_more_external');
    // beta.test and alpha.test both have two invitees; gamma.test one.
    expect(meeting!.companyDomain).toBe('alpha.test');
    expect(meeting!.calendarInvitees.map((i) => [i.email, i.emailDomain, i.isExternal])).toEqual([
      ['rita@acme.test', 'acme.test', false],
      ['bob@beta.test', 'beta.test', true],
      ['bea@beta.test', 'beta.test', true],
      ['al@alpha.test', 'alpha.test', true],
      ['ann@alpha.test', 'alpha.test', true],
      ['gus@gamma.test', 'gamma.test', true],
      [null, null, false],
    ]);
    expect(meeting!.recordingStartTime.toISOString()).toBe('2026-03-02T10:01:00.000Z');
    expect(meeting!.contentReadyAt).toBeInstanceOf(Date);

    const internal = await db.collections.meetings.findOne({ recordingId: 8 });
    expect(internal!.domainsType).toBe('only_internal');
    expect(internal!.companyDomain).toBeNull();
    expect(internal!.contentReadyAt).toBeNull();
    const acmeTeams = await db.collections.teams.find({ orgId: internal!.orgId }).toArray();
    expect(
      sharedWithOf(
        internal!,
        acmeTeams.map((t) => t._id),
      ),
    ).toBe('all_teams');
  });

  it('resolves teams, users, sharing, meeting types, credentials and CRM owners to ids', async () => {
    const c = db.collections;
    const acme = await c.organisations.findOne({ slug: 'acme' });
    const sales = await c.teams.findOne({ orgId: acme!._id, name: 'Sales' });
    const support = await c.teams.findOne({ orgId: acme!._id, name: 'Support' });
    const rita = await c.users.findOne({ email: 'rita@acme.test' });
    const sid = await c.users.findOne({ email: 'sid@acme.test' });
    expect(rita).toMatchObject({
      orgId: acme!._id,
      teamId: sales!._id,
      viewAccess: { level: 'team', teamIds: [sales!._id] },
    });
    expect(sid!.viewAccess.teamIds).toEqual([sales!._id, support!._id]);

    const meeting = await c.meetings.findOne({ recordingId: 7 });
    const type = await c.meetingTypes.findOne({ orgId: acme!._id, name: 'Discovery' });
    expect(meeting).toMatchObject({
      recorderId: rita!._id,
      teamId: sales!._id,
      meetingTypeId: type!._id,
      sharedTeamIds: [sales!._id, support!._id],
      sharedWithEmails: ['otto@other.test'],
    });
    // Sales and Support, named one by one, are every team Acme has here.
    expect(sharedWithOf(meeting!, [sales!._id, support!._id])).toBe('all_teams');
    expect(await c.transcripts.findOne({ recordingId: 7 })).toMatchObject({
      entries: [{ speaker: { displayName: 'Rita', matchedCalendarInviteeEmail: 'rita@acme.test' } }, {}],
    });
    expect(await c.summaries.findOne({ recordingId: 7 })).toMatchObject({ templateName: 'General' });

    const key = await c.credentials.findOne({ secretHash: hashSecret('mk_test_rita_0123456789abcdef') });
    expect(key).toMatchObject({
      userId: rita!._id,
      kind: 'api_key',
      prefix: 'mk_test_',
      appName: null,
      revokedAt: null,
    });
    expect(key!.createdAt).toEqual(new Date('2025-01-01T10:00:00Z'));
    const app = await c.credentials.findOne({ secretHash: hashSecret('mct_test_sid_0123456789abcdef') });
    expect(app).toMatchObject({
      kind: 'connected_app',
      appName: 'Flow',
      revokedAt: new Date('2026-01-01T10:00:00Z'),
    });
    expect(JSON.stringify(await c.credentials.find({}).toArray())).not.toContain('0123456789abcdef');

    const teamCrm = await c.crmConnections.findOne({ owner: { kind: 'team', id: sales!._id } });
    const userCrm = await c.crmConnections.findOne({ owner: { kind: 'user', id: sid!._id } });
    expect(teamCrm).toMatchObject({ provider: 'hubspot' });
    expect(userCrm).toMatchObject({ provider: 'salesforce' });
    expect(await c.crmRecords.find({ connectionId: teamCrm!._id }).toArray()).toMatchObject([
      { kind: 'contact', email: 'bob@beta.test' },
      { kind: 'company', domain: 'beta.test' },
      { kind: 'deal', amount: 1000, companyDomain: 'beta.test' },
    ]);
  });

  it('updates in place when the dataset changes, keeping _ids', async () => {
    const before = await db.collections.users.findOne({ email: 'rita@acme.test' });
    const connection = await db.collections.crmConnections.findOne({ provider: 'hubspot' });
    const changed = smallDataset();
    changed.users[0]!.name = 'Rita Renamed';
    changed.crm_connections[0]!.deals[0]!.amount = 2500;
    await loadDataset(db.collections, changed);
    const after = await db.collections.users.findOne({ email: 'rita@acme.test' });
    expect(after).toEqual({ ...before, name: 'Rita Renamed' });
    expect(await db.collections.crmConnections.findOne({ provider: 'hubspot' })).toEqual(connection);
    expect(await db.collections.crmRecords.findOne({ kind: 'deal' })).toMatchObject({ amount: 2500 });
    expect(await db.collections.crmRecords.countDocuments({ connectionId: connection!._id })).toBe(3);
  });
});

describe('loadDataset: an invalid dataset', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  });
  afterAll(() => db.close());

  it('writes nothing to an empty database', async () => {
    const bad = smallDataset();
    bad.meetings[0]!.calendar_invitees[0]!.email = 'nope';
    await expect(loadDataset(db.collections, bad)).rejects.toThrow(InvalidDatasetError);
    for (const collection of Object.values(db.collections)) expect(await collection.countDocuments()).toBe(0);
  });

  it('leaves a loaded database unchanged, naming every bad path', async () => {
    await loadDataset(db.collections, smallDataset());
    const before = await dump(db.collections);
    const bad = smallDataset();
    bad.organisations[0]!.name = 'Acme Renamed'; // valid on its own: must not be written either
    bad.users[1]!.team = 'Sales Team';
    bad.meetings[1]!.sharing.users = ['ghost@acme.test'];
    const error = await loadDataset(db.collections, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidDatasetError);
    expect((error as InvalidDatasetError).problems).toEqual([
      'users[1].team: no team "Sales Team" in organisation "acme"',
      'meetings[1].sharing.users[0]: no user "ghost@acme.test"',
    ]);
    expect(await dump(db.collections)).toEqual(before);
  });
});
