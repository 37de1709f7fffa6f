/** teams, teamMembers, meetingTypes and users (with permissions) through the real endpoint. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDataset } from '../../seeds/index.js';
import { keyOf, startTestApp, type TestApp } from '../support/app.js';

const dataset = demoDataset();
const acme = dataset.organisations.find((o) => o.plan === 'team')!.slug;
const admin = keyOf('account admin');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());
async function all(field: string, args: string, selection: string, key = admin): Promise<any[]> {
  const nodes: any[] = [];
  let after: string | null = null;
  do {
    const res = await t.graphql(
      `query($after: String) { ${field}(first: 3, after: $after${args}) { edges { node { ${selection} } } pageInfo { hasNextPage endCursor } } }`,
      { after },
      key,
    );
    expect(res.body.errors).toBeUndefined();
    nodes.push(...res.body.data[field].edges.map((e: { node: unknown }) => e.node));
    after = res.body.data[field].pageInfo.hasNextPage ? res.body.data[field].pageInfo.endCursor : null;
  } while (after);
  return nodes;
}

describe('directory', () => {
  it('teams: the organisation’s teams by name, paged', async () => {
    const teams = await all('teams', '', 'name createdAt');
    const expected = dataset.teams
      .filter((t) => t.organisation === acme)
      .map((t) => t.name)
      .sort();
    expect(teams.map((t) => t.name)).toEqual(expected);
    expect(teams[0].createdAt).toMatch(/Z$/);
  });

  it('meetingTypes: active and inactive, by name', async () => {
    const types = await all('meetingTypes', '', 'name status');
    const expected = dataset.meeting_types.filter((m) => m.organisation === acme);
    expect(types.map((t) => t.name)).toEqual(expected.map((t) => t.name).sort());
    expect(new Set(types.map((t) => t.status))).toEqual(new Set(['ACTIVE', 'INACTIVE']));
  });

  it('teamMembers: active members of one team, or of every team', async () => {
    const sales = await all('teamMembers', ', team: "Sales"', 'email team { name } status');
    const expected = dataset.users.filter(
      (u) => u.organisation === acme && u.team === 'Sales' && u.status === 'active',
    );
    expect(sales.map((u) => u.email)).toEqual(expected.map((u) => u.email).sort());
    const everyone = await all('teamMembers', '', 'email status');
    expect(everyone.every((u) => u.status === 'ACTIVE')).toBe(true);
    expect(everyone.length).toBe(
      dataset.users.filter((u) => u.organisation === acme && u.team && u.status === 'active').length,
    );
    expect(await all('teamMembers', ', team: "Nope"', 'email')).toEqual([]);
  });

  it('users: everyone with permissions, filtered by team, status and settings access', async () => {
    const users = await all(
      'users',
      '',
      'email status permissions { settingsAccess { level teams { name } } viewAccess { level teams { name } } }',
    );
    expect(users.length).toBe(dataset.users.filter((u) => u.organisation === acme).length);
    const invited = users.filter((u) => u.status === 'INVITED');
    expect(invited.length).toBeGreaterThan(0);
    expect(invited.every((u) => u.permissions === null)).toBe(true);
    const adminRow = users.find((u) => u.permissions?.settingsAccess.level === 'ACCOUNT_ADMIN');
    expect(adminRow.permissions.settingsAccess.teams).toHaveLength(
      dataset.teams.filter((t) => t.organisation === acme).length,
    );
    const own = users.find((u) => u.permissions?.viewAccess.level === 'OWN_MEETINGS');
    expect(own.permissions.viewAccess.teams).toEqual([]);

    const deactivated = await all('users', ', filter: { status: DEACTIVATED }', 'status');
    expect(deactivated.length).toBeGreaterThan(0);
    expect(deactivated.every((u) => u.status === 'DEACTIVATED')).toBe(true);
    const admins = await all('users', ', filter: { settingsAccess: ACCOUNT_ADMIN }', 'email');
    expect(admins.map((u) => u.email)).toContain(adminRow.email);
    const sales = await all('users', ', filter: { team: "Sales" }', 'team { name }');
    expect(sales.every((u) => u.team.name === 'Sales')).toBe(true);
  });

  it('users: status INVITED with a settings access filter is BAD_USER_INPUT', async () => {
    const res = await t.graphql(
      '{ users(filter: { status: INVITED, settingsAccess: NONE }) { edges { cursor } } }',
      {},
      admin,
    );
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
